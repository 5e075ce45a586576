/**
 * The lifecycle of members at run time (issue 11 point 3): a run that reaches a disabled member
 * (here under a draft root started with allow_draft, which the compiler lets reference it) fails
 * naming the member, and the member never starts; a deprecated member runs and its warning reaches
 * the root's result. Real dev server; members are scripted react agents.
 */
import type { CompiledAgent } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { agent, answers, bundle, locals } from '../orchestration/builders';
import { childIds, failureOf, Harness, startHarness } from '../orchestration/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('lifecycle-members');
});
afterAll(async () => {
  await h?.close();
});

const withStatus = (a: CompiledAgent, status: CompiledAgent['status']): CompiledAgent => ({ ...a, status });
const pipeline = (id: string, steps: string[]) =>
  withStatus(agent({ id, policy: { id: 'agf.sequential', config: { steps: steps.map((s) => ({ agent: s })), output_from: steps[steps.length - 1] } }, local_agents: locals(...steps) }), 'draft');

test('a disabled member is refused before it runs, naming it; the earlier member ran', async () => {
  const b = bundle('lm-disabled', [pipeline('lm-disabled', ['drafter', 'old-payer']), agent({ id: 'drafter', model: answers('draft') }), withStatus(agent({ id: 'old-payer' }), 'disabled')]);
  const wf = await h.start(b, 'go', { options: { allow_draft: true } });
  expect(await failureOf(wf)).toMatch(/step 2 \(old-payer\) failed: .*member old-payer v1\.0\.0 has status: disabled and cannot be run/);
  const children = await childIds(h, wf.workflowId);
  expect(children.some((id) => id.endsWith('step-1-drafter'))).toBe(true);
  expect(children.some((id) => id.includes('old-payer'))).toBe(false);
}, 120_000);

test('a deprecated member runs; its warning reaches the root result under its role', async () => {
  const b = bundle('lm-deprecated', [pipeline('lm-deprecated', ['legacy']), withStatus(agent({ id: 'legacy', model: answers('still here') }), 'deprecated')]);
  const res = (await (await h.start(b, 'go', { options: { allow_draft: true } })).result()) as AgentRunResult;
  expect(res.output).toBe('still here');
  expect(res.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^step-1-legacy: legacy v1\.0\.0 is deprecated/)]));
}, 120_000);
