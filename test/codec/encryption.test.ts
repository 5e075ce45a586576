/**
 * Encryption on, end to end on the real dev server (issue 12 point 6 proof): a run whose input,
 * tool call and answer carry a secret-looking phrase completes through an encrypting worker and
 * client; the raw Temporal history and every file of the store are scanned for the phrase and hold
 * none of it; `loom codec-server` (the real CLI) decodes a payload of that history for the Web UI's
 * origin and the phrase is there.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { createActivities } from '../../src/activities';
import { storeBundle } from '../../src/activities/blob-store';
import { agfReactWorkflow } from '../../src/workflows/react';
import { codecKeysFromEnv, loomDataConverter } from '../../src/codec';
import { unseal } from '../../src/store/encrypted';
import { openStore } from '../../src/store';
import { vaultBundle } from './vault-agent';
import { spawnCli, userEnv } from '../cli/harness';
import { until } from '../helpers/wait';

const PHRASE = `SECRET-PASSPHRASE-${randomBytes(6).toString('hex').toUpperCase()}`;
const storeDir = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'codec-store-'));
const codecEnv = { LOOM_CODEC_KEY: `test-2026:${randomBytes(32).toString('base64')}`, LOOM_ENCRYPTION: 'on', LOOM_STORE_DIR: storeDir };
Object.assign(process.env, codecEnv);

let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let client: Client;

beforeAll(async () => {
  t = await connectTestTemporal('codec');
  worker = await createTestWorker(t, createActivities({ store: openStore() }), { dataConverter: loomDataConverter() });
  running = worker.run();
  client = new Client({ connection: t.connection, namespace: 'default', dataConverter: loomDataConverter() });
});
afterAll(async () => {
  worker.shutdown();
  await running;
  await t.close();
  for (const k of Object.keys(codecEnv)) delete process.env[k];
});

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

async function rawHistory(workflowId: string): Promise<temporal.api.history.v1.IHistory> {
  // The history as the server holds it: no data converter, no codec.
  const r = await t.client.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId } });
  return r.history!;
}

test('history and store hold no plaintext of the prompt, tool call or answer; the codec endpoint decodes it', async () => {
  const bundle = await storeBundle(openStore(), vaultBundle());
  const workflowId = `vault-${randomBytes(4).toString('hex')}`;
  const h = await client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId, args: [{ bundle, agent_id: 'vault', input: { question: `my ${PHRASE}` } }] });
  const res = await h.result();
  // The encrypting client reads the result back in the clear.
  expect(res.output).toEqual({ answer: `stored: my ${PHRASE}` });

  const history = await rawHistory(workflowId);
  const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
  expect(bytes.includes(Buffer.from(PHRASE))).toBe(false);
  const started = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
  expect(Buffer.from(started.metadata!.encoding!).toString()).toBe('binary/encrypted');
  expect(Buffer.from(started.metadata!['encryption-key-id']!).toString()).toBe('test-2026');

  const files = filesUnder(storeDir);
  expect(files.length).toBeGreaterThan(1);
  expect(files.filter((f) => fs.readFileSync(f).includes(Buffer.from(PHRASE)))).toEqual([]);
  // Control: the store does hold the conversation — sealed; opened with the key, the phrase is there.
  const keys = codecKeysFromEnv();
  expect(files.filter((f) => unseal(fs.readFileSync(f), keys, f).includes(Buffer.from(PHRASE))).length).toBeGreaterThan(0);

  // The Web UI flow: `loom codec-server` with the key, called from the UI's origin with its headers.
  const srv = spawnCli(['codec-server', '--port', '0', '--origins', 'http://localhost:8233'], userEnv({ LOOM_CODEC_KEY: codecEnv.LOOM_CODEC_KEY }));
  try {
    const url = await until(() => /codec endpoint: (http:\/\/\S+)/.exec(srv.out())?.[1], 'loom codec-server to print its endpoint', 60_000).catch(() => undefined);
    expect({ url: url ?? null, err: srv.err() }).toEqual({ url: expect.stringMatching(/^http:\/\//), err: '' });
    const wire = {
      payloads: [{
        metadata: Object.fromEntries(Object.entries(started.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
        data: Buffer.from(started.data!).toString('base64'),
      }],
    };
    const ui = { Origin: 'http://localhost:8233' };
    const pre = await fetch(`${url}/decode`, { method: 'OPTIONS', headers: { ...ui, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-namespace' } });
    expect(pre.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    const r = await fetch(`${url}/decode`, { method: 'POST', headers: { ...ui, 'Content-Type': 'application/json', 'X-Namespace': 'default' }, body: JSON.stringify(wire) });
    const body = (await r.json()) as { payloads: Array<{ data: string }> };
    expect(JSON.parse(Buffer.from(body.payloads[0].data, 'base64').toString())).toMatchObject({ agent_id: 'vault', input: { question: `my ${PHRASE}` } });
  } finally {
    srv.child.kill('SIGTERM');
    expect((await srv.done).code).toBe(0);
  }
});
