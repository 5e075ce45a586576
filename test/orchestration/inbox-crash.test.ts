/**
 * A worker PROCESS killed (SIGKILL) while two parallel branches each wait for an approval
 * (issue 9): a new worker process rebuilds the tree from history, the root still lists both
 * decisions, both are approved from the root (the `decide` update, in reverse order), and each
 * branch's side-effecting tool takes effect exactly once (test/helpers/worker-process.ts ledger).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import type { CompiledAgent, CompiledTool } from '../../src/compiled/types';
import type { AgentRunResult, PendingDecision, RunAgentInput } from '../../src/shared/contract';
import { SEARCH_ATTRIBUTES } from '../../src/shared/contract';
import { decideUpdate, statusQuery } from '../../src/shared/definitions';
import { patternOf, workflowTypeFor } from '../../src/shared/dispatch';
import { connectTestTemporal, TestTemporal } from '../helpers/temporal';
import { killAllWorkers, liveWorkers, readEffects, readMarkers, spawnWorker, survivingPids, until } from '../helpers/spawn-worker';
import { agent, bundle, locals, store, testStore } from './builders';

jest.setTimeout(300_000);

let T: TestTemporal;
beforeAll(async () => {
  testStore();
  T = await connectTestTemporal('inbox-crash');
});
afterAll(async () => {
  await killAllWorkers();
  expect(liveWorkers()).toBe(0);
  expect(survivingPids()).toEqual([]);
  await T?.close();
});

const LEDGER: CompiledTool = {
  tool_id: 'ledger_append', version: '1.0.0', status: 'active', description: 'append an amount to an account (side effect)', kind: 'builtin',
  input_schema: { type: 'object', properties: { account: { type: 'string' }, amount: { type: 'number' } }, required: ['account', 'amount'], additionalProperties: false },
  approval_required: true, sensitive_fields: [], side_effects: true, builtin: { name: 'ledger_append' },
};
function booker(id: string): CompiledAgent {
  return {
    ...agent({ id, model: { turns: [{ tool_calls: [{ id: 'book', name: 'ledger_append', arguments: { account: id, amount: 5 } }] }, { content: '{{last_tool_result}}' }] } }),
    tools: { tool_choice: 'auto', refs: [LEDGER] },
  };
}

test('SIGKILL with two branch approvals pending: a new worker lists both at the root, both approved from the root, each tool runs once', async () => {
  const dir = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'ledger-inbox-'));
  const taskQueue = `inbox-crash-${randomUUID()}`;
  const b = bundle('two-branches', [
    agent({ id: 'two-branches', policy: { id: 'agf.parallel', config: { agents: [{ agent: 'east' }, { agent: 'west' }], output_from: 'merge' } }, local_agents: locals('east', 'west') }),
    booker('east'),
    booker('west'),
  ]);
  const root = b.agents[b.root];
  const args: RunAgentInput = { bundle: await store(b), agent_id: b.root, input: 'book both' };
  const w1 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w1' });
  const wf = await T.client.workflow.start(workflowTypeFor(root)!, {
    taskQueue,
    workflowId: `two-branches-${randomUUID().slice(0, 8)}`,
    args: [args],
    searchAttributes: { [SEARCH_ATTRIBUTES.agentId]: [b.root], [SEARCH_ATTRIBUTES.pattern]: [patternOf(root)], [SEARCH_ATTRIBUTES.status]: ['running'] },
  });
  const pending = async (): Promise<PendingDecision[] | undefined> => {
    const ds = (await wf.query(statusQuery)).pending_decisions ?? [];
    return ds.length === 2 ? ds : undefined;
  };
  const before = await until(pending, `both approvals at the root:\n${w1.output()}`);
  expect(before.map((d) => d.path.join('/')).sort()).toEqual(['agent-1-east', 'agent-2-west']);
  expect(readEffects(dir)).toEqual([]);

  await w1.kill();
  const w2 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w2' });
  // Rebuilt from history by w2: the root (and each branch) still holds both decisions.
  const after = await until(pending, `both approvals at the root after the restart:\n${w2.output()}`);
  expect(after.map((d) => [d.path.join('/'), d.call_id]).sort()).toEqual([['agent-1-east', 'book'], ['agent-2-west', 'book']]);

  expect(await wf.executeUpdate(decideUpdate, { args: [{ ref: 'agent-2-west:book', decision: 'approve', by: 'crash-test' }] })).toBe(`approved book in ${wf.workflowId}/agent-2-west`);
  expect(await wf.executeUpdate(decideUpdate, { args: [{ ref: 'book', decision: 'approve', by: 'crash-test' }] })).toBe(`approved book in ${wf.workflowId}/agent-1-east`);
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toEqual({ east: 'appended 5 to east; balance 5', west: 'appended 5 to west; balance 5' });

  const effects = readEffects(dir);
  expect(effects.map((e) => [e.key, e.worker]).sort()).toEqual([[`${wf.workflowId}/agent-1-east/book`, 'w2'], [`${wf.workflowId}/agent-2-west/book`, 'w2']]);
  expect(readMarkers(dir).filter((m) => m.kind === 'tool-started').map((m) => `${m.worker}:${m.attempt}`)).toEqual(['w2:1', 'w2:1']);
});
