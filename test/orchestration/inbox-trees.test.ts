/**
 * Pending decisions through the patterns that restructure a tree (issue 9), on a real dev server:
 * an agf.batch split into shard child workflows, where one item fails while the others wait for
 * approval (the shards keep listing the waiting items; the failed one is gone), and an agf.loop
 * that continues-as-new between iterations (the new run lists the next iteration's decision). Each
 * decision is answered with the `decide` update on the root.
 */
import type { CompiledAgent, CompiledTool, ScriptedModelConfig } from '../../src/compiled/types';
import type { AgentRunResult, PendingDecision, RunStatus } from '../../src/shared/contract';
import { decideUpdate, statusQuery } from '../../src/shared/definitions';
import type { WorkflowHandle } from '@temporalio/client';
import { agent, bundle, locals } from './builders';
import { Harness, startHarness, waitFor } from './harness';

let h: Harness;
beforeAll(async () => { h = await startHarness('inbox-trees'); });
afterAll(async () => { await h?.close(); });

const CHARGE: CompiledTool = {
  tool_id: 'charge', version: '1.0.0', status: 'active', description: 'charge', kind: 'builtin',
  input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  approval_required: true, sensitive_fields: [], side_effects: true, builtin: { name: 'echo' },
};
/** Calls `charge` once (call id pay-1) and answers with its result; an input containing "boom" fails the model. */
function payer(id: string): CompiledAgent {
  const model: ScriptedModelConfig = {
    rules: [{ when: { input_contains: 'boom' }, reply: { error: { status: 400, message: 'bad item' } } }],
    turns: [{ tool_calls: [{ id: 'pay-1', name: 'charge', arguments: { text: 'paid {{input}}' } }] }, { content: 'done: {{last_tool_result}}' }],
  };
  return { ...agent({ id, model }), tools: { tool_choice: 'auto', refs: [CHARGE] } };
}

async function pendingWhen(wf: WorkflowHandle, what: string, pred: (ds: PendingDecision[]) => boolean): Promise<PendingDecision[]> {
  return waitFor(async () => {
    const ds = (await wf.query(statusQuery)).pending_decisions ?? [];
    return pred(ds) ? ds : undefined;
  }, what, 60_000);
}

test('agf.batch in shards: one item fails, the three waiting items stay listed at the root with their shard paths, each answered from the root', async () => {
  const b = bundle('shards', [
    agent({ id: 'shards', policy: { id: 'agf.batch', config: { agent: 'payer', input_mapping: { item: 'parent.input.items.[]' }, max_concurrency: 50 } }, local_agents: locals('payer') }),
    payer('payer'),
  ]);
  // max_concurrency 50: two shards run at once (a shard per 25 of concurrency).
  const wf = await h.start(b, { items: ['boom', 'b', 'c', 'd'] }, { options: { scale: { batch_shard_size: 2 } } });
  // Item 0 fails (shard 0); items 1-3 wait for approval in shards 0 and 1.
  const ds = await pendingWhen(wf, 'three waiting items at the root', (x) => x.length === 3);
  expect(ds.map((d) => d.path.join('/')).sort()).toEqual(['shard-0/item-1', 'shard-1/item-2', 'shard-1/item-3']);
  expect(ds.every((d) => d.call_id === 'pay-1' && d.agent_id === 'payer')).toBe(true);
  const shard0 = h.t.client.workflow.getHandle(`${wf.workflowId}/shard-0`);
  await waitFor(async () => ((await shard0.query(statusQuery)).progress as { failed?: number } | undefined)?.failed === 1 || undefined, 'item 0 to fail in shard 0');
  // Still listed after the failure in its shard.
  expect((await shard0.query(statusQuery)).pending_decisions?.map((d) => d.path.join('/'))).toEqual(['item-1']);

  for (const ref of ['shard-1/item-3:pay-1', 'shard-0/item-1:pay-1', 'shard-1/item-2:pay-1']) {
    const said = await wf.executeUpdate(decideUpdate, { args: [{ ref, decision: 'approve' }] });
    expect(said).toContain(`approved pay-1 in ${wf.workflowId}/${ref.split(':')[0]}`);
    expect(((await wf.query(statusQuery)) as RunStatus).pending_decisions?.map((d) => d.path.join('/'))).not.toContain(ref.split(':')[0]);
  }
  const res = (await wf.result()) as AgentRunResult & { item_errors?: { index: number; error: string }[] };
  expect(res.output).toEqual([null, 'done: paid {"item":"b"}', 'done: paid {"item":"c"}', 'done: paid {"item":"d"}']);
  expect(res.item_errors).toEqual([{ index: 0, error: expect.stringContaining('bad item') }]);
  expect(((await wf.query(statusQuery)) as RunStatus).pending_decisions).toEqual([]);
});

test('agf.loop continuing-as-new between iterations: the new run lists the next iteration\'s approval; both answered from the root', async () => {
  const b = bundle('looped', [
    agent({ id: 'looped', policy: { id: 'agf.loop', config: { steps: [{ agent: 'payer' }], max_iterations: 2, output_from: 'payer' } }, local_agents: locals('payer') }),
    payer('payer'),
  ]);
  const wf = await h.start(b, 'x', { options: { scale: { loop_history_events: 20 } } });
  const [first] = await pendingWhen(wf, 'iteration 1 waiting', (x) => x.length === 1);
  expect(first.path).toEqual(['iter-1-step-1-payer']);
  await wf.executeUpdate(decideUpdate, { args: [{ ref: 'pay-1', decision: 'approve' }] });
  const [second] = await pendingWhen(wf, 'iteration 2 waiting', (x) => x.length === 1 && x[0].path[0] === 'iter-2-step-1-payer');
  expect(second.workflow_id).toBe(`${wf.workflowId}/iter-2-step-1-payer`);
  const current = await h.t.client.workflow.getHandle(wf.workflowId).describe();
  expect(current.runId).not.toBe(wf.firstExecutionRunId);
  await wf.executeUpdate(decideUpdate, { args: [{ ref: 'iter-2-step-1-payer:pay-1', decision: 'reject', reason: 'enough' }] });
  const res = (await wf.result()) as AgentRunResult;
  expect(String(res.output)).toContain('enough');
  expect(((await wf.query(statusQuery)) as RunStatus).pending_decisions).toEqual([]);
});
