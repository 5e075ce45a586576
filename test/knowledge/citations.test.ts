/**
 * citations_required on the output (issue 11.2) on the shared dev server: an answer citing no
 * knowledge source gets one correction turn; cited then, the run succeeds with the warning; still
 * uncited, the run fails with a reason naming the sources and the citation form.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { randomBytes } from 'crypto';
import type { ScriptedReply } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import type { TestTemporal } from '../helpers/temporal';
import { Harness, startHarness } from '../runtime/harness';
import { agfReactWorkflow } from '../../src/workflows/react';
import { citationProblem } from '../../src/runtime/knowledge-search';
import { storeTestBundle, testStore } from '../runtime/builders';
import { compileAgent, kb, scripted } from '../helpers/definitions';

let t: TestTemporal;
let h: Harness;
beforeAll(async () => {
  h = await startHarness('knowledge-citations');
  t = h.t;
});
afterAll(async () => {
  await h?.close();
});

const POLICY = kb('policy', { type: 'inline', documents: [{ id: 'refunds', title: 'Refunds', text: 'Refunds within 30 days.' }] }, { citations_required: true });

async function run(id: string, turns: ScriptedReply[]) {
  const { bundle: compiled } = compileAgent({ agent_id: id, model: scripted({ turns }), knowledge: [POLICY] });
  const bundle = await storeTestBundle(compiled);
  const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: `${id}-${randomBytes(4).toString('hex')}`, args: [{ bundle, agent_id: id, input: 'refund?' }] });
  return h.result() as Promise<AgentRunResult>;
}

test('an uncited answer is corrected once; the cited correction is the output', async () => {
  const res = await run('cite-fixed', [{ content: 'Refunds within 30 days.' }, { content: 'Refunds within 30 days [policy/refunds].' }]);
  expect(res.output).toBe('Refunds within 30 days [policy/refunds].');
  expect(res.warnings.join('\n')).toMatch(/the answer cites none of the agent's knowledge sources \(policy\).*asked the model for a correction/);
}, 120_000);

test('still uncited after the correction: the run fails with the reason', async () => {
  const err = await run('cite-never', [{ content: 'Refunds within 30 days.' }, { content: 'Trust me, 30 days.' }]).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause as Error;
  expect(cause.message).toMatch(/final answer rejected after a correction turn: the answer cites none of the agent's knowledge sources \(policy\), and citations are required: cite each source the answer rests on by its id in square brackets, e\.g\. \[policy\/refunds\]/);
}, 120_000);

test('what counts as a citation: [kb_id/…] or a document id quoted or in brackets (e.g. in suggested_articles), not a plain word', () => {
  const policy = compileAgent({ agent_id: 'cited', model: scripted({}), knowledge: [POLICY] }).agent.knowledge.refs;
  expect(policy.map((k) => [k.kb_id, k.citations_required])).toEqual([['policy', true]]);
  const chunks = [{ kb_id: 'policy', id: 'refunds', text: '' }, { kb_id: 'policy', id: 'long-doc#2', text: '' }];
  expect(citationProblem('see [policy/anything]', policy, chunks)).toBeUndefined();
  expect(citationProblem('{"answer":"x","suggested_articles":["refunds"]}', policy, chunks)).toBeUndefined();
  expect(citationProblem('see [long-doc]', policy, chunks)).toBeUndefined();
  expect(citationProblem('refunds take 30 days', policy, chunks)).toMatch(/cites none/);
  expect(citationProblem('see [other/refunds-x]', policy, chunks)).toMatch(/cites none/);
});
