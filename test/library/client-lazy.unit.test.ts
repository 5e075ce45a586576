/**
 * AgentloomClient.connect({ lazy: true }) opens no connection until a call needs the server: bad
 * input is refused first (what `loom start` and `loom approve` rely on to answer without a server),
 * and the first call that needs the server sees the connection error. The address given is a
 * closed port on 127.0.0.1, so any connection attempt would fail with "cannot reach Temporal".
 *
 * Each failed connection waits out the client's 10 s connect timeout, so the three tests that meet
 * one run at the same time (test.concurrent). The test that changes the environment (TEMPORAL_*,
 * LOOM_HOME) comes after them: jest runs a plain test declared after the concurrent ones only once
 * they have finished, so no concurrent connect reads the changed settings.
 */
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { AgentloomClient, RunError } from '../../src/index';
import { UsageError } from '../../src/operator/errors';

const DEMO = path.resolve(__dirname, '..', '..', 'examples', 'demo');
let address: string;
let home: string;

beforeAll(async () => {
  // A port that was free a moment ago: nothing listens on it.
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  address = `127.0.0.1:${(srv.address() as net.AddressInfo).port}`;
  await new Promise((r) => srv.close(r));
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-lazy-'));
  process.env.LOOM_STORE_DIR = path.join(home, 'store');
});
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

test('a refused input and a malformed decision are said before any connection opens', async () => {
  const loom = await AgentloomClient.connect({ connection: { address }, lazy: true, registry: DEMO });
  try {
    await expect(loom.start('trip-planner', { destination: 'Porto' })).rejects.toThrow(RunError);
    await expect(loom.start('trip-planner', undefined, { inputText: '{"destination":' })).rejects.toThrow(/--input is not valid JSON/);
    await expect(loom.approve('some-run', '')).rejects.toThrow(UsageError);
    await expect(loom.reject('some-run', 'c1', '  ')).rejects.toThrow(/rejectCall: reason/);
    await expect(loom.send('some-session', '   ')).rejects.toThrow(/non-empty text/);
    // Nothing has connected: the Temporal client does not exist yet.
    expect(() => loom.client).toThrow(/not connected yet/);
  } finally {
    await loom.close();
  }
});

test.concurrent('describeAgent and a diagram without a run need no server: no connection opens', async () => {
  const loom = await AgentloomClient.connect({ connection: { address }, lazy: true, registry: DEMO });
  try {
    expect((await loom.describeAgent('trip-planner')).agent_id).toBe('trip-planner');
    expect(await loom.diagram('trip-planner')).toContain('trip-planner');
    await expect(loom.diagram('trip-planner', { run: 'some-run' })).rejects.toThrow(`cannot reach Temporal at ${address}`);
    expect(() => loom.client).toThrow(/not connected yet/);
  } finally {
    await loom.close();
  }
});

test.concurrent('the first call that needs the server connects, and says where it could not connect', async () => {
  const loom = await AgentloomClient.connect({ connection: { address }, lazy: true, registry: DEMO });
  try {
    await expect(loom.status('some-run')).rejects.toThrow(`cannot reach Temporal at ${address}`);
  } finally {
    await loom.close();
  }
});

test.concurrent('an eager connect fails in connect()', async () => {
  await expect(AgentloomClient.connect({ connection: { address } })).rejects.toThrow(`cannot reach Temporal at ${address}`);
});

test('local "loom-dev" without a configured address or a loom dev says what to do', async () => {
  const saved = { addr: process.env.TEMPORAL_ADDRESS, home: process.env.LOOM_HOME, cfg: process.env.TEMPORAL_CONFIG_FILE };
  process.env.LOOM_HOME = home;
  delete process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_CONFIG_FILE = path.join(home, 'no-such-temporal.toml');
  try {
    await expect(AgentloomClient.connect({ local: 'loom-dev' })).rejects.toThrow(/no Temporal server: set TEMPORAL_ADDRESS to a cluster, or start `loom dev`/);
  } finally {
    for (const [k, v] of [['TEMPORAL_ADDRESS', saved.addr], ['LOOM_HOME', saved.home], ['TEMPORAL_CONFIG_FILE', saved.cfg]] as const) {
      if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  }
});
