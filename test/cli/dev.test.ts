/**
 * `loom dev` as a user runs it: the embedded server (SQLite under LOOM_HOME) and worker in the
 * foreground, found by the other commands of the same folder; Ctrl-C / SIGTERM stop it cleanly
 * (exit 0); after a restart the runs are still there and go on. Then `loom run` with no server at
 * all starts its own embedded server and worker on the same SQLite file, and stops them (exit 0).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { freePort } from '../../src/platform/temporal-dev-server';
import { DEMO_REGISTRY, LoomProcess, STACK_TRACE, json, spawnCli, until, userEnv, workflowBundleEnv } from './harness';

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cli-dev-'));
let env: NodeJS.ProcessEnv;
const loom = (args: string[]) => spawnCli(args, env).done;
let dev: LoomProcess | undefined;

beforeAll(async () => {
  // No TEMPORAL_ADDRESS: the commands find `loom dev` through LOOM_HOME/dev.json, as in a checkout.
  env = userEnv({ LOOM_HOME: home, LOOM_UI_PORT: String(await freePort()), ...workflowBundleEnv() });
});
afterAll(async () => {
  if (dev && dev.child.exitCode === null) {
    dev.child.kill('SIGKILL');
    await dev.done;
  }
  fs.rmSync(home, { recursive: true, force: true });
});

async function startDev(): Promise<LoomProcess> {
  const p = spawnCli(['dev'], env);
  await until('loom dev to print its Web UI and worker lines', () => {
    if (p.child.exitCode !== null) throw new Error(`loom dev exited ${p.child.exitCode}: ${p.err()}`);
    return /worker polling task queue/.test(p.out()) ? true : undefined;
  }, 120_000);
  return p;
}

async function stopDev(p: LoomProcess, signal: NodeJS.Signals): Promise<void> {
  p.child.kill(signal);
  const r = await p.done;
  expect({ code: r.code, signal: r.signal, stack: STACK_TRACE.test(r.err + r.out) }).toEqual({ code: 0, signal: null, stack: false });
  expect(r.out).toContain('loom dev: worker and server stopped');
  expect(fs.existsSync(path.join(home, 'dev.json'))).toBe(false);
}

test('loom dev serves the other commands, refuses a second instance, stops on SIGINT/SIGTERM with exit 0, and its runs survive a restart', async () => {
  dev = await startDev();
  expect(dev.out()).toMatch(/^Temporal dev server: 127\.0\.0\.1:\d+\nWeb UI: http:\/\/127\.0\.0\.1:\d+\n/);
  expect(dev.err()).not.toMatch(/webpack|asset workflow-bundle|\[INFO\]/);

  const second = await loom(['dev']);
  expect(second).toMatchObject({ code: 1, err: expect.stringMatching(/^loom dev: already running \(pid \d+\) at 127\.0\.0\.1:\d+\n$/) });

  const started = await loom(['start', 'trip-planner', '--registry', DEMO_REGISTRY]);
  expect(started).toMatchObject({ code: 0, err: '' });
  const id = started.out.trim();
  await until('the run to wait for approval (loom status --json)', async () => {
    const s = json(await loom(['status', id, '--json']));
    return s.state === 'waiting_for_approval' ? s : undefined;
  });

  await stopDev(dev, 'SIGTERM');
  const offline = await loom(['status', id]);
  expect(offline).toMatchObject({ code: 1, err: 'loom: no Temporal server: set TEMPORAL_ADDRESS to a cluster, or start `loom dev` in this folder first\n' });

  dev = await startDev();
  const after = json(await loom(['status', id, '--json']));
  expect(after).toMatchObject({ workflow_id: id, temporal_status: 'RUNNING', state: 'waiting_for_approval', pending_approvals: [expect.objectContaining({ call_id: 'call_1_0', tool: 'save-itinerary' })] });
  expect(await loom(['approve', id, 'call_1_0'])).toMatchObject({ code: 0, out: 'approved call_1_0\n' });
  const res = await loom(['result', id, '--json']);
  expect(res.code).toBe(0);
  expect(JSON.parse(res.out)).toMatchObject({ destination: 'Lisbon', total_cost_eur: 660, itinerary_saved: { path: 'itinerary.md' } });
  const listed = await until('the run in loom list', async () => json<{ workflow_id: string; temporal_status: string }[]>(await loom(['list', '--json'])).find((r) => r.workflow_id === id && r.temporal_status === 'COMPLETED'));
  expect(listed).toBeDefined();
  await stopDev(dev, 'SIGINT');
});

test('loom run with no server starts an embedded one and a worker, prints the answer, stops them and exits 0', async () => {
  const r = await spawnCli(['run', 'trip-planner', '--registry', DEMO_REGISTRY, '--approval-timeout', '1', '--on-approval-timeout', 'reject'], env).done;
  expect({ code: r.code, stack: STACK_TRACE.test(r.err) }).toEqual({ code: 0, stack: false });
  expect(r.err).toMatch(/^embedded Temporal server at 127\.0\.0\.1:\d+, Web UI http:\/\/127\.0\.0\.1:\d+$/m);
  // Its Web UI link lives only as long as the command: said under the link.
  expect(r.err).toMatch(/^  http:\/\/127\.0\.0\.1:\d+\/namespaces\/default\/workflows\/\S+\n  \(this server stops when the command ends; `loom dev` in this folder keeps one running, and the run with it\)$/m);
  expect(r.err).not.toMatch(/webpack|\[INFO\]|\[WARN\]/);
  expect(r.err).toMatch(/^warning: approval of save-itinerary \(call_1_0\) timed out after 1s: rejected$/m);
  // The model saw the rejection and answered without the itinerary.
  expect(JSON.parse(r.out)).toEqual({ destination: 'Lisbon', total_cost_eur: 660, itinerary_saved: null });
  expect(fs.existsSync(path.join(home, 'dev.json'))).toBe(false);
});

test('loom dev with a codec key serves a codec endpoint its Web UI is configured with, for the UI origin only', async () => {
  const keyHome = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cli-dev-codec-'));
  const uiPort = await freePort();
  const keyEnv = userEnv({ LOOM_HOME: keyHome, LOOM_UI_PORT: String(uiPort), LOOM_CODEC_KEY: `dev-2026:${Buffer.alloc(32, 3).toString('base64')}`, ...workflowBundleEnv() });
  const p = spawnCli(['dev'], keyEnv);
  try {
    await until('loom dev with a key to start', () => {
      if (p.child.exitCode !== null) throw new Error(`loom dev exited ${p.child.exitCode}: ${p.err()}`);
      return /worker polling task queue/.test(p.out()) ? true : undefined;
    }, 120_000);
    const codecUrl = /^codec endpoint: (http:\/\/127\.0\.0\.1:\d+) \(the Web UI decodes payloads with it\)$/m.exec(p.out())?.[1];
    expect(codecUrl).toBeDefined();
    // The UI server hands the endpoint to every browser that opens it.
    const settings = (await (await fetch(`http://127.0.0.1:${uiPort}/api/v1/settings`)).json()) as { Codec?: { Endpoint?: string } };
    expect(settings.Codec?.Endpoint).toBe(codecUrl);
    // A browser on the UI's origin may call it; another origin gets no CORS grant.
    const payload = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"hello"').toString('base64') };
    const call = (origin: string) => fetch(`${codecUrl}/encode`, { method: 'POST', headers: { Origin: origin, 'Content-Type': 'application/json' }, body: JSON.stringify({ payloads: [payload] }) });
    const ok = await call(`http://localhost:${uiPort}`);
    expect(ok.headers.get('access-control-allow-origin')).toBe(`http://localhost:${uiPort}`);
    const sealed = ((await ok.json()) as { payloads: { metadata: Record<string, string> }[] }).payloads[0];
    expect(Buffer.from(sealed.metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
    expect((await call('http://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
  } finally {
    p.child.kill('SIGTERM');
    const r = await p.done;
    expect({ code: r.code, stack: STACK_TRACE.test(r.err + r.out) }).toEqual({ code: 0, stack: false });
    fs.rmSync(keyHome, { recursive: true, force: true });
  }
});
