/**
 * Crash tests: the worker runs in its OWN process (test/helpers/worker-process.ts) and is killed
 * with SIGKILL mid-run; a new worker process finishes the run. The side-effecting tool
 * (`ledger_append`) applies its effect at most once per idempotency key (`<workflowId>/<callId>`),
 * so "each call took effect exactly once" is checked on the ledger's effects log.
 *
 * What bounds the time: runTool's heartbeatTimeout (15 s, src/workflows/react/context.ts) before a call
 * on the dead worker is retried, and the dead worker's sticky queue (10 s schedule-to-start)
 * before a workflow task moves to the normal queue. The three tests are independent (each its own
 * task queue, ledger and worker processes), so they run at the same time (test.concurrent) and
 * those waits overlap instead of adding up; each test kills its own workers when it ends.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { ApproveArgs, AgentRunResult, RunAgentInput, RunStatus } from '../../src/shared/contract';
import { connectTestTemporal, TestTemporal } from '../helpers/temporal';
import { killAllWorkers, liveWorkers, survivingPids, readEffects, readMarkers, spawnWorker, until, WorkerProcess } from '../helpers/spawn-worker';
import { storeTestBundle, testStore } from './builders';
import { builtin, compileAgent, scripted, type Definition, type FrontMatter } from '../helpers/definitions';
import { waitForStatus } from './harness';
import { activityAttempts, historyEvents } from '../helpers/history';

/** TimeoutType.TIMEOUT_TYPE_HEARTBEAT */
const HEARTBEAT = 4;

jest.setTimeout(300_000);

let T: TestTemporal;
beforeAll(async () => {
  testStore();
  T = await connectTestTemporal('crash');
});
afterAll(async () => {
  await killAllWorkers();
  expect(liveWorkers()).toBe(0);
  expect(survivingPids()).toEqual([]);
  await T?.close();
});

function ledgerDir(): string {
  return fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'ledger-'));
}

/** The worker process's side-effecting ledger tool, as its definition file declares it. */
function ledgerTool(over: FrontMatter = {}): Definition {
  return builtin('ledger_append', {
    description: 'append an amount to an account (side effect)',
    input_schema: {
      type: 'object',
      properties: { account: { type: 'string' }, amount: { type: 'number' } },
      required: ['account', 'amount'],
      additionalProperties: false,
    },
    side_effects: true,
    ...over,
  });
}

/**
 * The test's own worker processes (the tests run concurrently, so none kills another's): `body` gets
 * a spawn that remembers them, and every one is SIGKILLed when the test ends, passed or failed. They
 * run the sources transpiled once (spawnWorker's `transpiled`), not through ts-node at each start.
 */
async function withWorkers<T>(body: (spawn: typeof spawnWorker) => Promise<T>): Promise<T> {
  const mine: WorkerProcess[] = [];
  try {
    return await body(async (opts) => {
      const w = await spawnWorker({ ...opts, transpiled: true });
      mine.push(w);
      return w;
    });
  } finally {
    await Promise.all(mine.map((w) => w.kill()));
  }
}

async function start(taskQueue: string, input: RunAgentInput): Promise<WorkflowHandle> {
  const workflowId = `${input.agent_id}-${randomUUID().slice(0, 8)}`;
  return T.client.workflow.start('agfReactWorkflow', { taskQueue, workflowId, args: [input] });
}

/** Fail with the workers' output when the run does not finish in time (instead of a bare jest timeout). */
async function resultWithin(h: WorkflowHandle, ms: number, workers: WorkerProcess[]): Promise<AgentRunResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`run ${h.workflowId} did not finish in ${ms} ms; worker output:\n${workers.map((w) => `--- ${w.name}\n${w.output()}`).join('\n')}`)),
      ms,
    );
  });
  try {
    return (await Promise.race([h.result(), timeout])) as AgentRunResult;
  } finally {
    clearTimeout(timer);
  }
}

function countBy<T>(xs: T[], key: (x: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[key(x)] = (out[key(x)] ?? 0) + 1;
  return out;
}

test.concurrent('SIGKILL during tool calls: a new worker process finishes the run, each call takes effect exactly once', () => withWorkers(async (spawnWorker) => {
  const t0 = Date.now();
  const dir = ledgerDir();
  const taskQueue = `crash-tool-${randomUUID()}`;
  const { bundle: compiled } = compileAgent({
    agent_id: 'crash-tool',
    model: scripted({
      turns: [
        {
          tool_calls: [
            { id: 'c1', name: 'ledger_append', arguments: { account: 'acct-A', amount: 40 } },
            { id: 'c2', name: 'ledger_append', arguments: { account: 'acct-B', amount: 5 } },
          ],
        },
        { tool_calls: [{ id: 'c3', name: 'ledger_append', arguments: { account: 'acct-A', amount: 2 } }] },
        { content: 'done: {{last_tool_result}}' },
      ],
    }),
    tools: [ledgerTool()],
  });
  const bundle = await storeTestBundle(compiled);
  // c1 applies its effect and then hangs; c2 hangs before applying it.
  const w1 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w1', blockSeconds: 300, blockBefore: ['c2'] });
  const h = await start(taskQueue, { bundle, agent_id: 'crash-tool', input: 'book it' });
  const k1 = `${h.workflowId}/c1`;
  const k2 = `${h.workflowId}/c2`;
  const k3 = `${h.workflowId}/c3`;
  await until(() => {
    const blocking = new Set(readMarkers(dir).filter((m) => m.kind === 'tool-blocking').map((m) => m.key));
    return blocking.has(k1) && blocking.has(k2) ? true : undefined;
  }, `both calls blocking in ${w1.name}:\n${w1.output()}`);
  expect(readEffects(dir).map((e) => e.key)).toEqual([k1]);

  await w1.kill();
  expect(await w1.exited).toEqual({ code: null, signal: 'SIGKILL' });
  expect(w1.alive()).toBe(false);
  const tKill = Date.now();
  const w2 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w2' });
  // Retried on w2 (why it was retried, and how soon that could be, is checked on the history below).
  await until(() => (readMarkers(dir).some((m) => m.key === k1 && m.worker === 'w2') ? true : undefined), 'the killed call to be retried on w2', 45000);
  const res = await resultWithin(h, 60000, [w1, w2]);
  const tDone = Date.now();
  expect(res.output).toBe('done: appended 2 to acct-A; balance 42');

  const effects = readEffects(dir);
  expect(countBy(effects, (e) => e.key)).toEqual({ [k1]: 1, [k2]: 1, [k3]: 1 });
  expect(Object.fromEntries(effects.map((e) => [e.key, e.worker]))).toEqual({ [k1]: 'w1', [k2]: 'w2', [k3]: 'w2' });
  const markers = readMarkers(dir);
  // The killed calls really ran again on the new worker (a retry with the same key), and c1's retry was deduplicated.
  expect(markers.filter((m) => m.kind === 'tool-started' && m.key === k1).map((m) => [m.worker, m.attempt])).toEqual([['w1', 1], ['w2', 2]]);
  expect(markers.filter((m) => m.kind === 'tool-started' && m.key === k2).map((m) => [m.worker, m.attempt])).toEqual([['w1', 1], ['w2', 2]]);
  expect(markers.filter((m) => m.kind === 'effect-deduplicated').map((m) => m.key)).toEqual([k1]);
  expect(markers.filter((m) => m.kind === 'tool-finished').map((m) => m.worker)).toEqual(['w2', 'w2', 'w2']);
  // Each call is one scheduled activity (retried by the server), not a new call of the workflow's.
  const ev = await historyEvents(h);
  const scheduled = ev.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool');
  expect(scheduled).toHaveLength(3);
  // Retried promptly: runTool's heartbeatTimeout (15 s) detected the dead worker, not its
  // 10-minute start-to-close: the killed calls' second attempts record a heartbeat timeout.
  expect(scheduled.map((e) => Number(e.activityTaskScheduledEventAttributes!.heartbeatTimeout?.seconds))).toEqual([15, 15, 15]);
  expect(activityAttempts(ev, 'runTool')).toEqual([
    { attempt: 2, timeoutType: HEARTBEAT },
    { attempt: 2, timeoutType: HEARTBEAT },
    { attempt: 1 },
  ]);
  console.log(`crash during tool call: killed after ${tKill - t0} ms, finished ${tDone - tKill} ms after the kill`);
}));

test.concurrent('SIGKILL while waiting for approval: a new worker process accepts the approval update, the tool runs once', () => withWorkers(async (spawnWorker) => {
  const t0 = Date.now();
  const dir = ledgerDir();
  const taskQueue = `crash-appr-${randomUUID()}`;
  const { bundle: compiled } = compileAgent({
    agent_id: 'crash-appr',
    model: scripted({
      turns: [
        { tool_calls: [{ id: 'pay-1', name: 'ledger_append', arguments: { account: 'acct-C', amount: 7 } }] },
        { content: 'approved: {{last_tool_result}}' },
      ],
    }),
    tools: [ledgerTool({ approval_required: true })],
  });
  const bundle = await storeTestBundle(compiled);
  const w1 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w1' });
  const h = await start(taskQueue, { bundle, agent_id: 'crash-appr', input: 'pay' });
  const st = await waitForStatus(h, (s) => s.state === 'waiting_for_approval');
  expect(st.pending_approvals.map((p) => p.call_id)).toEqual(['pay-1']);
  expect(readMarkers(dir)).toEqual([]);

  await w1.kill();
  expect(w1.alive()).toBe(false);
  const tKill = Date.now();
  const w2 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w2' });
  // The new worker rebuilds the workflow from history: the pending approval survived the crash.
  const st2 = await h.query<RunStatus>('status');
  expect(st2.state).toBe('waiting_for_approval');
  expect(st2.pending_approvals.map((p) => p.call_id)).toEqual(['pay-1']);
  const msg = await h.executeUpdate<string, [ApproveArgs]>('approveCall', { args: [{ call_id: 'pay-1', by: 'crash-test' }] });
  expect(msg).toBe('approved pay-1');

  const res = await resultWithin(h, 60000, [w1, w2]);
  const tDone = Date.now();
  expect(res.output).toBe('approved: appended 7 to acct-C; balance 7');
  const effects = readEffects(dir);
  expect(effects.map((e) => [e.key, e.worker])).toEqual([[`${h.workflowId}/pay-1`, 'w2']]);
  expect(readMarkers(dir).filter((m) => m.kind === 'tool-started')).toHaveLength(1);
  console.log(`crash while waiting for approval: killed after ${tKill - t0} ms, finished ${tDone - tKill} ms after the kill`);
}));

test.concurrent('approval signalled while NO worker is alive, then the approved call is killed mid-effect: still exactly once', () => withWorkers(async (spawnWorker) => {
  const t0 = Date.now();
  const dir = ledgerDir();
  const taskQueue = `crash-sig-${randomUUID()}`;
  const { bundle: compiled } = compileAgent({
    agent_id: 'crash-sig',
    model: scripted({
      turns: [
        { tool_calls: [{ id: 'pay-2', name: 'ledger_append', arguments: { account: 'acct-D', amount: 11 } }] },
        { content: 'signalled: {{last_tool_result}}' },
      ],
    }),
    tools: [ledgerTool({ approval_required: true })],
  });
  const bundle = await storeTestBundle(compiled);
  const w1 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w1' });
  const h = await start(taskQueue, { bundle, agent_id: 'crash-sig', input: 'pay' });
  await waitForStatus(h, (s) => s.state === 'waiting_for_approval');
  await w1.kill();
  // Signals need no worker: the approval is recorded in history and applied on replay.
  await h.signal<[ApproveArgs]>('approve', { call_id: 'pay-2', by: 'crash-test' });
  const key = `${h.workflowId}/pay-2`;
  const w2 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w2', blockSeconds: 300 });
  await until(() => (readMarkers(dir).some((m) => m.kind === 'tool-blocking' && m.key === key) ? true : undefined), `the approved call to block in w2:\n${w2.output()}`);
  expect(readEffects(dir).map((e) => e.key)).toEqual([key]);
  await w2.kill();
  const tKill = Date.now();
  const w3 = await spawnWorker({ taskQueue, ledgerDir: dir, name: 'w3' });
  await until(() => (readMarkers(dir).some((m) => m.key === key && m.worker === 'w3') ? true : undefined), 'the killed call to be retried on w3', 45000);

  const res = await resultWithin(h, 60000, [w1, w2, w3]);
  const tDone = Date.now();
  expect(res.output).toBe('signalled: appended 11 to acct-D; balance 11');
  expect(readEffects(dir).map((e) => [e.key, e.worker])).toEqual([[key, 'w2']]);
  const markers = readMarkers(dir);
  expect(markers.filter((m) => m.kind === 'tool-started').map((m) => [m.worker, m.attempt])).toEqual([['w2', 1], ['w3', 2]]);
  expect(markers.filter((m) => m.kind === 'effect-deduplicated').map((m) => m.worker)).toEqual(['w3']);
  // Retried because its heartbeat stopped (runTool's 15 s heartbeatTimeout), not after start-to-close.
  expect(activityAttempts(await historyEvents(h), 'runTool')).toEqual([{ attempt: 2, timeoutType: HEARTBEAT }]);
  console.log(`signal with no worker + crash mid-call: second kill after ${tKill - t0} ms, finished ${tDone - tKill} ms after it`);
}));
