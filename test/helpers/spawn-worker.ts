/**
 * Start test/helpers/worker-process.ts as a separate OS process, wait for its READY line, and
 * SIGKILL it. Every spawned process is tracked: call killAllWorkers() in afterAll (a process
 * 'exit' hook also SIGKILLs survivors, and the child exits by itself when its stdin closes).
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { temporalAddress, workflowBundlePath } from './temporal';
import { transpiledWorkerScript } from './transpiled-worker';

const SCRIPT = path.join(__dirname, 'worker-process.ts');
const ROOT = path.resolve(__dirname, '..', '..');

export interface WorkerProcessOptions {
  taskQueue: string;
  ledgerDir: string;
  /** Shared blob store (LOOM_STORE_DIR of the test process by default). */
  storeDir?: string;
  name?: string;
  /** Block inside every ledger_append call this long (so the test can kill the worker mid-call). */
  blockSeconds?: number;
  /** Call ids that block before applying their effect (the others block after it). */
  blockBefore?: string[];
  readyTimeoutMs?: number;
  /** The process's working folder (default: the repository root). */
  cwd?: string;
  /** Extra environment (e.g. LOOM_STORE_URL, LOOM_HOME for a cluster layout). */
  env?: NodeJS.ProcessEnv;
  /**
   * Run the worker process and the sources it loads transpiled once by SWC (test/helpers/transpiled-worker.ts)
   * instead of through ts-node: the same sources, ~5 s less CPU a start. Default: transpiled; `false`
   * runs the worker through ts-node.
   */
  transpiled?: boolean;
}

export interface WorkerProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  /** stdout + stderr so far (for failure messages). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL (no graceful shutdown, no chance to finish or report anything) and wait for the exit. */
  kill(): Promise<void>;
  alive(): boolean;
}

const live = new Set<ChildProcess>();
const spawned: number[] = [];

function killSync(c: ChildProcess): void {
  if (c.exitCode === null && c.signalCode === null) {
    try {
      c.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

process.on('exit', () => {
  for (const c of live) killSync(c);
});

export async function spawnWorker(opts: WorkerProcessOptions): Promise<WorkerProcess> {
  const name = opts.name ?? `worker-${live.size + 1}`;
  const storeDir = opts.storeDir ?? process.env.LOOM_STORE_DIR;
  if (!storeDir) throw new Error('spawnWorker: no storeDir and LOOM_STORE_DIR is not set');
  fs.mkdirSync(opts.ledgerDir, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOOM_TEST_TEMPORAL_ADDRESS: temporalAddress(),
    LOOM_WORKFLOW_BUNDLE: workflowBundlePath(),
    LOOM_TASK_QUEUE: opts.taskQueue,
    LOOM_STORE_DIR: storeDir,
    LOOM_CRASH_LEDGER_DIR: opts.ledgerDir,
    LOOM_CRASH_WORKER_NAME: name,
    LOOM_CRASH_BLOCK_SECONDS: String(opts.blockSeconds ?? 0),
    LOOM_CRASH_BLOCK_BEFORE: (opts.blockBefore ?? []).join(','),
    TS_NODE_TRANSPILE_ONLY: 'true',
    TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.json'),
    ...(opts.env ?? {}),
  };
  delete env.LOOM_WORKFLOWS_PATH;
  delete env.NODE_OPTIONS;
  // ts-node resolved from the repository, so a worker may run in any working folder.
  const args = opts.transpiled !== false ? [await transpiledWorkerScript()] : ['-r', require.resolve('ts-node/register'), SCRIPT];
  const child = spawn(process.execPath, args, { cwd: opts.cwd ?? ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  live.add(child);
  if (child.pid) spawned.push(child.pid);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  const timeoutMs = opts.readyTimeoutMs ?? 120_000; // a worker process bundles every workflow first: slow on a loaded 2-core machine
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => {
      killSync(child);
      reject(new Error(`worker ${name} not READY after ${timeoutMs} ms; output:\n${out}`));
    }, timeoutMs);
    const onData = (): void => {
      if (/^READY \d+$/m.test(out)) {
        clearTimeout(t);
        child.stdout!.off('data', onData);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(t);
      reject(new Error(`worker ${name} exited before READY (code ${code}, signal ${signal}); output:\n${out}`));
    });
  });
  const wp: WorkerProcess = {
    name,
    pid: child.pid!,
    child,
    output: () => out,
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
    async kill() {
      killSync(child);
      const r = await exited;
      if (r.signal !== 'SIGKILL' && r.code === null) throw new Error(`worker ${name} exited unexpectedly: ${JSON.stringify(r)}`);
    },
  };
  return wp;
}

/** SIGKILL every worker process this module started that is still running; wait until they are gone. */
export async function killAllWorkers(): Promise<void> {
  const all = [...live];
  await Promise.all(
    all.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', () => resolve());
          killSync(c);
        }),
    ),
  );
}

/** Number of worker processes started here that are still alive. */
export function liveWorkers(): number {
  return [...live].filter((c) => c.exitCode === null && c.signalCode === null).length;
}

/** Pids of worker processes started here that the OS still knows (should be none after killAllWorkers). */
export function survivingPids(): number[] {
  return spawned.filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
}

export { until } from './wait';

/** Ledger files written by worker-process.ts. */
export interface LedgerEffect {
  key: string;
  account: string;
  amount: number;
  worker: string;
}

export function readEffects(ledgerDir: string): LedgerEffect[] {
  const f = path.join(ledgerDir, 'effects.log');
  if (!fs.existsSync(f)) return [];
  return fs
    .readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LedgerEffect);
}

export interface Marker {
  kind: string;
  key: string;
  worker: string;
  attempt: number;
}

export function readMarkers(ledgerDir: string): Marker[] {
  const f = path.join(ledgerDir, 'markers.log');
  if (!fs.existsSync(f)) return [];
  return fs
    .readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [kind, key] = l.split(' ');
      return { kind, key, worker: /worker=(\S+)/.exec(l)?.[1] ?? '', attempt: Number(/attempt=(\d+)/.exec(l)?.[1] ?? 0) };
    });
}
