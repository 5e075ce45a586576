/**
 * docs/observability.md's trace is what a collector receives: a worker configured only through the
 * OTEL_* variables (a base endpoint, a service name) exports the trace of `loom run bill-splitter` —
 * the first agent of docs/getting-started.md, its files taken from that page — to an OTLP/HTTP
 * receiver this test runs on 127.0.0.1, and the span names and nesting equal the page's ```text trace
 * block (children in the order they started); the attributes the page names hold those values.
 */
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import type { Worker } from '@temporalio/worker';
import { createAgentloomWorker } from '../../src/worker/create-worker';
import { AgentTracing } from '../../src/telemetry/tracing';
import { connectTestTemporal, temporalAddress, type TestTemporal } from '../helpers/temporal';
import { until } from '../helpers/wait';
import { attr, otlpSpans, type OtlpSpan } from '../telemetry/otel-harness';
import { spawnCli, userEnv } from '../cli/harness';
import { ROOT, runnableBlocks } from './runnable';

jest.setTimeout(300000);

type Span = OtlpSpan & { startTimeUnixNano?: string; resource: Record<string, unknown> };

const VARS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME', 'LOOM_WORKFLOWS_PATH', 'LOOM_STORE_DIR', 'LOOM_HOME'] as const;
const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
const spans: Span[] = [];
let receiver: http.Server;
let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let tracing: AgentTracing;
let home: string;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = Buffer.concat(chunks).toString('utf8');
        const doc = JSON.parse(body) as { resourceSpans?: { resource?: { attributes?: OtlpSpan['attributes'] } }[] };
        const r = doc.resourceSpans?.[0]?.resource ?? {};
        const resource = Object.fromEntries((r.attributes ?? []).map((a) => [a.key, attr(r, a.key)]));
        for (const s of otlpSpans(body)) spans.push({ ...(s as Span), resource });
      }
      res.end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-docs-otel-'));
  process.env.LOOM_HOME = home;
  process.env.LOOM_STORE_DIR = path.join(home, 'store');
  // The workflows from source, so the bundle carries the tracing interceptor (agent.run's sink call).
  process.env.LOOM_WORKFLOWS_PATH = path.join(ROOT, 'src', 'workflows', 'index.ts');
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  process.env.OTEL_SERVICE_NAME = 'agentloom-worker';
  t = await connectTestTemporal('docs-otel');
  tracing = new AgentTracing({ scheduledDelayMillis: 100 });
  worker = await createAgentloomWorker({ connection: t.nativeConnection, taskQueue: t.taskQueue, tracing });
  running = worker.run();
}, 240_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await tracing?.shutdown();
  await t?.close();
  receiver?.close();
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

/** The page's ```text trace block as `depth name` lines (tree prefixes of 3 characters a level). */
function documentedTree(): string[] {
  const page = fs.readFileSync(path.join(ROOT, 'docs', 'observability.md'), 'utf8');
  const block = /^```text trace\n([\s\S]*?)^```$/m.exec(page);
  if (!block) throw new Error('docs/observability.md has no ```text trace block');
  return block[1].trim().split('\n').map((l) => {
    const at = l.search(/[A-Za-z]/);
    return `${at / 3} ${l.slice(at).split(/\s+/)[0]}`;
  });
}

/** The received trace as `depth name` lines, depth first, children by start time. */
function receivedTree(trace: Span[]): string[] {
  const kids = (parent: string | undefined) => trace
    .filter((s) => (parent ? s.parentSpanId === parent : !trace.some((p) => p.spanId === s.parentSpanId)))
    .sort((a, b) => Number(BigInt(a.startTimeUnixNano ?? '0') - BigInt(b.startTimeUnixNano ?? '0')));
  const out: string[] = [];
  const walk = (s: Span, depth: number) => {
    out.push(`${depth} ${s.name}`);
    for (const k of kids(s.spanId)) walk(k, depth + 1);
  };
  for (const root of kids(undefined)) walk(root, 0);
  return out;
}

test('the trace of the getting-started agent, as a collector receives it, is the tree the page shows', async () => {
  const registry = path.join(home, 'registry');
  for (const b of runnableBlocks(fs.readFileSync(path.join(ROOT, 'docs', 'getting-started.md'), 'utf8'))) {
    if (b.kind !== 'file') continue;
    fs.mkdirSync(path.dirname(path.join(registry, b.path)), { recursive: true });
    fs.writeFileSync(path.join(registry, b.path), b.text);
  }
  const env = userEnv({ TEMPORAL_ADDRESS: temporalAddress(), LOOM_TASK_QUEUE: t.taskQueue, LOOM_HOME: home, LOOM_STORE_DIR: path.join(home, 'store') });
  const p = spawnCli(['run', 'bill-splitter', '--input', '{"total_eur": 90, "people": 4}'], env, registry);
  const res = await p.done;
  expect(res.code).toBe(0);
  const workflowId = /started (\S+)/.exec(res.err)?.[1];
  expect(workflowId).toBeDefined();
  const expected = documentedTree();
  const trace = await until(async () => {
    await tracing.forceFlush();
    // `loom run` sent its trace context with the start: the run's trace is the one its agent.run is in.
    const traceId = spans.find((s) => s.name === 'agent.run' && attr(s, 'temporal.workflow_id') === workflowId)?.traceId;
    const mine = spans.filter((s) => s.traceId === traceId);
    return mine.length >= expected.length && mine.some((s) => s.name === 'agent.run') ? mine : undefined;
  }, `the ${expected.length} spans of ${workflowId} at the receiver`, 60000);
  expect(receivedTree(trace)).toEqual(expected);
  const run = trace.find((s) => s.name === 'agent.run')!;
  expect(run.resource['service.name']).toBe('agentloom-worker');
  expect([attr(run, 'agent_id'), attr(run, 'version'), attr(run, 'status')]).toEqual(['bill-splitter', '1.0.0', 'success']);
  const tool = trace.find((s) => s.name === 'agent.tool_call')!;
  expect([attr(tool, 'tool_id'), attr(tool, 'outcome')]).toEqual(['calculator', 'success']);
  expect(trace.filter((s) => s.name === 'agent.model_invocation').map((s) => attr(s, 'model_id'))).toEqual(['split-model', 'split-model']);
});
