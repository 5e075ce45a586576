/** The platform PII pass (policies.pii_redaction): typed placeholders, no false positives on plain prose. */
import { describeFound, redactJson, redactReply, redactText } from '../../src/policies/pii';

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
