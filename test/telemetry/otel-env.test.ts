/**
 * Telemetry configured the OpenTelemetry way (decisions 400-404): a worker built by
 * createAgentloomWorker in a process whose only telemetry configuration is the OTEL_* variables
 * (base endpoint, headers, protocol, service name, resource attributes) exports the `agent.run` span
 * of an agent that has no observability section to `<base>/v1/traces` on an in-process OTLP
 * receiver on 127.0.0.1, with the service name, resource attributes and header from the variables;
 * the header's value never reaches the worker's telemetry log. A tenant `telemetry` block wins over
 * the variables and over the agent's own endpoint (decision 403).
 */
import { randomBytes } from 'crypto';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import type { Worker } from '@temporalio/worker';
import { createAgentloomWorker } from '../../src/worker/create-worker';
import { agfReactWorkflow } from '../../src/workflows/react';
import { AgentTracing } from '../../src/telemetry/tracing';
import { runSpanId, runTraceId } from '../../src/telemetry/trace-ids';
import { connectTestTemporal, TestTemporal } from '../helpers/temporal';
import { until } from '../helpers/wait';
import { storeTestBundle, testStore } from '../runtime/builders';
import { compileAgent, Definitions, scripted } from '../helpers/definitions';
import { attr, otlpSpans, type OtlpSpan } from './otel-harness';

interface Request { url: string; headers: http.IncomingHttpHeaders; resource: Record<string, unknown>; spans: OtlpSpan[] }

const KEY = `k-${randomBytes(6).toString('hex')}`;
const VARS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_SERVICE_NAME', 'OTEL_RESOURCE_ATTRIBUTES', 'LOOM_WORKFLOWS_PATH'] as const;
const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));

let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let tracing: AgentTracing;
let receiver: http.Server;
const requests: Request[] = [];
const logged: string[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const doc = (req.url?.endsWith('/v1/traces') ? JSON.parse(body) : {}) as { resourceSpans?: { resource?: { attributes?: OtlpSpan['attributes'] } }[] };
      const attrs = doc.resourceSpans?.[0]?.resource ?? {};
      const resource = Object.fromEntries((attrs.attributes ?? []).map((a) => [a.key, attr(attrs, a.key)]));
      requests.push({ url: req.url ?? '', headers: req.headers, resource, spans: otlpSpans(body) });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  t = await connectTestTemporal('telemetry-otel-env');
  testStore();
  process.env.LOOM_WORKFLOWS_PATH = path.join(__dirname, '..', '..', 'src', 'workflows', 'index.ts');
  // The worker's whole telemetry configuration: the OpenTelemetry variables (a base endpoint, no path).
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  process.env.OTEL_EXPORTER_OTLP_HEADERS = `x-api-key=${KEY},x-team=agent%20platform`;
  process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
  process.env.OTEL_SERVICE_NAME = 'loom-otel-test';
  process.env.OTEL_RESOURCE_ATTRIBUTES = 'deployment.environment=test,service.namespace=agents';
  tracing = new AgentTracing({ scheduledDelayMillis: 100, log: (m) => logged.push(m) });
  worker = await createAgentloomWorker({ connection: t.nativeConnection, taskQueue: t.taskQueue, tracing });
  running = worker.run();
}, 240_000);

afterAll(async () => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
  worker?.shutdown();
  await running;
  await tracing?.shutdown();
  await t?.close();
  receiver?.close();
});

test('OTEL_* variables alone: agent.run reaches <base>/v1/traces with their service name, resource attributes and header', async () => {
  const { agent: a, bundle: compiled } = compileAgent({ agent_id: 'otel-env-agent', model: scripted({ turns: [{ content: 'done' }] }) });
  expect(a.observability).toBeUndefined();
  const bundle = await storeTestBundle(compiled);
  const workflowId = `otel-env-${randomBytes(4).toString('hex')}`;
  const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId, args: [{ bundle, agent_id: a.agent_id, input: 'go' }] });
  expect((await h.result()).output).toBe('done');
  const runId = (await h.describe()).runId;
  const traceId = runTraceId(workflowId, runId);
  const req = await until(async () => {
    await tracing.forceFlush();
    return requests.find((r) => r.spans.some((s) => s.traceId === traceId && s.name === 'agent.run'));
  }, 'the agent.run span at the collector');
  expect(req.url).toBe('/v1/traces');
  expect(req.headers['x-api-key']).toBe(KEY);
  expect(req.headers['x-team']).toBe('agent platform');
  expect(req.resource).toMatchObject({ 'service.name': 'loom-otel-test', 'deployment.environment': 'test', 'service.namespace': 'agents' });
  const run = req.spans.find((s) => s.traceId === traceId && s.name === 'agent.run');
  expect(run?.spanId).toBe(runSpanId(workflowId, runId));
  expect(attr(run!, 'agent_id')).toBe('otel-env-agent');
  const model = await until(async () => {
    await tracing.forceFlush();
    return requests.flatMap((r) => r.spans).find((s) => s.traceId === traceId && s.name === 'agent.model_invocation');
  }, 'the model span at the collector');
  expect(typeof attr(model, 'input_token_count')).toBe('number');
  // Every signal is on (no switch in the agent): each goes to its own path under the base endpoint.
  expect(requests.filter((r) => r.spans.length).every((r) => r.url === '/v1/traces')).toBe(true);
  const mine = requests.filter((r) => !r.url.startsWith('/tenant/'));
  expect(mine.every((r) => ['/v1/traces', '/v1/metrics', '/v1/logs'].includes(r.url))).toBe(true);
  expect(mine.every((r) => r.headers['x-api-key'] === KEY)).toBe(true);
  expect(logged.join('\n')).not.toContain(KEY);
}, 180_000);

test('a tenant telemetry block wins over the variables: agent.run goes to the tenant base + /v1/traces with its bearer token; the agent\'s own endpoint is not followed', async () => {
  const tokenVar = `LOOM_TEST_TENANT_OTEL_${randomBytes(4).toString('hex')}`;
  const token = `t-${randomBytes(6).toString('hex')}`;
  process.env[tokenVar] = token;
  try {
    const defs = new Definitions().tenant({
      tenant_id: 'acme',
      telemetry: { exporter: 'otlp', endpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/tenant`, credentials_ref: 'otel-token' },
      secrets: { 'otel-token': { env: tokenVar } },
    });
    const { agent: a, bundle: compiled } = compileAgent({
      agent_id: 'otel-tenant-agent',
      model: scripted({ turns: [{ content: 'ok' }] }),
      front: { observability: { tracing: { endpoint: 'http://127.0.0.1:9/v1/traces', sampling_rate: 1 }, metrics: { enabled: false }, logs: { enabled: false } } },
    }, defs);
    expect(a.tenant).toMatchObject({ tenant_id: 'acme', secrets: { 'otel-token': { env: tokenVar } } });
    const bundle = await storeTestBundle(compiled);
    const workflowId = `otel-tenant-${randomBytes(4).toString('hex')}`;
    const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId, args: [{ bundle, agent_id: a.agent_id, input: 'go' }] });
    expect((await h.result()).output).toBe('ok');
    const traceId = runTraceId(workflowId, (await h.describe()).runId);
    const req = await until(async () => {
      await tracing.forceFlush();
      return requests.find((r) => r.spans.some((s) => s.traceId === traceId && s.name === 'agent.run'));
    }, 'the agent.run span at the tenant collector');
    expect(req.url).toBe('/tenant/v1/traces');
    expect(req.headers.authorization).toBe(`Bearer ${token}`);
    expect(req.headers['x-api-key']).toBe(KEY);
    expect(logged.some((m) => m.includes('otel-tenant-agent') && m.includes('is not followed'))).toBe(true);
    expect(logged.join('\n')).not.toContain(token);
  } finally {
    delete process.env[tokenVar];
  }
}, 180_000);
