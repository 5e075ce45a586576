/**
 * The published package as a user gets it: `npm pack` (its `prepack` builds dist/ with
 * tsconfig.build.json) in a copy of this checkout's sources, so this checkout gets no dist/; the
 * tarball installed offline (`npm ci --offline` from the npm cache, with a lockfile written from the
 * repository's: test/library/offline-lock.ts) into a temporary copy of examples/embed-in-your-worker,
 * which has no path into this repository; the project type-checked and built by its own tsc; then
 * its worker (the user's workflow and activity, AgentloomPlugin, a defineTool tool) and its client
 * (the user's workflow, then an agent run through AgentloomClient) run against the suite's Temporal
 * dev server. Packed once for the file.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import * as yaml from 'js-yaml';
import { connectTestTemporal, temporalAddress, type TestTemporal } from '../helpers/temporal';
import { until } from '../helpers/wait';
import { spawnProcess, type LoomProcess } from '../cli/harness';
import { writeOfflineLock } from './offline-lock';

jest.setTimeout(600_000);
const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..');
const EXAMPLE = path.join(ROOT, 'examples', 'embed-in-your-worker');
/** What `prepack` needs to build, and what the `files` list ships. */
const SOURCES = ['package.json', 'README.md', 'LICENSE', 'tsconfig.json', 'tsconfig.build.json', 'src', 'worker.ts', 'client.ts', 'bin', 'schemas', path.join('scripts', 'install-temporal.sh')];

let tmp: string;
let app: string;
let tarball: string;
let t: TestTemporal;
let worker: LoomProcess | undefined;
const figures: string[] = [];

/** The environment of a user's shell: no test-runner or repository settings. */
function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', ...extra };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env;
}

async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const start = Date.now();
  const out = await fn();
  figures.push(`${what} ${((Date.now() - start) / 1000).toFixed(1)} s`);
  return out;
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-pack-install-'));
  const connecting = connectTestTemporal('pack-install');
  const sources = path.join(tmp, 'agentloom');
  for (const f of SOURCES) fs.cpSync(path.join(ROOT, f), path.join(sources, f), { recursive: true });
  // prepack's tsc and the build's types: this checkout's node_modules, as a developer's clone has them.
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(sources, 'node_modules'), 'dir');
  const { stdout } = await timed('npm pack (prepack build)', () => run('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: sources, env: userEnv(), maxBuffer: 64 << 20 }));
  const packed = (JSON.parse(stdout) as { filename: string; size: number; entryCount: number }[])[0];
  tarball = path.join(tmp, packed.filename);
  figures.push(`tarball ${packed.entryCount} files, ${(packed.size / 1024).toFixed(0)} KiB`);
  fs.rmSync(sources, { recursive: true, force: true });

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
  // The registry's declaration of the tool is the JSON Schema of the code's zod input (what the model is shown is what execute accepts).
  const { stdout: schema } = await run(process.execPath, ['-e', "process.stdout.write(JSON.stringify(require('./dist/src/tools.js').lookupOrder.inputSchema))"], { cwd: app, env: userEnv() });
  const declared = yaml.load(/^---\n([\s\S]*?)\n---/.exec(fs.readFileSync(path.join(app, 'tools', 'lookup_order.tool.md'), 'utf8'))![1]) as { input_schema: unknown };
  expect(JSON.parse(schema)).toEqual(declared.input_schema);
});

test('its worker (own workflow + AgentloomPlugin + a defineTool tool) and its client run on one task queue of the dev server; the client prints the agent\'s answer', async () => {
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
  expect(lines).toHaveLength(2);

  // Both runs went to the application's one task queue.
  const types = await until(async () => {
    const seen: string[] = [];
    for await (const wf of t.client.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) seen.push(`${wf.type}:${wf.status.name}`);
    return seen.length >= 2 ? seen.sort() : undefined;
  }, 'both runs in the visibility of the task queue');
  expect(types).toEqual(['agfReactWorkflow:COMPLETED', 'shipOrderWorkflow:COMPLETED']);

  // SIGTERM: the worker drains and exits 0.
  w.child.kill('SIGTERM');
  expect((await w.done).code).toBe(0);
});
