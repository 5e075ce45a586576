/**
 * The shared store on a cluster layout: a worker (this process) and the `loom` CLI (a child
 * process with its own working folder and LOOM_HOME, no shared folder) agree only on
 * LOOM_STORE_URL pointing at a real PostgreSQL started by the test. A run goes end to end, a
 * large input takes the claim-check path through the database, and a database outage mid-run
 * fails the activity with a retryable error naming the store; the run finishes once it is back.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Client as PgClient } from 'pg';
import type { Worker } from '@temporalio/worker';
import { connectTestTemporal, temporalAddress, workflowBundlePath, TestTemporal } from '../helpers/temporal';
import { startTestPostgres, TestPostgres } from '../helpers/postgres';
import { spawnCli, userEnv, STACK_TRACE, until, useBuiltCli } from '../cli/harness';
import { createAgentloomWorker } from '../../src/worker/create-worker';
import { closeOpenStores } from '../../src/store';

jest.setTimeout(300_000);

const REGISTRY = path.join(__dirname, 'fixtures', 'registry');
const SAVED = ['LOOM_STORE_URL', 'LOOM_STORE_DIR', 'LOOM_HOME', 'LOOM_WORKFLOW_BUNDLE', 'LOOM_TASK_QUEUE'].map((k) => [k, process.env[k]] as const);

let pg: TestPostgres;
let url: string;
let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let workerHome: string;
let cliHome: string;
let cliCwd: string;

async function sql<T extends Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
  const c = new PgClient({ host: pg.host, port: pg.port, user: pg.user, password: pg.password, database: 'loomstore' });
  await c.connect();
  try {
    return (await c.query<T>(text, params)).rows;
  } finally {
    await c.end();
  }
}

function cliEnv(): NodeJS.ProcessEnv {
  return userEnv({ TEMPORAL_ADDRESS: temporalAddress(), LOOM_TASK_QUEUE: t.taskQueue, LOOM_HOME: cliHome, LOOM_STORE_URL: url, LOOM_WORKFLOW_BUNDLE: workflowBundlePath() });
}

// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => {
  pg = await startTestPostgres('loom-cluster');
  url = await pg.urlFor('loomstore');
  workerHome = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-worker-home-'));
  cliHome = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cli-home-'));
  cliCwd = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cli-cwd-'));
  // The worker reads the store setting from its environment, as worker.ts does.
  process.env.LOOM_STORE_URL = url;
  delete process.env.LOOM_STORE_DIR;
  process.env.LOOM_HOME = workerHome;
  process.env.LOOM_WORKFLOW_BUNDLE = workflowBundlePath();
  t = await connectTestTemporal('store');
  worker = await createAgentloomWorker({ connection: t.nativeConnection, taskQueue: t.taskQueue });
  running = worker.run();
});

afterAll(async () => {
  if (worker) {
    worker.shutdown();
    await running;
  }
  await t?.close();
  await closeOpenStores();
  pg?.destroy();
  for (const d of [workerHome, cliHome, cliCwd]) if (d) fs.rmSync(d, { recursive: true, force: true });
  for (const [k, v] of SAVED) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

async function historyText(id: string): Promise<string> {
  return JSON.stringify(await t.client.workflow.getHandle(id).fetchHistory());
}

test('loom run from another folder: the CLI and the worker share only LOOM_STORE_URL', async () => {
  const run = spawnCli(['run', 'store-echo', '--registry', REGISTRY], cliEnv(), cliCwd);
  const r = await run.done;
  expect({ code: r.code, stack: STACK_TRACE.test(r.err) }).toEqual({ code: 0, stack: false });
  expect(JSON.parse(r.out)).toEqual({ echoed: 'hello from the CLI' });
  const id = /started (\S+)/.exec(r.err)?.[1];
  expect(id).toBeDefined();

  // Nothing went to a folder: neither the CLI's home nor its working folder holds a store.
  expect(fs.existsSync(path.join(cliHome, 'store'))).toBe(false);
  expect(fs.existsSync(path.join(cliCwd, '.loom'))).toBe(false);
  expect(fs.existsSync(path.join(workerHome, 'store'))).toBe(false);
  // The bundle the CLI stored and the conversation the worker wrote are rows of the database.
  const input = (await t.client.workflow.getHandle(id!).fetchHistory()).events?.[0].workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const bundleHash = JSON.parse(Buffer.from(input!.data!).toString('utf8')).bundle.hash as string;
  expect(await sql('SELECT 1 FROM loom_blobs WHERE hash = $1', [bundleHash])).toHaveLength(1);
  const msgs = await sql<{ n: string }>("SELECT count(*) AS n FROM loom_blobs WHERE convert_from(data, 'UTF8') LIKE '%agentloom.msg/v1%'");
  expect(Number(msgs[0].n)).toBeGreaterThanOrEqual(2);
  // The database password is in no payload.
  expect(await historyText(id!)).not.toContain(pg.password);
}, 180_000);

test('a large input takes the claim-check path through PostgreSQL', async () => {
  const note = 'claim-check '.repeat(60_000); // ~720 KB
  const inputFile = path.join(cliCwd, 'large.json');
  fs.writeFileSync(inputFile, JSON.stringify({ note }));
  const r = await spawnCli(['run', 'store-echo', '--registry', REGISTRY, '--input', `@${inputFile}`], cliEnv(), cliCwd).done;
  expect(r.code).toBe(0);
  expect(JSON.parse(r.out).echoed).toBe(note);
  // The conversation's messages, each over 700 KB, are blobs in the database.
  const big = await sql<{ n: string }>('SELECT count(*) AS n FROM loom_blobs WHERE octet_length(data) > 700000');
  expect(Number(big[0].n)).toBeGreaterThanOrEqual(2);
  expect(fs.existsSync(path.join(cliHome, 'store'))).toBe(false);
}, 180_000);

test('the database down mid-run: the activity fails with a retryable error naming the store, the run finishes once it is back', async () => {
  // The CLI's own first step (store the bundle) while the database is up, then the outage.
  process.env.LOOM_TASK_QUEUE = t.taskQueue;
  const { prepareRun, startPrepared } = await import('../../src/operator/runs');
  const prepared = await prepareRun('store-echo', REGISTRY, JSON.stringify({ note: 'after the outage' }));
  pg.stop();
  let restarted = false;
  try {
    const handle = await startPrepared(t.client, prepared);
    const failure = await until('an activity attempt to fail on the store', async () => {
      const d = await handle.describe();
      const pending = d.raw.pendingActivities?.find((a) => a.lastFailure?.message);
      return pending ? { type: pending.activityType?.name, message: pending.lastFailure!.message!, attempt: pending.attempt } : undefined;
    });
    expect(failure.message).toContain(`the store postgres://${pg.user}@127.0.0.1:${pg.port}/loomstore is unreachable`);
    expect(failure.message).not.toContain(pg.password);
    pg.start();
    restarted = true;
    expect(await handle.result()).toMatchObject({ output: { echoed: 'after the outage' } });
    const hist = await historyText(handle.workflowId);
    expect(hist).toContain('StoreUnavailable');
    expect(hist).not.toContain(pg.password);
  } finally {
    if (!restarted) pg.start();
  }
}, 240_000);

test('a wrong store setting in the CLI is refused naming the store, not the password', async () => {
  const env = { ...cliEnv(), LOOM_STORE_URL: `postgres://${pg.user}:not-the-password-42@127.0.0.1:${pg.port}/loomstore` };
  const r = await spawnCli(['run', 'store-echo', '--registry', REGISTRY], env, cliCwd).done;
  expect(r.code).not.toBe(0);
  expect(r.err).toContain(`postgres://${pg.user}@127.0.0.1:${pg.port}/loomstore`);
  expect(r.err).not.toContain('not-the-password-42');
  expect(r.err).not.toMatch(STACK_TRACE);
  expect(r.err).toMatch(/^loom( run)?: the store postgres:\/\/\S+ is unreachable: password authentication failed/m);
}, 120_000);

describe('chat sessions (loom run --session)', () => {
  const runIn = (agent: string, note: string, session: string, cwd = cliCwd) =>
    spawnCli(['run', agent, '--registry', REGISTRY, '--input', JSON.stringify({ note }), '--session', session], cliEnv(), cwd).done;

  test('the second run of a session sees the first exchange; another session does not; the session lives in the store', async () => {
    const first = await runIn('store-echo', 'first-note-7', 'chat-1');
    expect({ code: first.code, out: first.out && JSON.parse(first.out) }).toEqual({ code: 0, out: { echoed: 'first-note-7' } });
    expect(first.err).toContain('session chat-1: 0 earlier run(s), 0 earlier message(s) given to the model');

    // From another working folder: the session is found through LOOM_STORE_URL alone.
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cli-cwd2-'));
    try {
      const second = await runIn('store-echo', 'second-note', 'chat-1', elsewhere);
      expect({ code: second.code, out: second.out && JSON.parse(second.out) }).toEqual({ code: 0, out: { echoed: 'continued: second-note' } });
      expect(second.err).toContain('session chat-1: 1 earlier run(s), 2 earlier message(s) given to the model');
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
    // The model's first message of the second run: the first exchange, then the new prompt.
    const firsts = await sql<{ t: string }>("SELECT convert_from(data, 'UTF8') AS t FROM loom_blobs WHERE convert_from(data, 'UTF8') LIKE '%agentloom.loose/v1%# Earlier in this session%second-note%'");
    expect(firsts).toHaveLength(1);
    const msg = JSON.parse(firsts[0].t).msg.content as string;
    expect(msg).toMatch(/^# Earlier in this session\n\[user\] .*first-note-7.*\n\[assistant\] \{"echoed":"first-note-7"\}\n\n# Now\n.*second-note/s);

    const other = await runIn('store-echo', 'third-note', 'chat-2');
    expect(JSON.parse(other.out)).toEqual({ echoed: 'third-note' });
    const recs = await sql<{ key: string; value: string }>("SELECT key, value FROM loom_records WHERE kind = 'session' ORDER BY key");
    expect(recs.map((r) => [r.key, JSON.parse(r.value).runs])).toEqual([['store-echo/chat-1', 2], ['store-echo/chat-2', 1]]);
  }, 240_000);

  test('an agent with state.session_history: ephemeral, and a bad session id, are refused before anything starts', async () => {
    const eph = await runIn('store-forgetful', 'x', 'chat-1');
    expect(eph.code).toBe(1);
    expect(eph.err).toBe('loom run: store-forgetful declares state.session_history: ephemeral (no history across runs): remove --session, or set state.session_history: session\n');
    const bad = await runIn('store-echo', 'x', 'a/b');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("loom run: --session must be letters, digits, '.', '_', ':' or '-' (up to 128 characters), e.g. --session support-42 (got 'a/b')");
  }, 120_000);
});
