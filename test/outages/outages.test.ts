/**
 * Outages of a dependency are waited out, and no side effect is repeated because of them: a real
 * PostgreSQL store stopped for 60 s while one run's tool call and another run's model call are in
 * flight (one outage for both, instead of one run meeting two in a row), and a model endpoint
 * answering 503, then 429 with Retry-After, for 60 s. Each run completes; an external recorder (the
 * tool's HTTP endpoint) sees the call once; `loom status` (the real CLI) names what each run waits
 * for while it waits, without the database password.
 *
 * The two tests are independent and run at the same time (test.concurrent), so their outages
 * overlap instead of adding up: the model endpoint's run has its own worker (in its own process, on
 * its own task queue), its own store (a folder) and its own scripted model server, so stopping the
 * database touches only the store test's run, and each test counts only its own model requests.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import type { AddressInfo } from 'net';
import type { Worker } from '@temporalio/worker';
import { connectTestTemporal, temporalAddress, workflowBundlePath, TestTemporal } from '../helpers/temporal';
import { startTestPostgres, TestPostgres } from '../helpers/postgres';
import { FakeOpenAIServer, FakeResponse, httpError, reply, startFakeOpenAI, toolCalls } from '../helpers/openai-server';
import { spawnCli, userEnv, until, useBuiltCli } from '../cli/harness';
import { letTimePass } from '../helpers/wait';
import { agent, bundleOf } from '../runtime/builders';
import { killAllWorkers, spawnWorker } from '../helpers/spawn-worker';
import { createAgentloomWorker } from '../../src/worker/create-worker';
import { closeOpenStores, openStore } from '../../src/store';
import type { BlobStore } from '../../src/store/types';
import { storeBundle } from '../../src/activities/blob-store';
import { agfReactWorkflow } from '../../src/workflows/react';
import type { CompiledModel, CompiledTool } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';

jest.setTimeout(600_000);

const OUTAGE_MS = 60_000;
const SAVED = ['LOOM_STORE_URL', 'LOOM_STORE_DIR', 'LOOM_HOME', 'LOOM_WORKFLOW_BUNDLE', 'LOOM_TASK_QUEUE'].map((k) => [k, process.env[k]] as const);

let pg: TestPostgres;
let url: string;
let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let home: string;
let model: FakeOpenAIServer;
/** The store test's model-call run's own scripted model server. */
let modelCall: FakeOpenAIServer;
/** The model endpoint test's own: scripted model server, store (a folder) and worker process's task queue. */
const modelOutage = { server: undefined as FakeOpenAIServer | undefined, storeUrl: '', taskQueue: '' };

/** The tool's endpoint: records every request, and lets the test act before it answers. */
interface Recorder {
  url: string;
  keys: string[];
  /** Runs when a request arrives, before the answer (e.g. stop the database). */
  onRequest?: () => Promise<void> | void;
  close(): Promise<void>;
}
let recorder: Recorder;

async function startRecorder(): Promise<Recorder> {
  const rec: Recorder = { url: '', keys: [], close: async () => undefined };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      rec.keys.push(String(req.headers['idempotency-key'] ?? ''));
      void Promise.resolve(rec.onRequest?.()).then(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ recorded: rec.keys.length }));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  rec.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/record`;
  rec.close = () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); });
  return rec;
}

beforeAll(async () => {
  // The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than
  // from source. This file may be the first to ask for it (then it packs, tens of seconds): the
  // worker process, the database and the servers start meanwhile, and setup ends when all are ready.
  const built = useBuiltCli();
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-outages-home-'));
  modelOutage.storeUrl = `file://${path.join(home, 'model-outage-store')}`;
  modelOutage.taskQueue = `outages-model-outage-${randomUUID()}`;
  // A real Agentloom worker (createAgentloomWorker, the real activities) in its own process, whose store is not the database.
  const outageWorker = spawnWorker({
    name: 'model-outage', taskQueue: modelOutage.taskQueue, ledgerDir: path.join(home, 'ledger'), storeDir: path.join(home, 'model-outage-store'),
    env: { LOOM_STORE_URL: modelOutage.storeUrl, LOOM_HOME: home },
    transpiled: true,
  });
  // Awaited below with the rest; until then a failure of either must not go unhandled.
  built.catch(() => undefined);
  outageWorker.catch(() => undefined);
  pg = await startTestPostgres('loom-outages');
  url = await pg.urlFor('loomstore');
  process.env.LOOM_STORE_URL = url;
  delete process.env.LOOM_STORE_DIR;
  process.env.LOOM_HOME = home;
  process.env.LOOM_WORKFLOW_BUNDLE = workflowBundlePath();
  t = await connectTestTemporal('outages');
  worker = await createAgentloomWorker({ connection: t.nativeConnection, taskQueue: t.taskQueue });
  running = worker.run();
  recorder = await startRecorder();
  model = await startFakeOpenAI();
  modelCall = await startFakeOpenAI();
  modelOutage.server = await startFakeOpenAI();
  await Promise.all([built, outageWorker]);
}, 600_000);

afterAll(async () => {
  await killAllWorkers();
  if (worker) {
    worker.shutdown();
    await running;
  }
  await t?.close();
  await recorder?.close();
  await model?.close();
  await modelCall?.close();
  await modelOutage.server?.close();
  await closeOpenStores();
  pg?.destroy();
  if (home) fs.rmSync(home, { recursive: true, force: true });
  for (const [k, v] of SAVED) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

function openaiModel(server: FakeOpenAIServer): CompiledModel {
  // No retry_policy and no fallback model: the model activity waits outages out.
  return { model_id: 'oa-outage', version: '1.0.0', status: 'active', provider: 'openai', openai: { base_url: server.baseUrl, model: 'gpt-fake-1' }, supports_tools: true };
}

function recordTool(): CompiledTool {
  return {
    tool_id: 'record',
    version: '1.0.0',
    status: 'active',
    description: 'records a note at the external recorder (a side effect)',
    kind: 'http',
    input_schema: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] },
    approval_required: false,
    sensitive_fields: [],
    side_effects: true,
    http: { method: 'POST', url: recorder.url, allowed_hosts: ['127.0.0.1'], allow_private_network: true },
  } as CompiledTool;
}

/** Where a run goes: its model server, its store and its worker's task queue. */
interface Target { server: FakeOpenAIServer; store: BlobStore; storeUrl: string; taskQueue: string }
const storeTest = (): Target => ({ server: model, store: openStore(), storeUrl: url, taskQueue: t.taskQueue });
const modelTest = (): Target => ({ server: modelOutage.server!, store: openStore({ ...process.env, LOOM_STORE_URL: modelOutage.storeUrl }), storeUrl: modelOutage.storeUrl, taskQueue: modelOutage.taskQueue });

async function start(agentId: string, to: Target): Promise<{ id: string; result: Promise<AgentRunResult> }> {
  const a = agent({ agent_id: agentId, model: openaiModel(to.server), tools: [recordTool()] });
  const bundle = await storeBundle(to.store, bundleOf(a));
  const id = `${agentId}-${Math.random().toString(36).slice(2, 10)}`;
  const handle = await t.client.workflow.start(agfReactWorkflow, { taskQueue: to.taskQueue, workflowId: id, args: [{ bundle, agent_id: a.agent_id, input: 'note it' }] });
  return { id, result: handle.result() };
}

/** `loom status ID` by the real CLI, as a user on another machine runs it (only the store URL shared). */
async function loomStatus(id: string, to: Target): Promise<string> {
  const env = userEnv({ TEMPORAL_ADDRESS: temporalAddress(), LOOM_TASK_QUEUE: to.taskQueue, LOOM_HOME: home, LOOM_STORE_URL: to.storeUrl, LOOM_WORKFLOW_BUNDLE: workflowBundlePath() });
  const r = await spawnCli(['status', id], env).done;
  return `${r.out}\n${r.err}`;
}

/** Poll `loom status` until a line matches; returns that line. */
function statusLine(id: string, to: Target, re: RegExp, what: string, ms = OUTAGE_MS - 10_000): Promise<string> {
  return until(what, async () => (await loomStatus(id, to)).split('\n').find((l) => re.test(l)), ms, 500);
}

/** Keep the database down for the outage from `since`, then start it. */
async function endOutage(since: number): Promise<void> {
  const left = since + OUTAGE_MS - Date.now();
  await letTimePass(left, 'the outage\'s length: what this test controls');
  pg.start();
}

test.concurrent('the store down 60 s while one run\'s tool call and another run\'s model call are in flight: both runs complete, the tool ran once, the model was not asked again, loom status named the outage for each', async () => {
  const store = `postgres://${pg.user}@127.0.0.1:${pg.port}/loomstore`;
  // The tool's request arrives: it is held (not answered) until the database is down, so recording its result meets the outage.
  let toolArrived = false;
  let releaseTool!: () => void;
  const toolHeld = new Promise<void>((r) => { releaseTool = r; });
  recorder.onRequest = () => {
    toolArrived = true;
    return toolHeld;
  };
  model.enqueue(toolCalls([{ id: 'call_rec', name: 'record', arguments: { note: 'once' } }]), reply('noted'));
  // The model-call run has its own scripted model server (each run's requests are counted apart); its reply is held 4 s.
  modelCall.enqueue({ kind: 'reply', content: 'answered', delay_ms: 4000 } as FakeResponse);
  const to = storeTest();
  const toolRun = await start('outage-store-tool', to);
  let down = 0;
  try {
    await until('the tool call to reach the recorder', () => (toolArrived ? true : undefined), 60_000, 100);
    const modelRun = await start('outage-store-model', { ...to, server: modelCall });
    await until('the model call to reach the model server', () => (modelCall.requests.length >= 1 ? true : undefined), 60_000, 50);
    // Both in flight: the tool has run (its answer held) and the model is answering.
    pg.stop();
    down = Date.now();
    releaseTool();
    const [duringTool, duringModel] = await Promise.all([
      statusLine(toolRun.id, to, /waiting for the store/, 'loom status to name the store outage during the tool call'),
      statusLine(modelRun.id, to, /waiting for the store/, 'loom status to name the store outage during the model call'),
    ]);
    expect(duringTool).toContain(`waiting for the store ${store} (unreachable since `);
    expect(duringModel).toContain(`waiting for the store ${store} (unreachable`);
    expect(duringTool).not.toContain(pg.password);
    expect(duringModel).not.toContain(pg.password);
    await endOutage(down);

    const [toolResult, modelResult] = await Promise.all([toolRun.result, modelRun.result]);
    expect(toolResult.output).toBe('noted');
    expect(modelResult.output).toBe('answered');
    // The side effect happened once, with the run's idempotency key; neither model was asked again.
    expect(recorder.keys).toEqual([`${toolRun.id}/call_rec`]);
    expect(model.requests).toHaveLength(2);
    expect(modelCall.requests).toHaveLength(1);
    // The model's reply came back while the database was down (what makes it an outage during the model call).
    expect(modelCall.requests[0].at + 4000).toBeGreaterThan(down);
    for (const id of [toolRun.id, modelRun.id]) expect(await loomStatus(id, to)).not.toMatch(/waiting for/);
  } finally {
    releaseTool();
    recorder.onRequest = undefined;
    pg.start();
  }
});

test.concurrent('the model endpoint answering 503 (15 s), then 429 with Retry-After (45 s): the run waits and completes', async () => {
  const to = modelTest();
  const model = to.server;
  const phase = { until503: 0, until429: 0 };
  const t0 = Date.now();
  phase.until503 = t0 + OUTAGE_MS / 4;
  phase.until429 = t0 + OUTAGE_MS;
  const first = model.requests.length;
  // One scripted answer always queued (requests come seconds apart): 503 for 15 s, then 429 with
  // Retry-After: 5 until the 60 s are over, then the reply.
  // The queue serves in order: `served[i]` is what the i-th request of this run got.
  const served: number[] = [];
  const push = (r: FakeResponse, status: number) => { served.push(status); model.enqueue(r); };
  let refilling = true;
  const refill = (async () => {
    while (refilling && Date.now() < phase.until429) {
      while (model.pending() < 1) {
        if (Date.now() < phase.until503) push(httpError(503, {}, 'overloaded'), 503);
        else push(httpError(429, { 'retry-after': '5' }, 'slow down'), 429);
      }
      // The next answer is queued once this one is served (or the outage is over).
      await until('the queued answer to be served', () => (model.pending() < 1 || !refilling || Date.now() >= phase.until429 ? true : undefined), OUTAGE_MS + 60_000, 50);
    }
    push(reply('after the outage'), 200);
  })();
  const run = await start('outage-model', to);
  try {
    // Between attempts the line names when the next one is due; while an attempt runs, the last failure's message.
    const s503 = await statusLine(run.id, to, /model endpoint answered 503, retrying at \d\d:\d\d:\d\d \(attempt \d+\)/, 'loom status to name the 503s and the next attempt', OUTAGE_MS / 2);
    expect(s503).toMatch(/model endpoint answered 503, retrying at \d\d:\d\d:\d\d \(attempt \d+\)/);
    const s429 = await statusLine(run.id, to, /model endpoint answered 429, retrying at \d\d:\d\d:\d\d \(attempt \d+\)/, 'loom status to name the 429s and the next attempt', OUTAGE_MS);
    expect(s429).toMatch(/model endpoint answered 429, retrying at \d\d:\d\d:\d\d \(attempt \d+\)/);
    const result = await run.result;
    expect(result.output).toBe('after the outage');
    const reqs = model.requests.slice(first);
    expect(reqs[reqs.length - 1].at - t0).toBeGreaterThanOrEqual(OUTAGE_MS);
    expect(served.slice(0, reqs.length)).toEqual(expect.arrayContaining([503, 429]));
    expect(served[reqs.length - 1]).toBe(200);
    // Retry-After honoured: after a 429 the next request came ~5 s later, not at the 30 s backoff cap.
    const after429 = reqs.slice(1).map((r, i) => ({ gap: r.at - reqs[i].at, status: served[i] })).filter((g) => g.status === 429);
    expect(after429.length).toBeGreaterThan(1);
    for (const g of after429) expect(g.gap).toBeGreaterThanOrEqual(4500);
    for (const g of after429) expect(g.gap).toBeLessThan(15_000);
  } finally {
    refilling = false;
    await refill;
  }
});
