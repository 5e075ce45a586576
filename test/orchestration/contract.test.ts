/**
 * Orchestrators keep their members' contract (issue 11 point 4): every member's input is checked
 * against that member's interface.input.schema before its run starts; a bad input fails the
 * orchestration naming the member and the field, and the member's workflow never starts. Real
 * dev server; members are scripted react agents.
 */
import type { ExecutionPolicy } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { agent, answers, bundle, locals } from './builders';
import { failureOf, Harness, startHarness } from './harness';
import { childWorkflowIds, historyEvents } from '../helpers/history';
import { replayHistories } from '../helpers/replay';
import { patchMarkers } from '../compat/tree';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('contract');
});
afterAll(async () => {
  await h?.close();
});

const orch = (id: string, policy: ExecutionPolicy, aliases: string[]) => agent({ id, policy, local_agents: locals(...aliases) });

/** A billing member that needs { ticket_id: string, amount: number >= 0 }. */
const billing = () =>
  agent({
    id: 'billing',
    input_schema: { type: 'object', properties: { ticket_id: { type: 'string' }, amount: { type: 'number', minimum: 0 } }, required: ['ticket_id', 'amount'] },
    model: answers('billed'),
  });

test('a member whose mapped input lacks a required field is refused before it starts, naming the member and the field', async () => {
  const b = bundle('c-refund', [
    orch('c-refund', { id: 'agf.sequential', config: { steps: [{ agent: 'triage' }, { agent: 'billing', input_mapping: { ticket_id: 'triage.output.ticket' } }], output_from: 'billing' } }, ['triage', 'billing']),
    agent({ id: 'triage', model: answers({ ticket: 'T-1' }) }),
    billing(),
  ]);
  const wf = await h.start(b, 'refund me');
  const msg = await failureOf(wf);
  expect(msg).toMatch(/step 2 \(billing\) failed: member 'billing' \(step-2-billing\) refused its input before its run started/);
  expect(msg).toMatch(/required field 'amount' is missing/);
  expect(msg).not.toMatch(/ticket_id/);
  // triage ran; billing never started.
  const events = await historyEvents(wf);
  const children = childWorkflowIds(events);
  expect(children.some((id) => id.includes('triage'))).toBe(true);
  expect(children.some((id) => id.includes('billing'))).toBe(false);

  const hist = await wf.fetchHistory();
  const outcomes = await replayHistories([{ workflowId: wf.workflowId, history: hist }]);
  expect(outcomes.filter((o) => o.error)).toEqual([]);
  // The refusal is behind patch contract-orchestrator (its marker is in the history).
  expect(patchMarkers(hist)).toContain('contract-orchestrator');
}, 120_000);

test('a wrong type is named with its path; a valid input runs the member unchanged (no patch marker)', async () => {
  const bad = bundle('c-type', [
    orch('c-type', { id: 'agf.sequential', config: { steps: [{ agent: 'triage' }, { agent: 'billing', input_mapping: { ticket_id: 'triage.output.ticket', amount: 'triage.output.amount' } }], output_from: 'billing' } }, ['triage', 'billing']),
    agent({ id: 'triage', model: answers({ ticket: 'T-2', amount: 'ten' }) }),
    billing(),
  ]);
  expect(await failureOf(await h.start(bad, 'refund me'))).toMatch(/member 'billing' .*field 'amount' must be number, got string/);

  const good = bundle('c-ok', [
    orch('c-ok', { id: 'agf.sequential', config: { steps: [{ agent: 'triage' }, { agent: 'billing', input_mapping: { ticket_id: 'triage.output.ticket', amount: 'triage.output.amount' } }], output_from: 'billing' } }, ['triage', 'billing']),
    agent({ id: 'triage', model: answers({ ticket: 'T-3', amount: 10 }) }),
    billing(),
  ]);
  const wf = await h.start(good, 'refund me');
  expect(((await wf.result()) as AgentRunResult).output).toBe('billed');
  expect(patchMarkers(await wf.fetchHistory())).not.toContain('contract-orchestrator');
}, 120_000);
