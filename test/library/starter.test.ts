/**
 * The starter as a user gets it: the packed package installed offline into an empty folder, whose
 * `npx agentloom init ../starter-app` (the package's own bin) writes the project; the project's own
 * offline install of the tarball; its `npm test` (tsc, then node:test: a worker with AgentloomPlugin
 * and the project's defineTool tool, a run through AgentloomClient) passes against the suite's
 * Temporal dev server. Nothing in the project points into this repository. Packed once for the file.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { temporalAddress } from '../helpers/temporal';
import { installOffline, packAgentloom, run, userEnv, type Packed } from './pack';

jest.setTimeout(900_000);

let tmp: string;
let packed: Packed;
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

  // The check the README promises: the client's compile knows the worker's tools, so a tool the
  // worker lacks is refused before anything starts, naming it.
  fs.writeFileSync(path.join(app, 'tools', 'count_words.tool.md'), fs.readFileSync(path.join(app, 'tools', 'count_words.tool.md'), 'utf8').replace('code: { name: count_words }', 'code: { name: count_wordz }'));
  const refused = await run(process.execPath, ['dist/src/client.js', 'a b'], { cwd: app, env: userEnv({ TEMPORAL_ADDRESS: temporalAddress() }) }).then(() => undefined, (e: { code?: number; stderr?: string }) => e);
  expect(refused?.code).toBe(1);
  expect(refused?.stderr).toMatch(/AGF192: tool `count_words` runs `count_wordz`, which the worker does not register in code.*registered: count_words/);
});
