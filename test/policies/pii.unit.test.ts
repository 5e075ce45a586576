/** The platform PII engine (policies.pii_redaction, the pii-regex guardrail, the audit log): typed placeholders, no false positives on plain prose. */
import { describeFound, detectPii, redactJson, redactReply, redactText } from '../../src/governance/pii';

describe('redactText', () => {
  it.each([
    ['write to jane.doe@example.com today', 'write to [EMAIL] today', 'EMAIL'],
    ['call me on +44 20 7946 0958 please', 'call me on [PHONE] please', 'PHONE'],
    ['my number is (555) 123-4567.', 'my number is [PHONE].', 'PHONE'],
    ['account number: 12345678 is overdrawn', 'account number: [ACCOUNT_NUMBER] is overdrawn', 'ACCOUNT_NUMBER'],
    ['IBAN DE89 3704 0044 0532 0130 00 on file', 'IBAN [ACCOUNT_NUMBER] on file', 'ACCOUNT_NUMBER'],
    ['card 4111 1111 1111 1111 expired', 'card [CARD_NUMBER] expired', 'CARD_NUMBER'],
    ['SSN 123-45-6789', 'SSN [NATIONAL_ID]', 'NATIONAL_ID'],
    ['NI number AB 12 34 56 C', 'NI number [NATIONAL_ID]', 'NATIONAL_ID'],
    ['passport number X1234567 renewed', 'passport number [NATIONAL_ID] renewed', 'NATIONAL_ID'],
    ['Hello, my name is Maria Lopez and I need help', 'Hello, my name is [PERSON] and I need help', 'PERSON'],
    ['Please ask Dr. Alan Turing', 'Please ask Dr. [PERSON]', 'PERSON'],
    ['Thanks, Priya', 'Thanks, [PERSON]', 'PERSON'],
    ['customer 98765432101 waits', 'customer [ACCOUNT_NUMBER] waits', 'ACCOUNT_NUMBER'],
  ])('%s', (input, expected, kind) => {
    const r = redactText(input);
    expect(r.text).toBe(expected);
    expect(r.found[kind as keyof typeof r.found]).toBe(1);
  });

  it('leaves ordinary prose, dates, prices and short numbers alone', () => {
    for (const s of ['I am happy to help with your order.', 'The refund of $120.50 arrives on 2024-03-15.', 'Order 4412 shipped in 3 boxes.', 'This is Not a name.', 'Version 1.2.3 of the app']) {
      expect(redactText(s)).toEqual({ text: s, found: {} });
    }
  });

  it('redacts every entity of a mixed message and counts them without values', () => {
    const r = redactText('I am John Smith, email john@smith.io, phone 415-555-0134, account 99887766.');
    expect(r.text).toBe('I am [PERSON], email [EMAIL], phone [PHONE], account [ACCOUNT_NUMBER].');
    expect(describeFound(r.found)).toBe('1 EMAIL, 1 ACCOUNT_NUMBER, 1 PHONE, 1 PERSON');
  });
});

describe('redactJson / redactReply', () => {
  it('redacts strings inside JSON and keeps keys and shape', () => {
    const r = redactJson({ 'owner@example.com': ['reach a@b.co'], n: 5 });
    expect(r.value).toEqual({ 'owner@example.com': ['reach [EMAIL]'], n: 5 });
  });

  it('a JSON reply stays valid JSON (an output schema still applies), text replies redact as text', () => {
    const json = redactReply('{"answer": "mail x@y.org", "ok": true}');
    expect(JSON.parse(json.text)).toEqual({ answer: 'mail [EMAIL]', ok: true });
    expect(redactReply('no PII here {').text).toBe('no PII here {');
    expect(redactReply('{"a": 1}').text).toBe('{"a": 1}');
  });
});

describe('names without cue phrases and the other kinds', () => {
  it("the issue's sentence: the name is redacted next to the phone and the e-mail", () => {
    const r = redactText('Please call Jane Doe at 555 0100 or write to jane.doe@example.com');
    expect(r.text).toBe('Please call [PERSON] at [PHONE] or write to [EMAIL]');
    expect(r.found).toEqual({ EMAIL: 1, PHONE: 1, PERSON: 1 });
  });

  it.each([
    ['Yesterday Michael Chen approved the refund.', 'Yesterday [PERSON] approved the refund.'],
    ['Escalated by Sarah O\'Connor; assigned to Kenji Watanabe.', 'Escalated by [PERSON]; assigned to [PERSON].'],
    ['The contract was signed by Oluwaseun Adeyemi yesterday.', 'The contract was signed by [PERSON] yesterday.'],
    ['CUSTOMER JOHN SMITH REPORTED THE OUTAGE.', 'CUSTOMER [PERSON] REPORTED THE OUTAGE.'],
    ['Ms. Anna Kowalski asked for an update.', 'Ms. [PERSON] asked for an update.'],
  ])('names mid-sentence, all-caps, after an honorific: %s', (input, expected) => {
    expect(redactText(input).text).toBe(expected);
  });

  it('names in a JSON tool result, as text and as a JSON value', () => {
    const tool = '{"ticket": 4411, "customer": {"name": "Maria Garcia", "email": "m.garcia@example.es"}, "agent": "Tom Baker"}';
    expect(redactText(tool).text).toBe('{"ticket": 4411, "customer": {"name": "[PERSON]", "email": "[EMAIL]"}, "agent": "[PERSON]"}');
    expect(redactText('{"contact":{"first_name":"Aisha","last_name":"Bello"}}').text).toBe('{"contact":{"first_name":"[PERSON]","last_name":"[PERSON]"}}');
    const r = redactJson({ results: [{ full_name: 'Lars Eriksson', phone: '+46 8 123 456 78' }], product: { name: 'Aurora Desk Lamp', sku: 'LMP-00421' } });
    expect(r.value).toEqual({ results: [{ full_name: '[PERSON]', phone: '[PHONE]' }], product: { name: 'Aurora Desk Lamp', sku: 'LMP-00421' } });
    expect(r.found).toEqual({ PERSON: 1, PHONE: 1 });
    expect(JSON.parse(redactReply('{"answer": "Ask Claire Dubois", "ok": true}').text)).toEqual({ answer: 'Ask [PERSON]', ok: true });
  });

  it.each([
    ['Reach Berlin on +49 30 901820 or Tokyo at +81 3-1234-5678.', 'Reach Berlin on [PHONE] or Tokyo at [PHONE].'],
    ['His mobile is +91 98765 43210, from abroad dial 0044 20 7946 0321.', 'His mobile is [PHONE], from abroad dial [PHONE].'],
    ['Ship it to 221B Baker Street, London NW1 6XE.', 'Ship it to [ADDRESS].'],
    ['Deliver to 42 Elm Street, Apt 4B, Springfield, IL 62704 on Monday.', 'Deliver to [ADDRESS] on Monday.'],
    ['The invoice goes to Hauptstraße 5, 10115 Berlin.', 'The invoice goes to [ADDRESS].'],
    ['Pay GB82 WEST 1234 5698 7654 32 or NL91ABNA0417164300.', 'Pay [ACCOUNT_NUMBER] or [ACCOUNT_NUMBER].'],
    ['DNI 12345678Z, NIE X1234567L, codice fiscale RSSMRA85T10A562S.', 'DNI [NATIONAL_ID], NIE [NATIONAL_ID], codice fiscale [NATIONAL_ID].'],
    ['Aadhaar 2345 6789 0124 and NIR 1 84 12 76 451 089 46.', 'Aadhaar [NATIONAL_ID] and NIR [NATIONAL_ID].'],
    ['From 203.0.113.42 and 2001:db8:85a3::8a2e:370:7334.', 'From [IP_ADDRESS] and [IP_ADDRESS].'],
  ])('international phones, addresses, IBANs, national ids, IPs: %s', (input, expected) => {
    expect(redactText(input).text).toBe(expected);
  });

  it('leaves look-alikes alone: product codes, order numbers, versions, cities, companies, invalid checksums', () => {
    for (const s of [
      'Order ORD-2024-5531 ships via DHL Express from Rotterdam.',
      'SKU AB-1234-XY is back in stock; part no. 7781-2290-11 is discontinued.',
      'Your order number is 2024113055 and the tracking code 1Z999AA10123456784.',
      'Upgrade to version 10.0.19045.3693 or v2.14.3 of the agent.',
      'We opened offices in Paris, Austin, Florence and Victoria this year.',
      'Our suppliers are Morgan Stanley, Wells Fargo and Johnson & Johnson.',
      'Ford, Dell and Tesla reported earnings above expectations.',
      'ISBN 978-3-16-148410-0 is out of print.',
      'Invoice #88234571 was paid in 3 instalments of 450 EUR.',
      'The warehouse on Victoria Street handles returns for Amazon.',
      'Form field 12345678A has a DNI shape and the wrong letter.',
    ]) {
      expect({ s, spans: detectPii(s) }).toEqual({ s, spans: [] });
    }
    // an IBAN whose check digits fail is not an account number (its digit groups may still read as a phone)
    expect(detectPii('IBAN-shaped GB12 ABCD 1234 5678 9012 34 fails its check digits.').filter((x) => x.kind === 'ACCOUNT_NUMBER')).toEqual([]);
  });

  it('names in a bulleted list: the span is the name, not the bullet or what follows', () => {
    expect(redactText('Team:\n- Alice Moreau: reviews\n- Bob Stone: tests').text).toBe('Team:\n- [PERSON]: reviews\n- [PERSON]: tests');
  });

  it('keep: configured names (a team\'s agent names) are never redacted, the rest still is', () => {
    const text = 'Agents: Alice, Bob Stone, Planner.\n[Alice]: Hi, my name is Maria Lopez, mail maria@example.com';
    expect(redactText(text, { keep: ['Alice', 'Bob Stone', 'Planner'] }).text).toBe('Agents: Alice, Bob Stone, Planner.\n[Alice]: Hi, my name is [PERSON], mail [EMAIL]');
    expect(redactText(text).text).toContain('[[PERSON]]: Hi');
    expect(redactReply('Alice', { keep: ['alice'] }).text).toBe('Alice');
    expect(redactReply('{"next": "Bob Stone"}', { keep: ['Bob Stone'] }).text).toBe('{"next": "Bob Stone"}');
    expect(redactJson({ assignee: 'Alice' }, {}, { keep: ['Alice'] }).value).toEqual({ assignee: 'Alice' });
  });

  it('a city that is also a first name stays under a place key or after a place word', () => {
    expect(redactJson({ city: 'Austin', destination: 'Victoria', assignee: 'Austin' }).value).toEqual({ city: 'Austin', destination: 'Victoria', assignee: '[PERSON]' });
    expect(redactText('Status: Delivered. Destination: Austin, TX.').text).toBe('Status: Delivered. Destination: Austin, TX.');
    expect(redactText('Hello World, from the Support Team').text).toBe('Hello World, from the Support Team');
  });

  it('spans never overlap and each has one kind (first rule claims)', () => {
    const spans = detectPii('Mr. Jane Doe (jane@doe.io), account 12345678, 4111 1111 1111 1111');
    expect(spans.map((x) => x.kind).sort()).toEqual(['ACCOUNT_NUMBER', 'CARD_NUMBER', 'EMAIL', 'PERSON']);
    const sorted = [...spans].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i].start).toBeGreaterThanOrEqual(sorted[i - 1].end);
  });
});
