/**
 * Runs the `loom` CLI as a user does — `node bin/loom.js …` in a child process — against the suite's
 * real Temporal dev server (TEMPORAL_ADDRESS), with a worker in the test process built by
 * createAgentloomWorker on a task queue of its own (LOOM_TASK_QUEUE), and a private LOOM_HOME and
 * blob store shared by the CLI and the worker. Waits poll observable state, never sleep blindly.
 */
import { spawn, ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Worker } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { connectTestTemporal, temporalAddress, workflowBundlePath, TestTemporal } from '../helpers/temporal';
import { createAgentloomWorker } from '../../src/worker/create-worker';
import type { RunStatus } from '../../src/shared/contract';
import { statusQuery } from '../../src/shared/definitions';
import { untilOk } from '../helpers/wait';
import { builtLoomBin } from '../helpers/built-cli';

export const ROOT = path.resolve(__dirname, '..', '..');
export const LOOM_BIN = path.join(ROOT, 'bin', 'loom.js');
export const EXAMPLES = path.join(ROOT, 'examples');
export const DEMO_REGISTRY = path.join(EXAMPLES, 'demo');

export interface CliResult { code: number | null; signal: NodeJS.Signals | null; out: string; err: string }

/** A stack trace line (`    at fn (file:line:col)`) or an uncaught error banner. */
export const STACK_TRACE = /^\s+at .+[:(]\d+|Uncaught|UnhandledPromiseRejection|Channel has been shut down/m;

export interface CliHarness {
  t: TestTemporal;
  taskQueue: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** `loom ARGS…` to completion. */
  loom(args: string[], opts?: { env?: NodeJS.ProcessEnv; cwd?: string }): Promise<CliResult>;
  /** `loom ARGS…` started, for commands that wait (run, result, dev). */
  spawnLoom(args: string[], opts?: { env?: NodeJS.ProcessEnv; cwd?: string }): LoomProcess;
  handle(id: string): WorkflowHandle;
  /** Workflows ever started on this harness's task queue (visibility). */
  startedOnQueue(): Promise<string[]>;
  close(): Promise<void>;
}

export interface LoomProcess {
  child: ChildProcess;
  out(): string;
  err(): string;
  done: Promise<CliResult>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => { for (const c of live) if (c.exitCode === null) c.kill('SIGKILL'); });

/** The built CLI's bin/loom.js once a file asked for it (useBuiltCli); until then the sources run. */
let builtBin: string | undefined;

/**
 * This file's CLI processes run the CLI as the package ships it (test/helpers/built-cli.ts: the
 * shared pack's tsc build of the same sources) instead of through ts-node: for files that start it
 * dozens of times. Call it in beforeAll (it may wait for the pack); LOOM_FROM_SOURCE is then dropped
 * from the CLI's environment, which would make the package look for sources it does not ship.
 * LOOM_TEST_CLI_FROM_SOURCE=1 keeps the sources (to compare, or to debug a change in src/cli).
 */
export async function useBuiltCli(): Promise<void> {
  if (process.env.LOOM_TEST_CLI_FROM_SOURCE === '1') return;
  builtBin = await builtLoomBin();
}

/** `node bin/loom.js ARGS…` as a child process (the built package's once useBuiltCli ran). */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): LoomProcess {
  if (!builtBin) return spawnProcess(process.execPath, [LOOM_BIN, ...args], env, cwd);
  const { LOOM_FROM_SOURCE: _fromSource, ...built } = env;
  // The bundle's code cache in the unpacked package's folder (removed with it), not the user's.
  built.LOOM_COMPILE_CACHE_DIR ??= path.join(path.dirname(builtBin), '..', '.compile-cache');
  return spawnProcess(process.execPath, [builtBin, ...args], built, cwd);
}

/** Any command as a child process, its output collected. */
export function spawnProcess(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): LoomProcess {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const done = new Promise<CliResult>((resolve) => {
    child.once('close', (code, signal) => { live.delete(child); resolve({ code, signal, out, err }); });
  });
  return { child, out: () => out, err: () => err, done };
}

/** The environment of a user's shell pointed at the test server, without the test runner's own settings. */
export function userEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, USER: 'cli-test', LANG: 'C.UTF-8', LOOM_FROM_SOURCE: '1', ...extra };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env;
}

export async function startCliHarness(prefix: string): Promise<CliHarness> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `loom-cli-${prefix}-`));
  const store = path.join(home, 'store');
  // The worker in this process reads the blob store the CLI writes, and the bundle of the suite.
  process.env.LOOM_STORE_DIR = store;
  process.env.LOOM_HOME = home;
  process.env.LOOM_WORKFLOW_BUNDLE = workflowBundlePath();
  const t = await connectTestTemporal(`cli-${prefix}`);
  const worker: Worker = await createAgentloomWorker({ connection: t.nativeConnection, taskQueue: t.taskQueue });
  const running = worker.run();
  const env = userEnv({ TEMPORAL_ADDRESS: temporalAddress(), LOOM_TASK_QUEUE: t.taskQueue, LOOM_HOME: home, LOOM_STORE_DIR: store });
  const spawnLoom = (args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) => spawnCli(args, { ...env, ...opts.env }, opts.cwd);
  return {
    t,
    taskQueue: t.taskQueue,
    home,
    env,
    spawnLoom,
    loom: (args, opts) => spawnLoom(args, opts).done,
    handle: (id) => t.client.workflow.getHandle(id),
    async startedOnQueue() {
      const ids: string[] = [];
      for await (const wf of t.client.workflow.list({ query: `TaskQueue = '${t.taskQueue}'` })) ids.push(wf.workflowId);
      return ids;
    },
    async close() {
      worker.shutdown();
      await running;
      await t.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Poll until `fn` returns a value other than undefined; fails naming `what` after `ms`. */
export async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 60_000, everyMs = 150): Promise<T> {
  return untilOk(fn, what, ms, everyMs);
}

/** The run's status once `pred` holds for it. */
export function statusWhen(h: CliHarness, id: string, what: string, pred: (s: RunStatus) => boolean): Promise<RunStatus> {
  return until(what, async () => {
    const s = await h.handle(id).query(statusQuery);
    return pred(s) ? s : undefined;
  });
}

/** The workflow id `loom run` announces on stderr ("started <id>"). */
export function startedId(p: LoomProcess): Promise<string> {
  return until('loom run to print "started <id>"', () => /started (\S+)/.exec(p.err())?.[1]);
}

/** Parse the single JSON document a command printed on stdout. */
export function json<T = any>(r: CliResult): T {
  try {
    return JSON.parse(r.out) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${r.code}):\n${r.out}\nstderr:\n${r.err}`);
  }
}

/** A failure message that shows what the command printed. */
export function show(r: CliResult): string {
  return `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}\n--- stdout\n${r.out}\n--- stderr\n${r.err}`;
}

/** `fn` over `items`, at most `limit` at a time (CLI processes are CPU-heavy on a shared box), results in order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/** Workers started by the CLI (loom dev, embedded loom run) use the suite's prebuilt bundle instead of bundling again. */
export function workflowBundleEnv(): NodeJS.ProcessEnv {
  return { LOOM_WORKFLOW_BUNDLE: workflowBundlePath() };
}
