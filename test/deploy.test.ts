/**
 * The Dockerfile's build, run without Docker (no engine on the development machines): the build
 * context is what `COPY . .` sends (the repository less .dockerignore), the build stage's RUN steps
 * after `COPY . .` run as written in a copy of that context (the `npm ci` step stands in for the
 * installed node_modules), the files the final stage copies exist, and the image's CMD — with the
 * image's ENV — starts a worker that runs an agent against the suite's Temporal server.
 *
 * A RUN step that chains commands with `&&` whose later commands read nothing under dist/ (the
 * build's output) runs its commands at the same time, each of which must succeed: today tsc (the
 * sources to dist/) beside the workflow bundle script (the sources to dist/workflow-bundle*.js),
 * which read only the sources; any other step runs as written, in /bin/sh.
 */
import { ChildProcess, execFile, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { promisify } from 'util';
import { Client, Connection } from '@temporalio/client';
import { FileBlobStore, storeBundle } from '../src/activities/blob-store';
import { agfReactWorkflow } from '../src/workflows/react';
import { agent, bundleOf, scriptedModel } from './runtime/builders';
import { temporalAddress } from './helpers/temporal';
import { until } from './helpers/wait';

jest.setTimeout(900_000);

const ROOT = path.resolve(__dirname, '..');
const DOCKERFILE = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');

/** The Dockerfile's instructions, continuation lines joined, as [stage index, keyword, rest]. */
function instructions(): [number, string, string][] {
  const out: [number, string, string][] = [];
  let stage = -1;
  for (const line of DOCKERFILE.replace(/\\\n/g, ' ').split('\n')) {
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === 'FROM') stage++;
    out.push([stage, m[1], m[2].trim()]);
  }
  return out;
}

/** .dockerignore's patterns as matchers (Docker's rules: paths from the context root, `*`, `?`, `**`). */
function dockerignore(): (rel: string) => boolean {
  const patterns = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  if (patterns.some((p) => p.startsWith('!'))) throw new Error('exceptions (!) are not read by this test: add them to its matcher');
  const res = patterns.map((p) => {
    const src = p.replace(/^\/+|\/+$/g, '').split(/(\*\*\/|\*\*|\*|\?)/).map((part) => {
      if (part === '**/') return '(?:.*/)?';
      if (part === '**') return '.*';
      if (part === '*') return '[^/]*';
      if (part === '?') return '[^/]';
      return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }).join('');
    return new RegExp(`^${src}(?:/.*)?$`);
  });
  return (rel) => res.some((r) => r.test(rel));
}

/**
 * The commands of a RUN step that may run at the same time: a chain `a && b && …` of plain commands
 * (no other shell operator) whose later commands name nothing under dist/, so none reads what an
 * earlier one builds; otherwise the step whole, as one command.
 */
function concurrentParts(run: string): string[] {
  const parts = run.split(' && ').map((p) => p.trim());
  if (parts.length < 2 || parts.some((p) => /[;|<>&`$()]/.test(p))) return [run];
  return parts.slice(1).some((p) => /(^|[\s/])dist(\/|\s|$)/.test(p)) ? [run] : parts;
}

/** Copies the build context into `dest`; returns the copied files' relative paths and total bytes. */
function copyContext(dest: string): { files: string[]; bytes: number } {
  const ignored = dockerignore();
  const files: string[] = [];
  let bytes = 0;
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (ignored(r)) continue;
      if (e.isDirectory()) walk(r);
      else if (e.isFile()) {
        fs.mkdirSync(path.join(dest, rel), { recursive: true });
        fs.copyFileSync(path.join(ROOT, r), path.join(dest, r));
        files.push(r);
        bytes += fs.statSync(path.join(ROOT, r)).size;
      } else if (e.isSymbolicLink()) {
        throw new Error(`${r} is a symbolic link in the build context: add it to .dockerignore (a linked node_modules or .tools would be sent whole)`);
      }
    }
  };
  walk('');
  return { files, bytes };
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-docker-build-'));
const app = path.join(work, 'app');
let worker: ChildProcess | undefined;
let connection: Connection | undefined;
/** How long each phase took, printed after the file (where the file's time goes). */
const figures: string[] = [];

function timed<T>(what: string, fn: () => T): T {
  const start = Date.now();
  const out = fn();
  figures.push(`${what} ${((Date.now() - start) / 1000).toFixed(1)} s`);
  return out;
}

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = new Promise((r) => worker!.once('exit', r));
    worker.kill('SIGTERM');
    await exited;
  }
  await connection?.close();
  fs.rmSync(work, { recursive: true, force: true });
  process.stdout.write(`deploy: ${figures.join('; ')}\n`);
});

test("the image's build steps, run as written on the .dockerignore'd context, build a worker that runs an agent", async () => {
  const steps = instructions();
  const build = steps.filter(([s]) => s === 0);
  const copyAll = build.findIndex(([, k, rest]) => k === 'COPY' && rest === '. .');
  expect(copyAll).toBeGreaterThan(0);
  // Before `COPY . .` only the manifests are copied and installed: node_modules from the lock.
  expect(build.slice(0, copyAll).filter(([, k]) => k === 'COPY').map(([, , r]) => r)).toEqual(['package.json package-lock.json ./']);
  const runs = build.slice(copyAll).filter(([, k]) => k === 'RUN').map(([, , r]) => r);
  expect(runs.length).toBeGreaterThan(0);

  const { files, bytes } = timed('copy the context', () => copyContext(app));
  for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'worker.ts', 'scripts/build-bundle.ts']) expect(files).toContain(f);
  expect(files.filter((f) => /^(node_modules|\.git|\.tools|\.loom|dist)\//.test(f))).toEqual([]);
  expect(bytes).toBeLessThan(100 * 1024 * 1024);
  // The `npm ci` step: the packages the lock names, already installed here.
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(app, 'node_modules'), 'dir');

  // Each step in order; the independent commands of a step's && chain at the same time (see the file comment).
  const sh = promisify(execFile);
  for (const run of runs) {
    const parts = concurrentParts(run);
    const start = Date.now();
    await Promise.all(parts.map(async (part) => {
      const t0 = Date.now();
      await sh('/bin/sh', ['-c', part], { cwd: app, timeout: 600_000, maxBuffer: 64 << 20 })
        .catch((e: { stdout?: string; stderr?: string; message: string }) => { throw new Error(`RUN ${part} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`); });
      if (parts.length > 1) figures.push(`${part} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }));
    figures.push(`RUN ${run} (${parts.length} at the same time) ${((Date.now() - start) / 1000).toFixed(1)} s`);
  }

  // The final stage copies dist/ from the build and schemas/ from the context, and runs its CMD there.
  const final = steps.filter(([s]) => s === 1);
  for (const [, , rest] of final.filter(([, k]) => k === 'COPY')) {
    const [, from, src] = /^(?:--from=(\S+)\s+)?(\S+)/.exec(rest)!;
    if (from === 'build') expect(fs.existsSync(path.join(app, path.relative('/app', src)))).toBe(true);
    else if (!src.startsWith('package')) expect(fs.existsSync(path.join(app, src))).toBe(true);
  }
  for (const f of ['dist/worker.js', 'dist/client.js', 'dist/workflow-bundle.js', 'dist/workflow-bundle-sealed.js']) expect([f, fs.existsSync(path.join(app, f))]).toEqual([f, true]);
  const cmd = JSON.parse(final.find(([, k]) => k === 'CMD')![2]) as string[];
  const env = Object.fromEntries(
    final
      .filter(([, k]) => k === 'ENV')
      .flatMap(([, , rest]) => rest.split(/\s+/).map((kv) => kv.split('=') as [string, string]))
      .map(([k, v]) => [k, v.replace(/^\/app\//, `${app}/`).replace(/^\/data\//, `${work}/data/`)]),
  );
  expect(env.LOOM_WORKFLOW_BUNDLE).toBe(path.join(app, 'dist/workflow-bundle.js'));

  const taskQueue = `docker-cmd-${randomBytes(4).toString('hex')}`;
  let out = '';
  worker = spawn(cmd[0], cmd.slice(1), {
    cwd: app,
    env: { PATH: process.env.PATH, HOME: work, ...env, TEMPORAL_ADDRESS: temporalAddress(), LOOM_TASK_QUEUE: taskQueue },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  worker.stdout!.on('data', (d) => (out += d));
  worker.stderr!.on('data', (d) => (out += d));
  const spawned = Date.now();
  await until(() => (out.includes('agentloom worker connected') ? true : worker!.exitCode !== null ? Promise.reject(new Error(`the worker exited: ${out}`)) : undefined), 'the image CMD worker to connect', 120_000);
  figures.push(`CMD until the worker connected ${((Date.now() - spawned) / 1000).toFixed(1)} s`);

  const a = agent({ agent_id: 'image-check', model: scriptedModel({ turns: [{ content: 'built and running' }] }) });
  const bundle = await storeBundle(new FileBlobStore(env.LOOM_STORE_DIR), bundleOf(a));
  connection = await Connection.connect({ address: temporalAddress() });
  const client = new Client({ connection, namespace: 'default' });
  const result = await client.workflow.execute(agfReactWorkflow, { taskQueue, workflowId: `${taskQueue}-run`, args: [{ bundle, agent_id: 'image-check', input: { question: 'ok?' } }] });
  expect(result.output).toBe('built and running');
});
