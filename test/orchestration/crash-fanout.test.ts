/**
 * A worker PROCESS killed with SIGKILL in the middle of an agf.batch fan-out (every member blocked
 * inside its side-effecting tool call, some effects already applied), then a new worker process:
 * the orchestration completes with every member's result, and each member's call took effect
 * exactly once (ledger keyed by `<member workflowId>/<callId>`; see test/helpers/worker-process.ts).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import type { CompiledAgent, CompiledTool } from '../../src/compiler/types';
import type { AgentRunResult, RunAgentInput } from '../../src/shared/contract';
import { SEARCH_ATTRIBUTES } from '../../src/shared/contract';
import { patternOf, workflowTypeFor } from '../../src/shared/dispatch';
import { connectTestTemporal, TestTemporal } from '../helpers/temporal';
import { killAllWorkers, liveWorkers, readEffects, readMarkers, spawnWorker, until } from '../helpers/spawn-worker';
import { agent, bundle, locals, store, testStore } from './builders';

jest.setTimeout(100000);

let T: TestTemporal;
beforeAll(async () => {
  testStore();
  T = await connectTestTemporal('crash-fanout');
});
afterAll(async () => {
  await killAllWorkers();
  expect(liveWorkers()).toBe(0);
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
      policy: { id: 'agf.batch', config: { agent: 'booker', input_mapping: { item: 'parent.input.items.[]' }, max_concurrency: N } },
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
  // Every member is inside its tool call on w1, its effect applied, none finished.
  const keys = await until(() => {
    const k = [...new Set(readMarkers(dir).filter((m) => m.kind === 'tool-blocking').map((m) => m.key))];
    return k.length === N ? k.sort() : undefined;
  }, `all ${N} members to block in w1:\n${w1.output()}`);
  expect(keys.every((k) => k.startsWith(`${wf.workflowId}/`))).toBe(true);
  expect(readEffects(dir)).toHaveLength(N);

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
  expect(effects.map((e) => e.key).sort()).toEqual(keys);
  expect(effects.every((e) => e.worker === 'w1')).toBe(true);
  const markers = readMarkers(dir);
  // Every killed call really ran again on w2 (same key, attempt 2) and was deduplicated there.
  expect(markers.filter((m) => m.kind === 'effect-deduplicated' && m.worker === 'w2').map((m) => m.key).sort()).toEqual(keys);
  expect(markers.filter((m) => m.kind === 'tool-finished').map((m) => `${m.worker}:${m.attempt}`)).toEqual(Array(N).fill('w2:2'));
  console.log(`fan-out crash: killed after ${tKill - t0} ms, finished ${tDone - tKill} ms after the kill`);
});
