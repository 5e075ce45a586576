/**
 * A private PostgreSQL server for a test: Debian's server binaries (/usr/lib/postgresql/<version>/bin,
 * the newest version found), `initdb` in a temp dir (as the `postgres` user when the test runs as
 * root: the server refuses to run as root), password authentication, a free port on 127.0.0.1,
 * `pg_ctl start`; `stop()`/`start()` for outage tests, `destroy()` stops it and removes the dir.
 * CI installs the binaries (.ci/run); a missing install fails with the command to run.
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

/** The bin folder of the newest PostgreSQL installed under /usr/lib/postgresql. */
export function postgresBinDir(root = '/usr/lib/postgresql'): string {
  const versions = fs.existsSync(root)
    ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length) throw new Error(`no PostgreSQL server binaries under ${root}: install them (apt-get install -y postgresql), as .ci/run does`);
  return path.join(root, versions[0], 'bin');
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
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  fs.chmodSync(dir, 0o755);
  const data = path.join(dir, 'data');
  const pwfile = path.join(dir, 'pw');
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(pwfile, password + '\n');
  if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  const run = (tool: string, args: string[]): string => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
    return execFileSync(cmd, argv, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  };
  const user = 'loom';
  run('initdb', ['-D', data, '-U', user, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--no-sync']);
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
