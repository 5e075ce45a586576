/** Audit events in an entry: what each level keeps, how `loom audit` words them, and that changing one breaks the chain. */
import { AuditEvent, AuditRecord, describeEvent, eventsAtLevel, sealEntry, verifyChain } from '../../src/governance/audit';

const approval: AuditEvent = {
  kind: 'approval', at: '2026-01-01T00:00:02.000Z', call_id: 'c1', tool: 'refund', decision: 'approved', by: 'alice',
  requested_at: '2026-01-01T00:00:01.000Z', arguments: { amount: 10 },
};
const guard: AuditEvent = { kind: 'guardrail', at: '2026-01-01T00:00:00.500Z', position: 'tool_input', verdict: 'warn', guardrail: 'amount-cap', reason: 'over 5', tool: 'refund', call_id: 'c1' };
const esc: AuditEvent = { kind: 'escalation', at: '2026-01-01T00:00:03.000Z', trigger: 'timeout', detail: 'approval timed out', target: 'human_queue billing', outcome: 'answered by carol' };

test('standard drops approved arguments, full keeps them; other events are kept whole', () => {
  const [a, g] = eventsAtLevel([approval, guard], 'standard');
  expect(a).not.toHaveProperty('arguments');
  expect(a).toMatchObject({ decision: 'approved', by: 'alice', tool: 'refund' });
  expect(g).toEqual(guard);
  expect(eventsAtLevel([approval, guard], 'full')).toEqual([approval, guard]);
});

test('each event reads as who/what/when on one line', () => {
  expect(describeEvent(approval)).toBe('2026-01-01T00:00:02.000Z approval refund (c1) approved by alice');
  expect(describeEvent({ ...approval, decision: 'replaced', replaced_by: 'credit' })).toMatch(/refund \(c1\) replaced with credit by alice/);
  expect(describeEvent(guard)).toBe("2026-01-01T00:00:00.500Z guardrail tool_input refund (c1) warn by 'amount-cap': over 5");
  expect(describeEvent(esc)).toBe('2026-01-01T00:00:03.000Z escalation on timeout to human_queue billing answered by carol: approval timed out');
});

test('changing who approved breaks the chain at that entry', () => {
  const rec: AuditRecord = {
    event: 'run', level: 'standard', agent_id: 'a', agent_version: '1.0.0', workflow_id: 'w', run_id: 'r',
    started_at: '2026-01-01T00:00:00.000Z', ended_at: '2026-01-01T00:00:04.000Z', outcome: 'success', tools: ['refund'], events: [approval, esc],
  };
  const first = sealEntry(undefined, rec);
  const second = sealEntry(first, { ...rec, workflow_id: 'w2' });
  const lines = [first, second].map((e) => JSON.stringify(e));
  expect(verifyChain(lines)).toEqual({ ok: true, entries: 2 });
  const forged = lines[0].replace('"by":"alice"', '"by":"mallory"');
  expect(forged).not.toBe(lines[0]);
  expect(verifyChain([forged, lines[1]])).toMatchObject({ ok: false, line: 1, reason: expect.stringMatching(/hash does not match/) });
});
