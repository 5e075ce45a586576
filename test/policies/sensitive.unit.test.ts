/** src/governance/sensitive.ts: the one redaction of sensitive tool fields (issue 11). */
import { REDACTED, redactArgs, redactToolArgs, sensitiveFieldsOf } from '../../src/governance/sensitive';

describe('sensitive tool fields', () => {
  const args = { to: 'a@b.io', card: '4111', owner: { ssn: '123', name: 'Al' }, cards: [{ number: '1', exp: '2' }], tags: ['x', 'y'] };

  test('every listed path is redacted, nested and array items included; the rest kept', () => {
    expect(redactArgs(args, ['card', 'owner.ssn', 'cards[].number', 'tags[]', 'absent.path'])).toEqual({
      to: 'a@b.io', card: REDACTED, owner: { ssn: REDACTED, name: 'Al' }, cards: [{ number: REDACTED, exp: '2' }], tags: [REDACTED, REDACTED],
    });
    expect(args.card).toBe('4111');
  });

  test('a tool without sensitive fields, or an unknown tool, passes its arguments through', () => {
    const table = sensitiveFieldsOf([{ tool_id: 'pay', sensitive_fields: ['card'] }, { tool_id: 'echo', sensitive_fields: [] }]);
    expect(table).toEqual({ pay: ['card'] });
    expect(redactToolArgs('pay', args, table).card).toBe(REDACTED);
    expect(redactToolArgs('echo', args, table)).toBe(args);
    expect(redactToolArgs('other', args, table)).toBe(args);
  });
});
