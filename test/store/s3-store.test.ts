/**
 * The s3 store backend end to end on the real dev server, against a real S3-compatible server
 * (gofakes3, test/helpers/s3.ts): a worker (this process) and the `loom` CLI (a child process with
 * its own folders) share only LOOM_STORE_URL=s3://… and the standard AWS_* variables. A run goes end
 * to end with its bundle and conversation as objects in the bucket (listed through the S3 API, not
 * through the store). A tenant whose tenant.md routes artifacts to `type: s3` (another bucket, its
 * access key behind credentials_ref) gets its run's artifacts in that bucket; `loom artifacts`
 * reads them; `loom artifacts purge` (the purge workflow on the worker) deletes expired ones there.
 * What this cannot prove: gofakes3 accepts any signature (s3-signing.unit.test.ts checks what the
 * client sends) and is not AWS (no IAM, no KMS, no eventual-consistency effects).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { Worker } from '@temporalio/worker';
import { connectTestTemporal, temporalAddress, workflowBundlePath, TestTemporal } from '../helpers/temporal';
import { startTestS3, TestS3, TEST_S3_KEY_ID, TEST_S3_SECRET } from '../helpers/s3';
import { spawnCli, userEnv, STACK_TRACE, useBuiltCli } from '../cli/harness';
import { createAgentloomWorker } from '../../src/worker/create-worker';
import { closeOpenStores, openRoute, openStore } from '../../src/store';
import { agfReactWorkflow } from '../../src/workflows/react';
import { storeBundle } from '../../src/activities/blob-store';
import type { CompiledTenant } from '../../src/compiled/types';
import { archivistBundle } from '../artifacts/archivist';

jest.setTimeout(300_000);

const REGISTRY = path.join(__dirname, 'fixtures', 'registry');
const SAVED = ['LOOM_STORE_URL', 'LOOM_STORE_DIR', 'LOOM_HOME', 'LOOM_WORKFLOW_BUNDLE', 'LOOM_TASK_QUEUE', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'].map((k) => [k, process.env[k]] as const);
const KEY_ENV = `LOOM_TEST_S3_ARTIFACT_KEY_${randomBytes(3).toString('hex').toUpperCase()}`;
const DAY = 86_400_000;

let s3: TestS3;
let url: string;
let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let workerHome: string;
let cliHome: string;
let cliCwd: string;

function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return userEnv({
    TEMPORAL_ADDRESS: temporalAddress(),
    LOOM_TASK_QUEUE: t.taskQueue,
    LOOM_HOME: cliHome,
    LOOM_STORE_URL: url,
    LOOM_WORKFLOW_BUNDLE: workflowBundlePath(),
    AWS_ACCESS_KEY_ID: TEST_S3_KEY_ID,
    AWS_SECRET_ACCESS_KEY: TEST_S3_SECRET,
    ...extra,
  });
}

async function keys(bucket: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  let token: string | undefined;
  do {
    const r = await s3.client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }));
    for (const o of r.Contents ?? []) out.push(o.Key!);
    token = r.IsTruncated ? r.NextContinuationToken : undefined;
  } while (token);
  return out;
}

async function object(bucket: string, key: string): Promise<string> {
  const r = await s3.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await r.Body!.transformToByteArray()).toString('utf8');
}

// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => {
  s3 = await startTestS3('loom-s3-store');
  await s3.bucket('loom-shared');
  await s3.bucket('acme-artifacts');
  url = s3.urlFor('loom-shared', 'cluster');
  workerHome = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-s3-worker-home-'));
  cliHome = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-s3-cli-home-'));
  cliCwd = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-s3-cli-cwd-'));
  process.env.LOOM_STORE_URL = url;
  delete process.env.LOOM_STORE_DIR;
  process.env.LOOM_HOME = workerHome;
  process.env.LOOM_WORKFLOW_BUNDLE = workflowBundlePath();
  process.env.AWS_ACCESS_KEY_ID = TEST_S3_KEY_ID;
  process.env.AWS_SECRET_ACCESS_KEY = TEST_S3_SECRET;
  // The tenant store's access key, read by the worker from the secret store (credentials_ref → env var).
  process.env[KEY_ENV] = 'acmekey:acme-secret-value';
  t = await connectTestTemporal('s3store');
  worker = await createAgentloomWorker({ connection: t.nativeConnection, taskQueue: t.taskQueue });
  running = worker.run();
});

afterAll(async () => {
  if (worker) {
    worker.shutdown();
    await running;
  }
  await t?.close();
  await closeOpenStores();
  await s3?.stop();
  delete process.env[KEY_ENV];
  for (const d of [workerHome, cliHome, cliCwd]) if (d) fs.rmSync(d, { recursive: true, force: true });
  for (const [k, v] of SAVED) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

test('LOOM_STORE_URL=s3://…: loom run from another folder completes; the bundle and the conversation are objects in the bucket', async () => {
  const r = await spawnCli(['run', 'store-echo', '--registry', REGISTRY], cliEnv(), cliCwd).done;
  expect({ code: r.code, stack: STACK_TRACE.test(r.err), err: r.code ? r.err : '' }).toEqual({ code: 0, stack: false, err: '' });
  expect(JSON.parse(r.out)).toEqual({ echoed: 'hello from the CLI' });
  const id = /started (\S+)/.exec(r.err)?.[1];
  expect(id).toBeDefined();
  // No folder store anywhere.
  expect(fs.existsSync(path.join(cliHome, 'store'))).toBe(false);
  expect(fs.existsSync(path.join(cliCwd, '.loom'))).toBe(false);
  expect(fs.existsSync(path.join(workerHome, 'store'))).toBe(false);
  const input = (await t.client.workflow.getHandle(id!).fetchHistory()).events?.[0].workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const bundleHash = JSON.parse(Buffer.from(input!.data!).toString('utf8')).bundle.hash as string;
  const blobs = await keys('loom-shared', 'cluster/blobs/');
  expect(blobs).toContain(`cluster/blobs/${bundleHash.slice('sha256:'.length)}`);
  const messages: string[] = [];
  for (const k of blobs) {
    const text = await object('loom-shared', k);
    if (text.includes('agentloom.msg/v1')) messages.push(text);
  }
  expect(messages.length).toBeGreaterThanOrEqual(2);
  expect(messages.some((m) => m.includes('hello from the CLI'))).toBe(true);
  // No credential in any payload.
  const hist = JSON.stringify(await t.client.workflow.getHandle(id!).fetchHistory());
  expect(hist).not.toContain(TEST_S3_SECRET);
});

test('tenant artifact_store type s3: artifacts in the tenant bucket, read by loom artifacts, expired ones purged there', async () => {
  const tenant: CompiledTenant = {
    tenant_id: 'acme',
    artifact_store: { type: 's3', bucket: 'acme-artifacts', prefix: 'loom', endpoint: s3.endpoint, credentials_ref: 'artifact-key' },
    secrets: { 'artifact-key': { env: KEY_ENV } },
  };
  const secret = `TENANT-${randomBytes(5).toString('hex')}`;
  const bundle = await storeBundle(openStore(), archivistBundle(tenant));
  const id = `s3-art-${randomBytes(4).toString('hex')}`;
  await t.client.workflow.execute(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: id, args: [{ bundle, agent_id: 'archivist', input: { q: secret } }] });

  // In the tenant bucket (listed through the S3 API), not in the shared one.
  expect((await keys('acme-artifacts', `loom/artifacts/${id}/`)).sort()).toEqual([`loom/artifacts/${id}/input%2Ejson`, `loom/artifacts/${id}/intermediate%2Ejson`, `loom/artifacts/${id}/output%2Ejson`]);
  expect(JSON.parse(await object('acme-artifacts', `loom/artifacts/${id}/output%2Ejson`))).toEqual({ output: { answer: `done ${secret}` } });
  expect(await keys('loom-shared', 'cluster/artifacts/')).toEqual([]);

  // The CLI (another process) finds them through the route the shared store keeps.
  const list = await spawnCli(['artifacts', id, '--json'], cliEnv({ [KEY_ENV]: 'acmekey:acme-secret-value' }), cliCwd).done;
  expect({ code: list.code, err: list.err }).toEqual({ code: 0, err: '' });
  expect((JSON.parse(list.out) as Array<{ name: string }>).map((i) => i.name).sort()).toEqual(['input.json', 'intermediate.json', 'output.json']);
  const out = await spawnCli(['artifacts', id, '--get', 'output.json'], cliEnv({ [KEY_ENV]: 'acmekey:acme-secret-value' }), cliCwd).done;
  expect(JSON.parse(out.out)).toEqual({ output: { answer: `done ${secret}` } });
  // Without the tenant key the CLI says which credentials_ref and where it looked.
  const noKey = await spawnCli(['artifacts', id], cliEnv(), cliCwd).done;
  expect(noKey.code).not.toBe(0);
  expect(noKey.err).toContain(`credentials_ref \`artifact-key\`: the environment variable ${KEY_ENV} is not set`);
  expect(noKey.err).not.toMatch(STACK_TRACE);

  // The route record holds no secret; neither does the history.
  const shared = await keys('loom-shared', 'cluster/records/');
  for (const k of shared) expect(await object('loom-shared', k)).not.toContain('acme-secret-value');
  expect(JSON.stringify(await t.client.workflow.getHandle(id).fetchHistory())).not.toContain('acme-secret-value');

  // The purge workflow (on the worker) deletes expired artifacts in the tenant bucket and keeps the rest.
  const tenantStore = openRoute({ url: `s3://acme-artifacts/loom?endpoint=${encodeURIComponent(s3.endpoint)}`, credentials_ref: 'artifact-key', credentials: { env: KEY_ENV } });
  const now = Date.now();
  const put = (run: string, expires: number) =>
    tenantStore.putArtifact({ run_id: run, name: 'output.json', kind: 'output', retention_class: 'standard', agent_id: 'a', created_at: new Date(now - 100 * DAY).toISOString(), expires_at: new Date(expires).toISOString(), bytes: 2, content: Buffer.from('{}') });
  const old = `old-${randomBytes(3).toString('hex')}`;
  const fresh = `fresh-${randomBytes(3).toString('hex')}`;
  await put(old, now - DAY);
  await put(fresh, now + DAY);
  expect(await keys('acme-artifacts', `loom/artifacts/${old}/`)).toHaveLength(1);
  const purge = await spawnCli(['artifacts', 'purge'], cliEnv(), cliCwd).done;
  expect(purge.err).toBe('');
  expect(purge.out).toMatch(/^purged [1-9]\d* expired artifact\(s\) from .*s3:\/\/acme-artifacts\/loom at http:\/\/127\.0\.0\.1:\d+/);
  expect(await keys('acme-artifacts', `loom/artifacts/${old}/`)).toEqual([]);
  expect(await keys('acme-artifacts', `loom/artifacts/${fresh}/`)).toEqual([`loom/artifacts/${fresh}/output%2Ejson`]);
  expect((await keys('acme-artifacts', `loom/artifacts/${id}/`)).length).toBe(3);
});
