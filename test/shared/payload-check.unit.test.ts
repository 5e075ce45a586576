/**
 * The payload schemas of the run contract and the one-line description of a payload that does not
 * fit: what a workflow warns about (signals), refuses with (updates, queries), and what the CLI
 * says before sending. Every hostile shape of the handlers test is checked here without a server.
 */
import {
  ApproveArgsSchema,
  DecideArgsSchema,
  DescendantDecisionsReportSchema,
  PAYLOAD_SHAPES,
  RejectArgsSchema,
  RespondArgsSchema,
  StreamedCallSchema,
  StreamedTurnSchema,
} from '../../src/shared/contract';
import { SESSION_MESSAGE_SHAPE, SessionMessageSchema } from '../../src/shared/session';
import type { z } from 'zod';
import { checkPayload, isUndecodable, undecodable } from '../../src/shared/payload-check';

function deep(n: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
}

const HOSTILE: [string, unknown][] = [
  ['missing', undefined],
  ['null', null],
  ['a negative fraction', -1.5],
  ['an array', [{ call_id: 'c1' }]],
  ['wrong field types', { call_id: 7, reason: false, queue: 1, ref: [], turn: 'x', text: 3 }],
  ['a 1 MB string', 'x'.repeat(1 << 20)],
  ['10,000-deep nesting', deep(10_000)],
  ['undecodable', undecodable('binary/evil', 'Unknown encoding: binary/evil')],
];

const SCHEMAS = [
  ['approve', ApproveArgsSchema, PAYLOAD_SHAPES.approve],
  ['reject', RejectArgsSchema, PAYLOAD_SHAPES.reject],
  ['respond', RespondArgsSchema, PAYLOAD_SHAPES.respond],
  ['decide', DecideArgsSchema, PAYLOAD_SHAPES.decide],
  ['descendantDecisions', DescendantDecisionsReportSchema, PAYLOAD_SHAPES.descendantDecisions],
  ['callStreamed', StreamedCallSchema, PAYLOAD_SHAPES.callStreamed],
  ['streamedCalls', StreamedTurnSchema, PAYLOAD_SHAPES.streamedCalls],
  ['sessionMessage', SessionMessageSchema, SESSION_MESSAGE_SHAPE],
] as const;

describe.each(SCHEMAS)('%s', (_name, schema, shape) => {
  test.each(HOSTILE)('%s is refused with the expected shape, in a short line', (_what, value) => {
    const c = checkPayload(schema as z.ZodType<unknown>, value, shape);
    expect(c.ok).toBe(false);
    if (c.ok) return;
    expect(c.problem).toContain(`expected ${shape}`);
    expect(c.problem.length).toBeLessThanOrEqual(400);
  });
});

test('what was wrong is named: no payload, null, the field and its type, an undecodable encoding', () => {
  const no = checkPayload(ApproveArgsSchema, undefined, PAYLOAD_SHAPES.approve);
  expect(!no.ok && no.problem).toMatch(/^got no payload; expected \{"call_id"/);
  const nul = checkPayload(ApproveArgsSchema, null, PAYLOAD_SHAPES.approve);
  expect(!nul.ok && nul.problem).toMatch(/^got null;/);
  const typed = checkPayload(ApproveArgsSchema, { call_id: 7 }, PAYLOAD_SHAPES.approve);
  expect(!typed.ok && typed.problem).toMatch(/^call_id: Expected string, received number;/);
  const bad = checkPayload(ApproveArgsSchema, undecodable('binary/evil', 'Unknown encoding: binary/evil'), PAYLOAD_SHAPES.approve);
  expect(!bad.ok && bad.problem).toMatch(/^the payload could not be decoded \(encoding 'binary\/evil': Unknown encoding: binary\/evil\)/);
  const args = checkPayload(ApproveArgsSchema, { call_id: 'c1', args: [] }, PAYLOAD_SHAPES.approve);
  expect(!args.ok && args.problem).toMatch(/^args: Expected object, received array/);
});

test('operator payloads refuse unknown fields (a mistyped name is not dropped); member reports ignore them', () => {
  const typo = checkPayload(RejectArgsSchema, { call_id: 'c1', reasn: 'no' }, PAYLOAD_SHAPES.reject);
  expect(!typo.ok && typo.problem).toMatch(/reason: Required; Unrecognized key\(s\) in object: 'reasn'/);
  expect(checkPayload(ApproveArgsSchema, { call_id: 'c1', x: 1 }, PAYLOAD_SHAPES.approve).ok).toBe(false);
  const report = { workflow_id: 'w', role: 'r', at: 1, seq: 1, decisions: [], added_later: true };
  const r = checkPayload(DescendantDecisionsReportSchema, report, PAYLOAD_SHAPES.descendantDecisions);
  expect(r.ok && r.value).toEqual({ workflow_id: 'w', role: 'r', at: 1, seq: 1, decisions: [] });
});

test('a key name of a megabyte is cut in the description', () => {
  const c = checkPayload(ApproveArgsSchema, { call_id: 'c1', ['k'.repeat(1 << 20)]: 1 }, PAYLOAD_SHAPES.approve);
  expect(!c.ok && c.problem.length).toBeLessThanOrEqual(400);
});

test('payloads that fit pass unchanged, whatever depth their free JSON has', () => {
  const approve = { call_id: 'c1', args: { nested: deep(10_000) }, tool: 'echo', by: 'ann' };
  const a = checkPayload(ApproveArgsSchema, approve, PAYLOAD_SHAPES.approve);
  expect(a.ok && a.value.args?.nested === approve.args.nested).toBe(true);
  expect(checkPayload(RejectArgsSchema, { call_id: 'c1', reason: 'no' }, PAYLOAD_SHAPES.reject).ok).toBe(true);
  expect(checkPayload(RejectArgsSchema, { call_id: 'c1', reason: '  ' }, PAYLOAD_SHAPES.reject).ok).toBe(false);
  expect(checkPayload(RespondArgsSchema, { queue: 'q', output: null }, PAYLOAD_SHAPES.respond).ok).toBe(true);
  expect(checkPayload(RespondArgsSchema, { queue: 'q', close: true }, PAYLOAD_SHAPES.respond).ok).toBe(true);
  expect(checkPayload(RespondArgsSchema, { queue: 'q' }, PAYLOAD_SHAPES.respond).ok).toBe(false);
  expect(checkPayload(DecideArgsSchema, { ref: 'a:c1', decision: 'approve' }, PAYLOAD_SHAPES.decide).ok).toBe(true);
  expect(checkPayload(DecideArgsSchema, { ref: 'a:c1', decision: 'maybe' }, PAYLOAD_SHAPES.decide).ok).toBe(false);
  expect(checkPayload(StreamedCallSchema, { turn: 0, call: { id: 'c', name: 'echo', arguments: {} } }, PAYLOAD_SHAPES.callStreamed).ok).toBe(true);
  expect(checkPayload(StreamedTurnSchema, 2, PAYLOAD_SHAPES.streamedCalls).ok).toBe(true);
  expect(checkPayload(StreamedTurnSchema, -1, PAYLOAD_SHAPES.streamedCalls).ok).toBe(false);
  expect(checkPayload(SessionMessageSchema, { text: 'hi' }, SESSION_MESSAGE_SHAPE).ok).toBe(true);
});

test('the undecodable marker is recognised and is plain JSON', () => {
  const u = undecodable('binary/encrypted', 'payload encrypted with key k9');
  expect(isUndecodable(JSON.parse(JSON.stringify(u)))).toBe(true);
  expect(isUndecodable({ call_id: 'c1' })).toBe(false);
  expect(isUndecodable(null)).toBe(false);
});
