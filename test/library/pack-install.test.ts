/**
 * The published package as a user gets it: `npm pack` (its `prepack` builds dist/ with
 * tsconfig.build.json) in a copy of this checkout's sources, so this checkout gets no dist/; the
 * tarball installed offline (`npm ci --offline` from the npm cache, with a lockfile written from the
 * repository's: test/library/offline-lock.ts) into a temporary copy of examples/embed-in-your-worker,
 * which has no path into this repository; the project type-checked and built by its own tsc; then
 * its worker (the user's workflow and activity, AgentloomPlugin, two defineTool tools, one gated by
 * approvalRequired) and its client (the user's workflow; an agent run through AgentloomClient; then
 * a run whose gated call the client APPROVES, reading the model's streamed text and the result)
 * run against the suite's Temporal dev server. The tarball is the suite's one shared pack (test/library/pack.ts).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'js-yaml';
import { connectTestTemporal, temporalAddress, type TestTemporal } from '../helpers/temporal';
import { until } from '../helpers/wait';
import { spawnProcess, type LoomProcess } from '../cli/harness';
import { writeOfflineLock } from './offline-lock';
import { packAgentloom, ROOT, run, userEnv } from './pack';

jest.setTimeout(600_000);
const EXAMPLE = path.join(ROOT, 'examples', 'embed-in-your-worker');

let tmp: string;
let app: string;
let tarball: string;
let t: TestTemporal;
let worker: LoomProcess | undefined;
const figures: string[] = [];

async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const start = Date.now();
  const out = await fn();
  figures.push(`${what} ${((Date.now() - start) / 1000).toFixed(1)} s`);
  return out;
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-pack-install-'));
  const connecting = connectTestTemporal('pack-install');
  const packed = await timed('npm pack (prepack build)', () => packAgentloom(tmp));
  tarball = packed.tarball;
  figures.push(packed.packedHere ? 'packed by this file' : 'the shared pack of another file or run');
  figures.push(`tarball ${packed.entryCount} files, ${(packed.size / 1024).toFixed(0)} KiB (unpacked ${(packed.unpackedSize / 1024).toFixed(0)} KiB)`);

  app = path.join(tmp, 'orders-app');
  fs.cpSync(EXAMPLE, app, { recursive: true, filter: (src) => !/[/\\](node_modules|dist|\.loom)$/.test(src) });
  t = await connecting;
});

afterAll(async () => {
  if (worker && worker.child.exitCode === null && worker.child.signalCode === null) {
    worker.child.kill('SIGKILL');
    await worker.done;
  }
  await t?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  process.stdout.write(`pack-install: ${figures.join('; ')}\n`);
});

test('the packed tarball installs offline into a copy of the example, which type-checks and builds with its own tsc', async () => {
  const locked = writeOfflineLock(path.join(ROOT, 'package-lock.json'), app, tarball);
  expect(locked).toBeGreaterThan(10);
  await timed('npm ci --offline', () => run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: app, env: userEnv(), maxBuffer: 64 << 20 }));
  // The installed package is the tarball's: built JavaScript and declarations, no TypeScript sources.
  const core = path.join(app, 'node_modules', '@agentloom', 'core');
  expect(fs.lstatSync(core).isSymbolicLink()).toBe(false);
  expect(fs.existsSync(path.join(core, 'dist', 'src', 'worker', 'index.d.ts'))).toBe(true);
  expect(fs.existsSync(path.join(core, 'src'))).toBe(false);
  // Nothing in the project points into this repository.
  expect(JSON.parse(fs.readFileSync(path.join(app, 'package.json'), 'utf8')).dependencies['@agentloom/core']).toMatch(/^file:\.\.\/agentloom-core-[\d.]+\.tgz$/);
  await timed('tsc', () => run(process.execPath, [path.join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: app, env: userEnv() }));
  for (const f of ['worker', 'client', 'workflows', 'tools']) expect(fs.existsSync(path.join(app, 'dist', 'src', `${f}.js`))).toBe(true);
  // The registry's declarations of the tools are the JSON Schemas and settings of the code's tools (what the model is shown is what execute accepts).
  const { stdout: tools } = await run(process.execPath, ['-e', "process.stdout.write(JSON.stringify(require('./dist/src/tools.js').TOOLS))"], { cwd: app, env: userEnv() });
  const inCode = JSON.parse(tools) as { name: string; inputSchema: unknown; approvalRequired: boolean }[];
  expect(inCode.map((t) => [t.name, t.approvalRequired])).toEqual([['lookup_order', false], ['refund_order', true]]);
  for (const t of inCode) {
    const declared = yaml.load(/^---\n([\s\S]*?)\n---/.exec(fs.readFileSync(path.join(app, 'tools', `${t.name}.tool.md`), 'utf8'))![1]) as { input_schema: unknown; kind: string; code: unknown; approval_required: boolean };
    expect(declared).toMatchObject({ kind: 'code', code: { name: t.name }, input_schema: t.inputSchema, approval_required: t.approvalRequired });
  }
});

test('its worker (own workflow + AgentloomPlugin + defineTool tools) and its client run on one task queue of the dev server; the client prints the agent\'s answer, approves a gated call and reads the stream and the result', async () => {
  expect(fs.existsSync(path.join(app, 'dist', 'src', 'worker.js'))).toBe(true);
  const taskQueue = `orders-${path.basename(tmp)}`;
  const env = userEnv({ TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_NAMESPACE: 'default', ORDERS_TASK_QUEUE: taskQueue });
  const w = spawnProcess(process.execPath, ['dist/src/worker.js'], env, app);
  worker = w;
  await timed('worker ready (bundles the workflows)', () => until(() => {
    if (w.child.exitCode !== null) throw new Error(`the worker exited ${w.child.exitCode}: ${w.err()}${w.out()}`);
    return w.out().includes(`worker ready on task queue ${taskQueue}`) ? true : undefined;
  }, 'the example worker to print its ready line', 180_000));

  const client = await timed('client', () => spawnProcess(process.execPath, ['dist/src/client.js', 'A-42'], env, app).done);
  expect({ code: client.code, err: client.err }).toEqual({ code: 0, err: '' });
  const lines = client.out.trim().split('\n');
  expect(lines[0]).toBe('shipOrderWorkflow: A-42 (a blue teapot) shipped with Parcelforce');
  // The agent's scripted model called lookup_order (the worker's defineTool), which read the
  // application's data after the application's own workflow had changed it in the same worker.
  expect(lines[1]).toMatch(/^order-desk: Order A-42: /);
  expect(JSON.parse(lines[1].replace(/^order-desk: Order A-42: /, ''))).toEqual({ order_id: 'A-42', item: 'a blue teapot', status: 'shipped', carrier: 'Parcelforce' });
  // The gated call: the client approved refund_order, then the tool ran (the order is refunded), and
  // the model's text the client read from the stream is the run's result.
  expect(lines[2]).toBe('refund-desk approved: refund_order');
  const refunded = `Refunded A-43: ${JSON.stringify({ order_id: 'A-43', item: 'two mugs', status: 'refunded' })}`;
  expect(lines[3]).toBe(`refund-desk streamed: ${refunded}`);
  expect(lines[4]).toBe(`refund-desk: ${refunded}`);
  expect(lines).toHaveLength(5);

  // Both runs went to the application's one task queue.
  const types = await until(async () => {
    const seen: string[] = [];
    for await (const wf of t.client.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) seen.push(`${wf.type}:${wf.status.name}`);
    return seen.length >= 3 ? seen.sort() : undefined;
  }, 'the three runs in the visibility of the task queue');
  expect(types).toEqual(['agfReactWorkflow:COMPLETED', 'agfReactWorkflow:COMPLETED', 'shipOrderWorkflow:COMPLETED']);
  // The refund run's history holds the approval the client sent (an update naming the call).
  const refundRun = await until(async () => {
    for await (const wf of t.client.workflow.list({ query: `TaskQueue = "${taskQueue}" AND WorkflowType = "agfReactWorkflow"` })) {
      const history = await t.client.workflow.getHandle(wf.workflowId).fetchHistory();
      if (history.events!.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'approveCall')) return wf.workflowId;
    }
    return undefined;
  }, 'the refund run with its approval in the history');
  expect(refundRun).toBeTruthy();

  // SIGTERM: the worker drains and exits 0.
  w.child.kill('SIGTERM');
  expect((await w.done).code).toBe(0);
});
