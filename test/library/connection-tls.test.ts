/**
 * Temporal Cloud and TLS clusters by configuration only: the production worker (worker.ts as the
 * package ships it, dist/worker.js) and the `loom` CLI, each in its own process, reach the suite's dev server through a TLS and an mTLS
 * terminating proxy on 127.0.0.1 (test/library/tls-proxy.ts, certificates made by the test),
 * configured by `@temporalio/envconfig`'s TEMPORAL_* variables, by a profile of a Temporal config
 * file, and by the CLI's connection flags. An API key set the same way reaches the proxy as the
 * `authorization` header of every call, the client's and the worker's, and is printed nowhere.
 * The three tests run at the same time (test.concurrent), each through a proxy of its own (the
 * flags test has its own mTLS proxy), so the calls and refusals each one counts are its own.
 */
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { temporalAddress, workflowBundlePath } from '../helpers/temporal';
import { until } from '../helpers/wait';
import { EXAMPLES, LoomProcess, ROOT, show, spawnCli, spawnProcess, userEnv, useBuiltCli } from '../cli/harness';
import { Certificates, makeCertificates, startTlsProxy, TlsProxy } from './tls-proxy';
import { builtWorkerJs } from '../helpers/built-cli';

const SEQUENTIAL = ['--registry', path.join(EXAMPLES, 'orchestrators', 'sequential')];
const SERVICE = '/temporal.api.workflowservice.v1.WorkflowService/';
const API_KEY = `agentloom-test-key-${randomUUID()}`;

let dir: string;
let certs: Certificates;
let tlsProxy: TlsProxy;
let mtlsProxy: TlsProxy;
/** The connection flags test's own mTLS proxy (its calls and refusals counted apart from the profile test's). */
let flagsProxy: TlsProxy;
// The CLI and the worker as the package ships them (test/helpers/built-cli.ts): they start several
// times faster than from source; LOOM_TEST_CLI_FROM_SOURCE=1 runs worker.ts and the CLI from source.
let workerJs: string | undefined;
beforeAll(async () => {
  await useBuiltCli();
  if (process.env.LOOM_TEST_CLI_FROM_SOURCE !== '1') workerJs = await builtWorkerJs();
}, 600_000);
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-tls-'));
  certs = makeCertificates(dir);
  tlsProxy = await startTlsProxy({ upstream: temporalAddress(), certs, mutual: false });
  mtlsProxy = await startTlsProxy({ upstream: temporalAddress(), certs, mutual: true });
  flagsProxy = await startTlsProxy({ upstream: temporalAddress(), certs, mutual: true });
});
afterAll(async () => {
  await tlsProxy?.close();
  await mtlsProxy?.close();
  await flagsProxy?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** worker.ts and `loom start` + `loom result` of a run with no model, all with `connection` only; every line they printed. */
async function runThrough(connection: NodeJS.ProcessEnv): Promise<string[]> {
  const home = fs.mkdtempSync(path.join(dir, 'home-'));
  const env = userEnv({ ...connection, HOME: home, LOOM_TASK_QUEUE: `library-tls-${randomUUID()}`, LOOM_HOME: home, LOOM_STORE_DIR: path.join(home, 'store') });
  const worker: LoomProcess = workerJs
    ? spawnProcess(process.execPath, [workerJs], { ...env, LOOM_WORKFLOW_BUNDLE: workflowBundlePath() })
    : spawnProcess(process.execPath, ['-r', require.resolve('ts-node/register'), path.join(ROOT, 'worker.ts')], {
      ...env, LOOM_WORKFLOW_BUNDLE: workflowBundlePath(), TS_NODE_TRANSPILE_ONLY: 'true', TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.json'),
    });
  try {
    await until(() => (/agentloom worker connected to/.test(worker.out()) ? true : worker.child.exitCode !== null ? false : undefined), 'worker.ts to connect', 120_000);
    expect(worker.out() + worker.err()).toMatch(/agentloom worker connected to 127\.0\.0\.1:\d+ \(namespace default, m?TLS/);
    const started = await spawnCli(['start', 'pipeline', ...SEQUENTIAL], env).done;
    expect(started).toMatchObject({ code: 0, err: '' });
    const result = await spawnCli(['result', started.out.trim()], env).done;
    expect({ code: result.code, why: show(result) }).toMatchObject({ code: 0 });
    worker.child.kill('SIGTERM');
    const end = await worker.done;
    return [started.out, started.err, result.out, result.err, end.out, end.err];
  } finally {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  }
}

function paths(proxy: TlsProxy): Set<string> {
  return new Set(proxy.calls.map((c) => c.path.replace(SERVICE, '')));
}

test.concurrent('TLS and an API key from TEMPORAL_* variables: the worker and the CLI run an agent through the proxy; the key is sent on every call and printed nowhere', async () => {
  const printed = await runThrough({ TEMPORAL_ADDRESS: tlsProxy.address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.ca, TEMPORAL_TLS_SERVER_NAME: 'localhost', TEMPORAL_API_KEY: API_KEY });
  // The client started the run and the worker polled and completed its tasks, all through the proxy.
  for (const call of ['StartWorkflowExecution', 'PollWorkflowTaskQueue', 'RespondWorkflowTaskCompleted', 'GetWorkflowExecutionHistory']) expect(paths(tlsProxy)).toContain(call);
  expect(tlsProxy.calls.filter((c) => c.authorization !== `Bearer ${API_KEY}`)).toEqual([]);
  for (const text of printed) expect(text).not.toContain(API_KEY);
});

test.concurrent('mTLS from a profile of a Temporal config file (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE): every call carries the client certificate', async () => {
  const file = path.join(dir, 'temporal.toml');
  fs.writeFileSync(file, [
    '[profile.cloud]', `address = "${mtlsProxy.address}"`, 'namespace = "default"',
    '[profile.cloud.tls]', `client_cert_path = "${certs.clientCert}"`, `client_key_path = "${certs.clientKey}"`, `server_ca_cert_path = "${certs.ca}"`, 'server_name = "localhost"',
  ].join('\n'));
  await runThrough({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'cloud' });
  for (const call of ['StartWorkflowExecution', 'PollWorkflowTaskQueue', 'RespondWorkflowTaskCompleted']) expect(paths(mtlsProxy)).toContain(call);
  expect(mtlsProxy.calls.filter((c) => c.clientSubject !== 'agentloom-test-client')).toEqual([]);
});

test.concurrent('the CLI\'s connection flags (--address, --tls-ca-path, --tls-cert-path, --tls-key-path): loom list makes one call; without the client certificate the mTLS proxy refuses it', async () => {
  const env = userEnv({ HOME: dir });
  const flags = ['--address', flagsProxy.address, '--tls-ca-path', certs.ca, '--tls-server-name', 'localhost'];
  const before = flagsProxy.calls.length;
  const listed = await spawnCli(['list', '--limit', '1', ...flags, '--tls-cert-path', certs.clientCert, '--tls-key-path', certs.clientKey], env).done;
  expect({ code: listed.code, why: show(listed) }).toMatchObject({ code: 0 });
  // The listing is the command's only call: no GetSystemInfo round trip before it (the connection waits for the channel only).
  expect(flagsProxy.calls.slice(before).map((c) => c.path.replace(SERVICE, ''))).toEqual(['ListWorkflowExecutions']);
  const refusedBefore = flagsProxy.refused;
  const refused = await spawnCli(['list', '--limit', '1', ...flags], env).done;
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(/^loom: cannot reach Temporal at 127\.0\.0\.1:\d+ \(namespace default, TLS\)/);
  expect(flagsProxy.refused).toBeGreaterThan(refusedBefore);
});

test.concurrent('an API key the cluster refuses: loom list and loom status fail on their first call with the cluster\'s reason, and the key is printed nowhere', async () => {
  const keyed = await startTlsProxy({ upstream: temporalAddress(), certs, mutual: false, apiKey: API_KEY });
  try {
    const wrongKey = `agentloom-wrong-key-${randomUUID()}`;
    const env = userEnv({ HOME: dir, TEMPORAL_ADDRESS: keyed.address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.ca, TEMPORAL_TLS_SERVER_NAME: 'localhost', TEMPORAL_API_KEY: wrongKey });
    const [listed, status] = await Promise.all([spawnCli(['list', '--limit', '1'], env).done, spawnCli(['status', 'no-such-run'], env).done]);
    expect({ code: listed.code, out: listed.out, err: listed.err }).toEqual({ code: 1, out: '', err: 'loom: Failed to list workflows: the API key is not valid\n' });
    expect({ code: status.code, out: status.out }).toEqual({ code: 1, out: '' });
    expect(status.err).toMatch(/^loom: Failed to describe workflow: the API key is not valid\n$/);
    for (const r of [listed, status]) expect(r.err).not.toContain(wrongKey);
    // Each reached the cluster with the key it was given, and made no call before its own.
    expect(keyed.calls.map((c) => [c.path.replace(SERVICE, ''), c.authorization])).toEqual(expect.arrayContaining([['ListWorkflowExecutions', `Bearer ${wrongKey}`], ['DescribeWorkflowExecution', `Bearer ${wrongKey}`]]));
    expect(keyed.calls.map((c) => c.path.replace(SERVICE, ''))).not.toContain('GetSystemInfo');
  } finally {
    await keyed.close();
  }
});
