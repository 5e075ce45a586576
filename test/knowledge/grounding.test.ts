/**
 * grounding_required on the output (issue 11.2; decision 258) on the shared dev server: the model
 * searches the knowledge with search_knowledge; an answer its retrieved chunks do not support gets
 * one correction turn; grounded then, the run succeeds with the warning; still ungrounded, the run
 * fails with the reason. An answer with nothing retrieved fails the same way; a grounded answer
 * passes at once.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { randomBytes } from 'crypto';
import type { ScriptedReply } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import type { TestTemporal } from '../helpers/temporal';
import { Harness, startHarness } from '../runtime/harness';
import { agfReactWorkflow } from '../../src/workflows/react';
import { storeTestBundle, testStore } from '../runtime/builders';
import { builtin, compileAgent, kb, scripted, type Definition } from '../helpers/definitions';

let t: TestTemporal;
let h: Harness;
beforeAll(async () => {
  h = await startHarness('knowledge-grounding');
  t = h.t;
});
afterAll(async () => {
  await h?.close();
});

const REFUNDS = { type: 'inline', documents: [{ id: 'refunds', title: 'Refunds', text: 'Refunds are paid to the original card within 30 days.' }] };
const policy = (over = {}): Definition => kb('policy', REFUNDS, over);
/** Grounding required by the agent's knowledge.retrieval block (the source itself does not ask for it). */
const GROUNDED_RETRIEVAL = { knowledge: { refs: [{ ref: 'policy' }], retrieval: { grounding_required: true } } };
const search: ScriptedReply = { tool_calls: [{ name: 'search_knowledge', arguments: { query: 'refunds card' } }] };
const UNGROUNDED = 'Refunds include a bonus gift voucher and free shipping forever [policy/refunds].';
const GROUNDED = 'Refunds are paid to the original card within 30 days [policy/refunds].';

async function run(id: string, turns: ScriptedReply[]) {
  const { bundle: compiled } = compileAgent({ agent_id: id, model: scripted({ turns }), tools: [builtin('search_knowledge')], others: [policy()], front: GROUNDED_RETRIEVAL });
  const bundle = await storeTestBundle(compiled);
  const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: `${id}-${randomBytes(4).toString('hex')}`, args: [{ bundle, agent_id: id, input: 'How do refunds work?' }] });
  return h.result() as Promise<AgentRunResult>;
}

test('a grounded answer passes at once', async () => {
  const res = await run('ground-ok', [search, { content: GROUNDED }]);
  expect(res.output).toBe(GROUNDED);
  expect(res.warnings.join('\n')).not.toMatch(/grounding/);
}, 120_000);

test('an ungrounded answer is corrected once; the grounded correction is the output', async () => {
  const res = await run('ground-fixed', [search, { content: UNGROUNDED }, { content: GROUNDED }]);
  expect(res.output).toBe(GROUNDED);
  expect(res.warnings.join('\n')).toMatch(/the answer is not supported by the chunks it cites \(policy\/refunds\).*asked the model for a correction/);
}, 120_000);

test('still ungrounded after the correction: the run fails with the reason', async () => {
  const err = await run('ground-never', [search, { content: UNGROUNDED }, { content: 'Refunds come with a voucher [policy/refunds].' }]).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause as Error;
  expect(cause.message).toMatch(/final answer rejected after a correction turn: the answer is not supported by the chunks it cites \(policy\/refunds\): 1 of its 3 content words occur in them, 50% are needed \(unsupported: come, voucher\); grounding is required/);
}, 120_000);

test('nothing retrieved: corrected, then failed naming search_knowledge', async () => {
  const err = await run('ground-unsearched', [{ content: GROUNDED }, { content: GROUNDED }]).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect(((err as WorkflowFailedError).cause as Error).message).toMatch(/grounding is required but no knowledge was retrieved in this run: search the agent's knowledge sources \(policy\) with search_knowledge/);
}, 120_000);

test('a required source counts as retrieved: a grounded answer without a search passes', async () => {
  const { bundle: compiled } = compileAgent({ agent_id: 'ground-required', model: scripted({ turns: [{ content: GROUNDED }] }), others: [policy({ required: true })], front: GROUNDED_RETRIEVAL });
  const bundle = await storeTestBundle(compiled);
  const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: `ground-required-${randomBytes(4).toString('hex')}`, args: [{ bundle, agent_id: 'ground-required', input: 'How do refunds work?' }] });
  const res = (await h.result()) as AgentRunResult;
  expect(res.output).toBe(GROUNDED);
  expect(res.warnings.join('\n')).not.toMatch(/grounding/);
}, 120_000);
