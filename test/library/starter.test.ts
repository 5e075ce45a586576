/**
 * The starter as a user gets it: the packed package installed offline into an empty folder, whose
 * `npx agentloom init ../starter-app` (the package's own bin) writes the project; the project's own
 * offline install of the tarball; its `npm test` (tsc, then node:test: a worker with AgentloomPlugin
 * and the project's defineTool tool, a run through AgentloomClient) passes against the suite's
 * Temporal dev server; then what a newcomer runs next: `npm run dev` (its own dev server on a free
 * 127.0.0.1 port, and the worker) and, beside it, `npm run client`, whose answer comes from the code
 * tool; Ctrl-C (SIGINT to dev's process group) stops them all. Nothing in the project points into
 * this repository. The tarball is the suite's one shared pack (test/library/pack.ts).
 */
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { resolveTemporalCli } from '../../src/platform/temporal-dev-server';
import { temporalAddress } from '../helpers/temporal';
import { until } from '../helpers/wait';
import { installOffline, packAgentloom, run, userEnv } from './pack';

jest.setTimeout(900_000);

let tmp: string;
let packed: Awaited<ReturnType<typeof packAgentloom>>;
const figures: string[] = [];

async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const start = Date.now();
  const out = await fn();
  figures.push(`${what} ${((Date.now() - start) / 1000).toFixed(1)} s`);
  return out;
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-starter-'));
  packed = await timed('npm pack', () => packAgentloom(tmp));
  figures.push(packed.packedHere ? 'packed by this file' : 'the shared pack of another file or run');
});

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  process.stdout.write(`starter: ${figures.join('; ')}\n`);
});

test('npx agentloom init writes a project; installed from the tarball, its npm test runs the agent against the dev server', async () => {
  // A folder where the user installed the package: `npx agentloom init DIR` runs its bin.
  const boot = path.join(tmp, 'boot');
  fs.mkdirSync(boot);
  fs.writeFileSync(path.join(boot, 'package.json'), JSON.stringify({ name: 'boot', version: '1.0.0', private: true }) + '\n');
  await timed('install in boot', () => installOffline(boot, packed.tarball));
  const init = await run('npx', ['--offline', '--no-install', 'agentloom', 'init', '../starter-app'], { cwd: boot, env: userEnv() });
  expect(init.stdout).toContain(`wrote ${path.join('..', 'starter-app', 'package.json')}`);

  const app = path.join(tmp, 'starter-app');
  const pkg = JSON.parse(fs.readFileSync(path.join(app, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string>; scripts: Record<string, string> };
  expect(pkg.name).toBe('starter-app');
  expect(pkg.dependencies['@agentloom/core']).toBe(`^${JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')).version}`);
  expect(pkg.scripts).toMatchObject({ dev: expect.any(String), start: expect.any(String), client: expect.any(String), test: expect.any(String) });

  await timed('install in the project', () => installOffline(app, packed.tarball));
  // The project's own install: the tarball's built package, no path into this repository.
  expect(JSON.parse(fs.readFileSync(path.join(app, 'package.json'), 'utf8')).dependencies['@agentloom/core']).toMatch(/^file:\.\.\/agentloom-core-[\d.]+\.tgz$/);
  expect(fs.lstatSync(path.join(app, 'node_modules', '@agentloom', 'core')).isSymbolicLink()).toBe(false);

  const test = await timed('npm test', () => run('npm', ['test'], {
    cwd: app,
    env: userEnv({ TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_NAMESPACE: 'default' }),
    maxBuffer: 64 << 20,
  }).catch((e: { stdout?: string; stderr?: string; message: string }) => { throw new Error(`npm test failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`); }));
  // node:test's report: the one test passed, none failed.
  expect(test.stdout).toMatch(/^# pass 1$/m);
  expect(test.stdout).toMatch(/^# fail 0$/m);
  expect(test.stdout).toContain('ok 1 - the assistant counts the words with the count_words tool');
});

/** Whether any process of process group `pgid` is still alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw e;
  }
}

test('npm run dev starts a dev server on a free port and the worker; npm run client prints the code tool\'s answer; Ctrl-C stops them all', async () => {
  const app = path.join(tmp, 'starter-app');
  // The project's dev server is the package's Temporal CLI; offline, the suite's own (a user's first
  // `npm run dev` installs it into the package instead).
  const env = userEnv({ TEMPORAL_CLI_PATH: resolveTemporalCli({ install: false }) });
  // Its own process group (as a terminal gives it), so that Ctrl-C reaches npm, node and the server alike.
  const dev: ChildProcess = spawn('npm', ['run', 'dev'], { cwd: app, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  dev.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  dev.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((resolve) => dev.once('exit', (code) => resolve(code)));
  const pgid = dev.pid!;
  try {
    const address = await timed('npm run dev until the worker is ready', () => until(() => {
      if (dev.exitCode !== null) throw new Error(`npm run dev exited (${dev.exitCode}):\n${out}`);
      const m = /Temporal dev server at (127\.0\.0\.1:\d+)/.exec(out);
      return m && /worker ready on task queue starter-app/.test(out) ? m[1] : undefined;
    }, () => `npm run dev's server address and its worker ready; output so far:\n${out}`, 180_000));
    // Not the suite's server: the one dev started, on a port it found free.
    expect(address).not.toBe(temporalAddress());
    expect(out).toMatch(new RegExp(`in another terminal: TEMPORAL_ADDRESS=${address.replace(/\./g, '\\.')} npm run client`));

    // Eleven words, spaced unevenly: the number in the answer is the code tool's count (the scripted
    // model only repeats the tool's result).
    const text = 'one two  three four five six seven eight nine ten eleven';
    const client = await timed('npm run client', () => run('npm', ['run', 'client', '--', text], { cwd: app, env: userEnv({ TEMPORAL_ADDRESS: address }), maxBuffer: 64 << 20 })
      .catch((e: { stdout?: string; stderr?: string; message: string }) => { throw new Error(`npm run client failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}\ndev:\n${out}`); }));
    expect(client.stdout.trim().split('\n').pop()).toBe(`"${text}" has 11 words`);
  } finally {
    // Ctrl-C: SIGINT to the whole group; every process of it must end (no leaked server or worker).
    if (groupAlive(pgid)) process.kill(-pgid, 'SIGINT');
    const gone = await until(() => (groupAlive(pgid) ? undefined : true), 'npm run dev\'s process group to end after SIGINT', 60_000).catch((e: Error) => e);
    if (gone instanceof Error && groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    expect(gone).toBe(true);
  }
  await exited;
  expect(out).not.toMatch(/Error|error:/);
});

test('the client refuses a kind: code tool the worker does not register, before anything starts', async () => {
  const app = path.join(tmp, 'starter-app');
  // The check the README promises: the client's compile knows the worker's tools, so a tool the
  // worker lacks is refused before anything starts, naming it.
  fs.writeFileSync(path.join(app, 'tools', 'count_words.tool.md'), fs.readFileSync(path.join(app, 'tools', 'count_words.tool.md'), 'utf8').replace('code: { name: count_words }', 'code: { name: count_wordz }'));
  const refused = await run(process.execPath, ['dist/src/client.js', 'a b'], { cwd: app, env: userEnv({ TEMPORAL_ADDRESS: temporalAddress() }) }).then(() => undefined, (e: { code?: number; stderr?: string }) => e);
  expect(refused?.code).toBe(1);
  expect(refused?.stderr).toMatch(/AGF192: tool `count_words` runs `count_wordz`, which the worker does not register in code.*registered: count_words/);
});
