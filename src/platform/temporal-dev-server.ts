/**
 * The embedded Temporal server: `temporal server start-dev` from the project-local Temporal CLI
 * (scripts/install-temporal.sh, overridable with TEMPORAL_CLI_PATH). Used by `loom dev`/`loom run`
 * when TEMPORAL_ADDRESS is unset, and by the test suite. Never a mock of Temporal.
 */
import { spawn, execFileSync, ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import { SEARCH_ATTRIBUTES } from '../shared/contract';

/** The checkout's root (holds package.json): from src/server or, once built, dist/src/server. */
function findProjectRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'scripts', 'install-temporal.sh'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return path.resolve(start, '..', '..');
    dir = up;
  }
}
export const PROJECT_ROOT = findProjectRoot(__dirname);

export interface DevServerOptions {
  /** SQLite file; omitted = in-memory (lost on exit). */
  dbFile?: string;
  port?: number;
  uiPort?: number;
  headless?: boolean;
  /** Faster, less durable SQLite (tests). */
  fastSqlite?: boolean;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** Extra dynamic config values, e.g. `limit.historyCount.warn=...` (over DEV_SERVER_TUNING). */
  dynamicConfig?: Record<string, string | number | boolean>;
  /** Apply DEV_SERVER_TUNING (default true; bench:runtime measures without it too). */
  tuning?: boolean;
  /** Where the server's stdout/stderr go (default: `.loom/temporal-dev.log`). */
  logFile?: string;
  /** The remote codec endpoint the Web UI calls to decode payloads (`loom codec-server`); UI only. */
  uiCodecEndpoint?: string;
}

/**
 * Dynamic config the project starts its single-node dev server with (`npm run bench:runtime`
 * measures it against the server without it, in the same run). Dev server only: a production
 * cluster's history settings are its operators' choice.
 *
 * `history.transferProcessorMaxPollRPS` (Temporal's default 20): the dev server has one history
 * shard, and its transfer queue (which hands each new workflow task to matching) loads new tasks at
 * most this many times a second, so every workflow task waited for the next load: ~25 ms on average,
 * up to 50 ms, twice per agent turn (the server's `task_latency_load` metric and the histories'
 * WorkflowTaskScheduled -> Started gaps agree). At 200 a task waits at most 5 ms; loads stay
 * notification-driven, so an idle server does no more work. Activities are not affected: they
 * start within ~0.1 ms of being scheduled (handed back with the workflow task's completion).
 */
export const DEV_SERVER_TUNING: Record<string, string | number | boolean> = {
  'history.transferProcessorMaxPollRPS': 200,
};

export interface DevServer {
  address: string;
  uiUrl?: string;
  pid: number;
  process: ChildProcess;
  /** Settles when the server process ends, however it ends (a stop, a crash, a SIGKILL). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Where the server's output goes (what to read when it dies). */
  logFile: string;
  /** Start it again after it exited: same options, same SQLite file, same ports (so the address is unchanged). */
  restart(): Promise<DevServer>;
  stop(): Promise<void>;
}

/** Locate the Temporal CLI: TEMPORAL_CLI_PATH, the project-local install, or install it now. */
export function resolveTemporalCli(opts: { install?: boolean } = {}): string {
  const override = process.env.TEMPORAL_CLI_PATH;
  if (override) {
    if (!fs.existsSync(override)) throw new Error(`TEMPORAL_CLI_PATH points to ${override}, which does not exist`);
    return override;
  }
  const local = path.join(PROJECT_ROOT, '.tools', 'temporal', 'bin', 'temporal');
  if (fs.existsSync(local)) return local;
  const goBuilt = path.join(PROJECT_ROOT, '.tools', 'bin', 'temporal');
  if (fs.existsSync(goBuilt)) return goBuilt;
  if (opts.install === false) {
    throw new Error('Temporal CLI not found: run `npm run temporal:install` or set TEMPORAL_CLI_PATH');
  }
  const out = execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts', 'install-temporal.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, SKIP_TEST_SERVER: '1' },
  });
  const cli = out.trim().split('\n').pop() ?? '';
  if (!cli || !fs.existsSync(cli)) throw new Error(`installing the Temporal CLI failed (got '${cli}')`);
  return cli;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    sock.once('connect', () => { sock.destroy(); resolve(true); });
    sock.once('error', () => resolve(false));
  });
}

/** Start `temporal server start-dev` and wait until its frontend accepts connections. */
export async function startDevServer(opts: DevServerOptions = {}): Promise<DevServer> {
  const cli = resolveTemporalCli();
  const port = opts.port ?? (await freePort());
  const uiPort = opts.headless ? undefined : opts.uiPort ?? (await freePort());
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', opts.logLevel ?? 'warn'];
  if (opts.headless) args.push('--headless');
  else args.push('--ui-port', String(uiPort));
  if (!opts.headless && opts.uiCodecEndpoint) args.push('--ui-codec-endpoint', opts.uiCodecEndpoint);
  if (opts.dbFile) {
    fs.mkdirSync(path.dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile);
  }
  if (opts.fastSqlite) args.push('--sqlite-pragma', 'journal_mode=WAL', '--sqlite-pragma', 'synchronous=OFF');
  for (const name of Object.values(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=Keyword`);
  for (const [k, v] of Object.entries({ ...(opts.tuning === false ? {} : DEV_SERVER_TUNING), ...opts.dynamicConfig })) args.push('--dynamic-config-value', `${k}=${JSON.stringify(v)}`);

  const logFile = opts.logFile ?? path.join(PROJECT_ROOT, '.loom', 'temporal-dev.log');
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const log = fs.openSync(logFile, 'a');
  const child = spawn(cli, args, { stdio: ['ignore', log, log], detached: false });
  fs.closeSync(log);
  let exited: number | null = null;
  const exitedP = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => { exited = code ?? -1; resolve({ code, signal }); });
  });

  const deadline = Date.now() + 60_000;
  while (!(await canConnect(port))) {
    if (exited !== null) throw new Error(`temporal server start-dev exited with code ${exited}; see ${logFile}`);
    if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error(`Temporal dev server did not listen on ${port} within 60s; see ${logFile}`); }
    await new Promise((r) => setTimeout(r, 100));
  }
  const address = `127.0.0.1:${port}`;
  // The port accepts before the namespace and search attributes are ready: wait for them.
  await waitForNamespace(address, deadline);
  return {
    address,
    uiUrl: uiPort ? `http://127.0.0.1:${uiPort}` : undefined,
    pid: child.pid ?? -1,
    process: child,
    exited: exitedP,
    logFile,
    restart: () => startDevServer({ ...opts, port, uiPort, logFile }),
    async stop() {
      if (exited !== null) return;
      const done = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await done;
      clearTimeout(t);
    },
  };
}

async function waitForNamespace(address: string, deadline: number): Promise<void> {
  // Imported lazily so that modules which only need the CLI path do not load gRPC.
  const { Connection } = await import('@temporalio/client');
  let lastErr: unknown;
  while (Date.now() < deadline) {
    try {
      const conn = await Connection.connect({ address });
      try {
        await conn.workflowService.describeNamespace({ namespace: 'default' });
        return;
      } finally {
        await conn.close();
      }
    } catch (err) {
      lastErr = err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`Temporal dev server at ${address} never became ready: ${String(lastErr)}`);
}
