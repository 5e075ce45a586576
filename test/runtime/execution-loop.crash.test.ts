/**
 * The dependencies execution loop survives a worker crash: the worker is SIGKILLed while a call's
 * dependant waits for it; a new worker process finishes the run from history, the dependant starts
 * only after its dependency completed, and every side effect happens once (the ledger tool applies
 * an effect at most once per `<workflowId>/<callId>`; see test/runtime/crash.test.ts).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import type { AgentRunResult } from '../../src/shared/contract';
import { connectTestTemporal, TestTemporal } from '../helpers/temporal';
import { killAllWorkers, liveWorkers, readEffects, readMarkers, spawnWorker, until } from '../helpers/spawn-worker';
import { historyEvents } from '../helpers/history';
import { storeTestBundle, testStore } from './builders';
import { builtin, compileAgent, scripted, type Definition, type FrontMatter } from '../helpers/definitions';

jest.setTimeout(300000);

// A worker process bundles the workflow code at start: on a loaded machine that takes longer than the helper's default 30 s.
const READY_MS = 120000;

let T: TestTemporal;
beforeAll(async () => {
  testStore();
  T = await connectTestTemporal('exec-loop-crash');
});
afterAll(async () => {
  await killAllWorkers();
  expect(liveWorkers()).toBe(0);
  await T?.close();
});

/** The worker process's side-effecting ledger tool, as its definition file declares it. */
function ledgerTool(): Definition {
  return builtin('ledger_append', {
    description: 'append an amount to an account (side effect)',
    input_schema: { type: 'object', properties: { account: { type: 'string' }, amount: { type: 'number' } }, required: ['account', 'amount'], additionalProperties: false },
    side_effects: true,
  });
}

test('SIGKILL while a dependant waits: a new worker finishes the plan in order, each effect once, State intact', async () => {
  const dir = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'ledger-'));
  const taskQueue = `exec-loop-crash-${randomUUID()}`;
  const { bundle: compiled } = compileAgent({
    agent_id: 'loop-crash',
    model: scripted({
      turns: [
        {
          tool_calls: [
            { id: 'c1', name: 'ledger_append', arguments: { account: 'acct-A', amount: 40, _outputPath: '$.state.first' } },
            { id: 'c2', name: 'ledger_append', arguments: { account: 'acct-A', amount: 2, _dependsOn: ['c1'], _outputPath: '$.state.second' } },
          ],
        },
        { content: 'done: {{last_tool_result}}' },
      ],
    }),
    tools: [ledgerTool()],
    front: { runtime: { execution_loop: 'dependencies' } },
  });
  const bundle = await storeTestBundle(compiled);
  // c1 applies its effect on w1 and then hangs; c2 waits for it and has not started.
  const w1 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w1', blockSeconds: 300, readyTimeoutMs: READY_MS });
  const h = await T.client.workflow.start('agfReactWorkflow', { taskQueue, workflowId: `loop-crash-${randomUUID().slice(0, 8)}`, args: [{ bundle, agent_id: 'loop-crash', input: 'book it' }] });
  const k1 = `${h.workflowId}/c1`;
  const k2 = `${h.workflowId}/c2`;
  await until(() => (readMarkers(dir).some((m) => m.kind === 'tool-blocking' && m.key === k1) ? true : undefined), `c1 blocking in w1:\n${w1.output()}`);
  expect(readMarkers(dir).some((m) => m.key === k2)).toBe(false);
  await w1.kill();
  const w2 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w2', readyTimeoutMs: READY_MS });
  const res = (await h.result()) as AgentRunResult;
  expect(res.output).toBe('done: appended 2 to acct-A; balance 42');
  expect(res.state).toEqual({ first: 'appended 40 to acct-A; balance 40', second: 'appended 2 to acct-A; balance 42' });
  const effects = readEffects(dir);
  expect(effects.map((e) => [e.key, e.worker])).toEqual([
    [k1, 'w1'],
    [k2, 'w2'],
  ]);
  expect(readMarkers(dir).filter((m) => m.kind === 'effect-deduplicated').map((m) => m.key)).toEqual([k1]);
  // c2 was scheduled once, after c1's (retried) completion
  const ev = await historyEvents(h);
  const scheduled = ev.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool').map((e) => Number(e.eventId));
  const completed = ev.filter((e) => e.activityTaskCompletedEventAttributes).map((e) => Number(e.activityTaskCompletedEventAttributes!.scheduledEventId));
  expect(scheduled).toHaveLength(2);
  const c1Done = ev.find((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === scheduled[0])!;
  expect(scheduled[1]).toBeGreaterThan(Number(c1Done.eventId));
  expect(completed).toEqual(expect.arrayContaining(scheduled));
  await w2.kill();
});
