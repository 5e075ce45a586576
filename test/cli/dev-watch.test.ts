/**
 * `loom dev` watches its embedded Temporal server: the server process is SIGKILLed under a real
 * `loom dev` (a child process, as a user runs it). It says so on stderr at once and removes
 * .loom/dev.json; then it restarts the server on the same SQLite file and address, writes dev.json
 * back, and a run that was waiting for approval goes on to its result. With LOOM_DEV_RESTARTS=0 it
 * exits 1 with the reason instead. Every wait is on a condition (output, files, processes).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { freePort } from '../../src/platform/temporal-dev-server';
import { DEMO_REGISTRY, LoomProcess, STACK_TRACE, json, spawnCli, until, userEnv, workflowBundleEnv } from './harness';

const homes: string[] = [];
const devs: LoomProcess[] = [];
afterAll(async () => {
  for (const d of devs) {
    if (d.child.exitCode === null) {
      d.child.kill('SIGKILL');
      await d.done;
    }
  }
  for (const h of homes) fs.rmSync(h, { recursive: true, force: true });
});

async function devEnv(extra: NodeJS.ProcessEnv = {}): Promise<{ env: NodeJS.ProcessEnv; home: string }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cli-dev-watch-'));
  homes.push(home);
  return { home, env: userEnv({ LOOM_HOME: home, LOOM_UI_PORT: String(await freePort()), ...workflowBundleEnv(), ...extra }) };
}

async function startDev(env: NodeJS.ProcessEnv): Promise<LoomProcess> {
  const p = spawnCli(['dev'], env);
  devs.push(p);
  await until('loom dev to start its server and worker', () => {
    if (p.child.exitCode !== null) throw new Error(`loom dev exited ${p.child.exitCode}: ${p.err()}`);
    return /worker polling task queue/.test(p.out()) ? true : undefined;
  }, 120_000);
  return p;
}

/** The pid of the `temporal server start-dev` process `loom dev` (pid) runs. */
function serverPid(pid: number): number | undefined {
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return children.find((c) => {
    try {
      return fs.readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('start-dev');
    } catch {
      return false;
    }
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('the server SIGKILLed under loom dev: a stderr line at once, the server restarted on the same SQLite file and address (dev.json back), and a waiting run resumes', async () => {
  const { env, home } = await devEnv();
  const loom = (args: string[]) => spawnCli(args, env).done;
  const dev = await startDev(env);
  const devFile = path.join(home, 'dev.json');
  const info = JSON.parse(fs.readFileSync(devFile, 'utf8')) as { address: string; pid: number };

  const started = await loom(['start', 'trip-planner', '--registry', DEMO_REGISTRY]);
  expect(started).toMatchObject({ code: 0, err: '' });
  const id = started.out.trim();
  await until('the run to wait for approval', async () => {
    const s = json(await loom(['status', id, '--json']));
    return s.state === 'waiting_for_approval' ? s : undefined;
  });

  const first = serverPid(dev.child.pid!);
  expect(first).toBeDefined();
  process.kill(first!, 'SIGKILL');
  const line = await until('loom dev to report the dead server', () => /^loom dev: the Temporal dev server \(pid (\d+)\) died \(signal SIGKILL\); its log: .+temporal-dev\.log$/m.exec(dev.err()) ?? undefined, 10_000, 20);
  expect(Number(line[1])).toBe(first);
  // The next line is another write to the pipe: it may reach us a moment after the first.
  await until('loom dev to say it restarts the server', () => (/^loom dev: restarting it on the same SQLite file \(restart 1 of 3 within 10 minutes\)$/m.test(dev.err()) ? true : undefined), 10_000, 20);

  // Restarted: a new server process at the same address, dev.json written back, loom dev still running.
  await until('the restart', () => (/Temporal dev server restarted \(pid \d+\) at 127\.0\.0\.1:\d+; runs resume/.test(dev.err()) ? true : undefined), 120_000);
  const second = serverPid(dev.child.pid!);
  expect(second).toBeDefined();
  expect(second).not.toBe(first);
  expect(alive(first!)).toBe(false);
  expect(JSON.parse(fs.readFileSync(devFile, 'utf8'))).toEqual(info);
  expect(dev.child.exitCode).toBeNull();

  // The run is still there (same SQLite file) and goes on once approved.
  const after = await until('loom status to answer after the restart', async () => {
    const r = await loom(['status', id, '--json']);
    return r.code === 0 ? json(r) : undefined;
  }, 60_000);
  expect(after).toMatchObject({ workflow_id: id, temporal_status: 'RUNNING', state: 'waiting_for_approval' });
  expect(await loom(['approve', id, 'call_1_0'])).toMatchObject({ code: 0, out: 'approved call_1_0\n' });
  const res = await loom(['result', id, '--json']);
  expect(res.code).toBe(0);
  expect(JSON.parse(res.out)).toMatchObject({ destination: 'Lisbon', total_cost_eur: 660, itinerary_saved: { path: 'itinerary.md' } });

  dev.child.kill('SIGTERM');
  const r = await dev.done;
  expect({ code: r.code, stack: STACK_TRACE.test(r.err + r.out) }).toEqual({ code: 0, stack: false });
  expect(fs.existsSync(devFile)).toBe(false);
  expect(alive(second!)).toBe(false);
}, 300_000);

test('with LOOM_DEV_RESTARTS=0 the server SIGKILLed under loom dev makes it exit 1 with the reason, dev.json removed', async () => {
  const { env, home } = await devEnv({ LOOM_DEV_RESTARTS: '0' });
  const dev = await startDev(env);
  const pid = serverPid(dev.child.pid!);
  expect(pid).toBeDefined();
  process.kill(pid!, 'SIGKILL');
  const r = await dev.done;
  expect({ code: r.code, stack: STACK_TRACE.test(r.err + r.out) }).toEqual({ code: 1, stack: false });
  expect(r.err).toContain(`loom dev: the Temporal dev server (pid ${pid}) died (signal SIGKILL); its log: `);
  expect(r.err).toContain('loom dev: not restarting the Temporal dev server: restarts are off (LOOM_DEV_RESTARTS=0); stopping\n');
  expect(r.err).toMatch(/loom dev: worker stopped, exit 1\n$/);
  expect(r.out).not.toContain('worker and server stopped');
  expect(fs.existsSync(path.join(home, 'dev.json'))).toBe(false);
}, 300_000);
