/**
 * A strategies conversation survives a worker process killed with SIGKILL mid-turn: the worker runs
 * in its own process (test/helpers/worker-process.ts) and dies while member B's side-effecting tool
 * call (`ledger_append`, at most once per idempotency key) is in flight at turn 2; a new worker
 * process finishes the run from history and the stored transcript. Every turn happens once (one
 * member run per turn, one ledger effect per booking turn) and a later turn still reads the
 * bookings from the transcript.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import type { CompiledAgent, StrategiesPattern } from '../../src/compiled/types';
import type { AgentRunResult, RunAgentInput } from '../../src/shared/contract';
import { connectTestTemporal, TestTemporal } from '../helpers/temporal';
import { killAllWorkers, liveWorkers, readEffects, readMarkers, spawnWorker, survivingPids, until } from '../helpers/spawn-worker';
import { childWorkflowIds, historyEvents } from '../helpers/history';
import { agent, answers, bundle, byInput, store, testStore } from '../orchestration/builders';
import { builtinTool } from '../runtime/builders';

jest.setTimeout(240000);

let T: TestTemporal;
beforeAll(async () => {
  testStore();
  T = await connectTestTemporal('strat-crash');
});
afterAll(async () => {
  await killAllWorkers();
  expect(liveWorkers()).toBe(0);
  expect(survivingPids()).toEqual([]);
  await T?.close();
});

/** B books 1 on acct-B with ledger_append, then says what the ledger answered. */
function booker(id: string): CompiledAgent {
  const m = agent({ id, model: { turns: [{ tool_calls: [{ id: 'c1', name: 'ledger_append', arguments: { account: 'acct-B', amount: 1 } }] }, { content: 'B booked: {{last_tool_result}}' }] } });
  m.tools = {
    ...m.tools,
    refs: [builtinTool('ledger_append', {
      description: 'append an amount to an account (side effect)',
      input_schema: { type: 'object', properties: { account: { type: 'string' }, amount: { type: 'number' } }, required: ['account', 'amount'], additionalProperties: false },
      side_effects: true,
    })],
  };
  // The killed turn waits out the heartbeat timeout and the dead worker's sticky queue.
  m.runtime = { ...m.runtime, timeout_seconds: 600 };
  return m;
}

test('SIGKILL while a member turn runs its tool: a new worker process finishes the conversation, every turn once', async () => {
  const dir = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'strat-ledger-'));
  const taskQueue = `strat-crash-${randomUUID()}`;
  const pattern: StrategiesPattern = {
    type: 'strategies',
    agents: [{ name: 'A', agent_id: 'cr-a' }, { name: 'B', agent_id: 'cr-b' }, { name: 'C', agent_id: 'cr-c' }],
    config: { Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: 6 } } as StrategiesPattern['config'],
  };
  const b = bundle('cr-root', [
    agent({ id: 'cr-root', model: answers('orchestrator'), pattern }),
    agent({ id: 'cr-a', model: answers('a') }),
    booker('cr-b'),
    agent({ id: 'cr-c', model: byInput([{ contains: '[B]\nB booked: appended 1 to acct-B; balance 2', reply: { content: 'c saw the second booking' } }], { content: 'c waits' }) }),
  ]);
  const input: RunAgentInput = { bundle: await store(b), agent_id: 'cr-root', input: 'book twice' };
  // w1 blocks inside every ledger call (after applying the effect): it dies in turn 2's.
  const w1 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w1', blockSeconds: 300 });
  const wf = await T.client.workflow.start('strategiesWorkflow', { taskQueue, workflowId: `cr-root-${randomUUID().slice(0, 8)}`, args: [input] });
  const k2 = `${wf.workflowId}/turn-2-B/c1`;
  const k5 = `${wf.workflowId}/turn-5-B/c1`;
  await until(() => (readMarkers(dir).some((m) => m.kind === 'tool-blocking' && m.key === k2) ? true : undefined), `turn 2's ledger call blocking in w1:\n${w1.output()}`, 60000);
  await w1.kill();
  expect(w1.alive()).toBe(false);

  const w2 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w2' });
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toBe('c saw the second booking');
  // Each booking took effect once; turn 2's call was retried on w2 and deduplicated.
  const effects = readEffects(dir);
  expect(effects.map((e) => [e.key, e.worker])).toEqual([[k2, 'w1'], [k5, 'w2']]);
  expect(readMarkers(dir).filter((m) => m.kind === 'effect-deduplicated').map((m) => m.key)).toEqual([k2]);
  // Every turn is one member run, in order.
  const ev = await historyEvents(wf);
  expect(childWorkflowIds(ev).map((id) => id.slice(wf.workflowId.length + 1))).toEqual(['turn-1-A', 'turn-2-B', 'turn-3-C', 'turn-4-A', 'turn-5-B', 'turn-6-C']);
  expect(ev.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'strategyMemberInputs')).toHaveLength(6);
  expect(w2.alive()).toBe(true);
});
