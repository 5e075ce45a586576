/**
 * Failures a workflow raises itself, with encryption on (issue 12 point 6, decision 281), on the real
 * dev server. An output guardrail (the built-in json-schema provider) blocks a final answer that is
 * not JSON, and the run's failure message quotes the answer (Node's JSON.parse error names its first
 * ten characters): "output guardrail 'answer-shape' blocked the final answer: … "<code>"… is not
 * valid JSON". That message is made in the workflow sandbox, so only the sealed bundle (built with
 * the encoding failure converter) keeps it out of the history. With a key: the code is nowhere in the
 * history (raw, hex, base64), the failure reads "Encoded failure" with encrypted attributes, the
 * encrypting client and the codec endpoint (what the Web UI calls) read the message. Without a key:
 * the plain bundle, the message is in the clear as before. Both histories replay on both bundles.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { connectTestTemporal, createTestWorker, NO_TELEMETRY_SINKS, sealedWorkflowBundlePath, TestTemporal, workflowBundlePath } from '../helpers/temporal';
import { createActivities } from '../../src/activities';
import { storeBundle } from '../../src/activities/blob-store';
import { agfReactWorkflow } from '../../src/workflows/react';
import { codecKeysFromEnv, loomDataConverter } from '../../src/codec';
import { startCodecServer } from '../../src/codec/server';
import { isSealedBundle } from '../../src/plugin/bundle';
import { FileBlobStore } from '../../src/store/file';
import { shapeBundle } from './vault-agent';
import { needles } from './needles';

const storeDir = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'wf-failures-store-'));
const SAVED = ['LOOM_CODEC_KEY', 'LOOM_ENCRYPTION', 'LOOM_STORE_DIR'].map((k) => [k, process.env[k]] as const);
const KEY = `wff-2026:${randomBytes(32).toString('base64')}`;

let t: TestTemporal;
beforeAll(async () => {
  Object.assign(process.env, { LOOM_STORE_DIR: storeDir });
  t = await connectTestTemporal('wf-failures');
});
afterAll(async () => {
  await t.close();
  for (const [k, v] of SAVED) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** Ten characters: what Node's JSON.parse error quotes of the text it could not parse. */
const codeOf = () => `Q${randomBytes(5).toString('hex').toUpperCase().slice(0, 9)}`;

const guardedBundle = () => shapeBundle('{{input.code}} is the code you asked for', { type: 'object', required: ['answer'] });

async function rawHistory(workflowId: string): Promise<temporal.api.history.v1.IHistory> {
  // The history as the server holds it: no data converter, no codec.
  const r = await t.client.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId } });
  return r.history!;
}

/** Run the guarded agent on an encrypting (or a plain) worker; the failure as its client reads it, and the raw history. */
async function failingRun(code: string, encrypting: boolean) {
  const dataConverter = encrypting ? loomDataConverter() : undefined;
  const store = new FileBlobStore(storeDir);
  const taskQueue = `${t.taskQueue}-${encrypting ? 'sealed' : 'plain'}`;
  const worker = await createTestWorker({ ...t, taskQueue }, createActivities({ store }), dataConverter ? { dataConverter } : {});
  const client = new Client({ connection: t.connection, namespace: 'default', ...(dataConverter ? { dataConverter } : {}) });
  const bundle = await storeBundle(store, guardedBundle());
  const workflowId = `wff-${encrypting ? 'sealed' : 'plain'}-${randomBytes(4).toString('hex')}`;
  const err = await worker.runUntil(async () => {
    const h = await client.workflow.start(agfReactWorkflow, { taskQueue, workflowId, args: [{ bundle, agent_id: 'shape', input: { code } }] });
    return h.result().then(() => undefined, (e: unknown) => e);
  });
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const failure = (err as WorkflowFailedError).cause!;
  const history = await rawHistory(workflowId);
  const failed = history.events!.find((e) => e.workflowExecutionFailedEventAttributes)!.workflowExecutionFailedEventAttributes!.failure!;
  return { workflowId, failure, history, failed };
}

test('with a key, a failure the workflow raises is encrypted; without, it stays plain; both replay on both bundles', async () => {
  process.env.LOOM_CODEC_KEY = KEY;
  process.env.LOOM_ENCRYPTION = 'on';
  const secret = codeOf();
  const sealed = await failingRun(secret, true);
  // The encrypting client reads the message the workflow made, quoting the answer.
  expect(sealed.failure.message).toMatch(new RegExp(`^output guardrail 'answer-shape' blocked the final answer: .*"${secret}"`));
  // The history: "Encoded failure", the attributes encrypted, the code nowhere (raw, hex, base64).
  expect(sealed.failed.message).toBe('Encoded failure');
  expect(sealed.failed.stackTrace ?? '').toBe('');
  expect(Buffer.from(sealed.failed.encodedAttributes!.metadata!.encoding!).toString()).toBe('binary/encrypted');
  const bytes = Buffer.from(temporal.api.history.v1.History.encode(sealed.history).finish());
  expect(needles(secret).filter((n) => bytes.includes(n)).map(String)).toEqual([]);

  // The Web UI's codec endpoint (loom codec-server's server) decodes the failure's attributes.
  const srv = await startCodecServer({ keys: codecKeysFromEnv(), origins: ['http://localhost:8233'] });
  try {
    const p = sealed.failed.encodedAttributes!;
    const wire = { payloads: [{ metadata: Object.fromEntries(Object.entries(p.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')])), data: Buffer.from(p.data!).toString('base64') }] };
    const r = await fetch(`${srv.url}/decode`, { method: 'POST', headers: { Origin: 'http://localhost:8233', 'Content-Type': 'application/json', 'X-Namespace': 'default' }, body: JSON.stringify(wire) });
    const body = (await r.json()) as { payloads: Array<{ data: string }> };
    expect(JSON.parse(Buffer.from(body.payloads[0].data, 'base64').toString())).toMatchObject({ message: sealed.failure.message });
  } finally {
    await srv.close();
  }

  // Without a key: the plain bundle, the message in the clear as before.
  delete process.env.LOOM_CODEC_KEY;
  delete process.env.LOOM_ENCRYPTION;
  const clear = codeOf();
  const plain = await failingRun(clear, false);
  expect(plain.failed.message).toMatch(new RegExp(`^output guardrail 'answer-shape' blocked the final answer: .*"${clear}"`));
  expect(plain.failed.encodedAttributes ?? null).toBeNull();
  expect(plain.failure.message).toBe(plain.failed.message);

  // The converter does not change commands: each history replays on the plain and on the sealed bundle.
  expect([isSealedBundle(workflowBundlePath()), isSealedBundle(await sealedWorkflowBundlePath())]).toEqual([false, true]);
  process.env.LOOM_CODEC_KEY = KEY;
  const dataConverter = loomDataConverter()!; // decrypts the sealed run's history
  for (const codePath of [workflowBundlePath(), await sealedWorkflowBundlePath()]) {
    for (const run of [sealed, plain]) {
      await Worker.runReplayHistory({ workflowBundle: { codePath }, dataConverter, sinks: NO_TELEMETRY_SINKS }, run.history, run.workflowId);
    }
  }
});
