/**
 * A worker PROCESS killed with SIGKILL in the middle of an agf.batch fan-out (half the members
 * blocked inside their side-effecting tool call with the effect applied, half not started yet),
 * then a new worker process: the orchestration completes with every member's result, and each
 * member's call took effect exactly once (ledger keyed by `<member workflowId>/<callId>`; see
 * test/helpers/worker-process.ts).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import type { CompiledAgent, CompiledTool } from '../../src/compiled/types';
import type { AgentRunResult, RunAgentInput } from '../../src/shared/contract';
import { SEARCH_ATTRIBUTES } from '../../src/shared/contract';
import { patternOf, workflowTypeFor } from '../../src/shared/dispatch';
import { connectTestTemporal, TestTemporal } from '../helpers/temporal';
import { killAllWorkers, liveWorkers, survivingPids, readEffects, readMarkers, spawnWorker, until } from '../helpers/spawn-worker';
import { agent, bundle, locals, store, testStore } from './builders';
import { childWorkflowIds, waitForSettledHistory } from '../helpers/history';

jest.setTimeout(300_000);

let T: TestTemporal;
beforeAll(async () => {
  testStore();
  T = await connectTestTemporal('crash-fanout');
});
afterAll(async () => {
  await killAllWorkers();
  expect(liveWorkers()).toBe(0);
  expect(survivingPids()).toEqual([]);
  await T?.close();
});

const LEDGER_TOOL: CompiledTool = {
  tool_id: 'ledger_append',
  version: '1.0.0',
  status: 'active',
  description: 'append an amount to an account (side effect)',
  kind: 'builtin',
  input_schema: {
    type: 'object',
    properties: { account: { type: 'string' }, amount: { type: 'number' } },
    required: ['account', 'amount'],
    additionalProperties: false,
  },
  approval_required: false,
  sensitive_fields: [],
  side_effects: true,
  builtin: { name: 'ledger_append' },
};

test('SIGKILL mid batch fan-out: a new worker process completes every member, each effect exactly once', async () => {
  const t0 = Date.now();
  const N = 6;
  const C = 3; // max_concurrency: half the members are in flight at the kill, half not started yet
  const dir = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'ledger-fanout-'));
  const taskQueue = `crash-fanout-${randomUUID()}`;
  const member: CompiledAgent = {
    ...agent({
      id: 'booker',
      model: {
        turns: [
          { tool_calls: [{ id: 'book', name: 'ledger_append', arguments: { account: 'item-{{input.item}}', amount: 1 } }] },
          { content: '{{last_tool_result}}' },
        ],
      },
    }),
    tools: { tool_choice: 'auto', refs: [LEDGER_TOOL] },
  };
  const b = bundle('fanout', [
    agent({
      id: 'fanout',
      policy: { id: 'agf.batch', config: { agent: 'booker', input_mapping: { item: 'parent.input.items.[]' }, max_concurrency: C } },
      local_agents: locals('booker'),
    }),
    member,
  ]);
  const root = b.agents[b.root];
  const type = workflowTypeFor(root);
  if (!type) throw new Error('no workflow type for agf.batch');
  const items = Array.from({ length: N }, (_, i) => i + 1);
  const args: RunAgentInput = { bundle: await store(b), agent_id: 'fanout', input: { items } };

  const w1 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w1', blockSeconds: 300 });
  const wf = await T.client.workflow.start(type, {
    taskQueue,
    workflowId: `fanout-${randomUUID().slice(0, 8)}`,
    args: [args],
    searchAttributes: { [SEARCH_ATTRIBUTES.agentId]: ['fanout'], [SEARCH_ATTRIBUTES.pattern]: [patternOf(root)], [SEARCH_ATTRIBUTES.status]: ['running'] },
  });
  // C members are inside their tool call on w1 with the effect applied; the other N - C wait for a slot.
  const blocked = await until(() => {
    const k = [...new Set(readMarkers(dir).filter((m) => m.kind === 'tool-blocking').map((m) => m.key))];
    return k.length === C ? k.sort() : undefined;
  }, `${C} members to block in w1:\n${w1.output()}`);
  expect(blocked.every((k) => k.startsWith(`${wf.workflowId}/`))).toBe(true);
  // The root has answered its C members' starts and started no other member (max_concurrency):
  // no other member exists, so no other effect can have been applied.
  const held = await waitForSettledHistory(wf, (ev) => ev.filter((e) => e.childWorkflowExecutionStartedEventAttributes).length === C, `the root to hold at ${C} members`);
  expect(childWorkflowIds(held)).toHaveLength(C);
  expect(readEffects(dir).map((e) => e.key).sort()).toEqual(blocked);

  await w1.kill();
  const tKill = Date.now();
  const w2 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w2' });
  let timer: NodeJS.Timeout | undefined;
  const res = (await Promise.race([
    wf.result(),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`fan-out did not finish 60 s after the kill; w2 output:\n${w2.output()}`)), 60000);
    }),
  ]).finally(() => clearTimeout(timer))) as AgentRunResult;
  const tDone = Date.now();

  expect(res.output).toEqual(items.map((i) => `appended 1 to item-${i}; balance 1`));
  const effects = readEffects(dir);
  const keys = [...new Set(effects.map((e) => e.key))];
  expect(keys).toHaveLength(N);
  expect(effects).toHaveLength(N); // one effect per member call key
  expect(effects.filter((e) => e.worker === 'w1').map((e) => e.key).sort()).toEqual(blocked);
  const markers = readMarkers(dir);
  // Every killed call really ran again on w2 (same key, attempt 2) and was deduplicated there;
  // the members that had not started ran once, on w2.
  expect(markers.filter((m) => m.kind === 'effect-deduplicated').map((m) => `${m.worker}:${m.attempt}:${m.key}`).sort()).toEqual(
    blocked.map((k) => `w2:2:${k}`),
  );
  expect(markers.filter((m) => m.kind === 'tool-finished').map((m) => `${m.worker}:${m.attempt}`).sort()).toEqual(
    [...Array(N - C).fill('w2:1'), ...Array(C).fill('w2:2')],
  );
  console.log(`fan-out crash: killed after ${tKill - t0} ms, finished ${tDone - tKill} ms after the kill`);
});
