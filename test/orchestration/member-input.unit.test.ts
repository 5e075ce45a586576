/** The member input check (src/orchestration/member-input.ts): each problem names the field and what it must be. */
import { inputProblems, memberInputRefusal } from '../../src/orchestration/member-input';

const schema = {
  type: 'object',
  properties: {
    ticket_id: { type: 'string', minLength: 3 },
    amount: { type: 'number', minimum: 0 },
    lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] }, maxItems: 2 },
    channel: { enum: ['email', 'chat'] },
  },
  required: ['ticket_id', 'amount'],
  additionalProperties: false,
};

test('a valid input has no problem; an open schema accepts anything', () => {
  expect(inputProblems(schema, { ticket_id: 'T-1', amount: 0, lines: [{ sku: 'a' }], channel: 'chat' })).toEqual([]);
  expect(inputProblems({}, 'any text')).toEqual([]);
  expect(inputProblems(undefined, 42)).toEqual([]);
  expect(inputProblems({ type: ['object', 'string'] }, 'text')).toEqual([]);
  expect(inputProblems({ type: 'number' }, 3)).toEqual([]);
});

test('every problem names the field path', () => {
  expect(inputProblems(schema, { ticket_id: 'T', amount: -1, lines: [{}, { sku: 1 }, { sku: 'c' }], channel: 'fax', extra: true })).toEqual([
    "field 'ticket_id' must have at least 3 characters",
    "field 'amount' must be >= 0",
    "field 'lines' must have at most 2 items",
    "required field 'lines[0].sku' is missing",
    "field 'lines[1].sku' must be string, got integer",
    "field 'channel' must be one of \"email\", \"chat\", got \"fax\"",
    "field 'extra' is not allowed (additionalProperties: false; allowed: ticket_id, amount, lines, channel)",
  ]);
  expect(inputProblems(schema, 'refund me')).toEqual(['the input must be object, got string']);
  expect(inputProblems({ type: 'integer' }, 1.5)).toEqual(['the input must be integer, got number']);
  expect(inputProblems({ anyOf: [{ type: 'string' }, { type: 'object', required: ['q'] }] }, {})).toEqual(['the input matches none of the anyOf alternatives']);
});

test('the refusal names the member, its role and the schema', () => {
  expect(memberInputRefusal({ agent_id: 'billing', interface: { input: { schema } } }, 'step-2-billing', { ticket_id: 'T-12' })).toBe(
    "member 'billing' (step-2-billing) refused its input before its run started: required field 'amount' is missing (its interface.input.schema)",
  );
  expect(memberInputRefusal({ agent_id: 'billing', interface: { input: { schema } } }, 'r', { ticket_id: 'T-12', amount: 1 })).toBeUndefined();
});
