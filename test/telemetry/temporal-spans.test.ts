/**
 * Temporal's own spans joined to Agentloom's: with the telemetry configured ONLY through OTEL_*
 * variables (a local OTLP/HTTP collector on 127.0.0.1), a run started by a client carrying
 * Agentloom's client interceptors (AgentloomClientPlugin) makes one trace holding the client's
 * StartWorkflow span, the worker's RunWorkflow span, each StartActivity/RunActivity pair and the
 * agent.run, agent.model_invocation and agent.tool_call spans, each under the right parent. The
 * worker caches no workflow (maxCachedWorkflows: 0), so every workflow task replays the run from
 * the start: no span is emitted twice. Replaying the finished history with the same interceptors
 * and sinks adds no span at all; and a recorded compat fixture of every workflow type replays
 * against a bundle with the interceptors (they add no command). That sample is the longest history
 * of each type (the most commands the interceptors wrap); every fixture replaying against the
 * plain bundle is test/compat/fixtures.replay.test.ts's and `npm run replay:compat`'s proof.
 */
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { Client } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { AgentloomClientPlugin } from '../../src/plugin/client-plugin';
import { AgentTracing } from '../../src/telemetry/tracing';
import { flushClientTracing } from '../../src/telemetry/temporal-tracing';
import { agfReactWorkflow } from '../../src/workflows/react';
import { builtin, compileAgent, scripted } from '../helpers/definitions';
import { connectTestTemporal, createTestWorker, type TestTemporal } from '../helpers/temporal';
import { until } from '../helpers/wait';
import { storeTestBundle, testStore } from '../runtime/builders';
import { FIXTURE_DIR, describeReplayError, readManifest, type FixtureEntry } from '../compat/run-compat';
import { otlpSpans, tracingWorkflowCode, type OtlpSpan } from './otel-harness';

jest.setTimeout(600_000);

const VARS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_SERVICE_NAME'] as const;
const saved: Partial<Record<(typeof VARS)[number], string>> = {};
const spans: OtlpSpan[] = [];
let receiver: http.Server;
let t: TestTemporal;
let tracing: AgentTracing;
let worker: Worker;
let running: Promise<void>;
let code: string;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') spans.push(...otlpSpans(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  for (const v of VARS) saved[v] = process.env[v];
  // The whole telemetry configuration, of the client and of the worker.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
  process.env.OTEL_SERVICE_NAME = 'loom-temporal-spans-test';
  t = await connectTestTemporal('telemetry-temporal-spans');
  const store = testStore();
  code = await tracingWorkflowCode();
  tracing = new AgentTracing({ store, scheduledDelayMillis: 50, log: () => undefined });
  worker = await createTestWorker(t, createActivities({ store }), {
    workflowBundle: { code },
    interceptors: { activity: [tracing.activityInterceptor] },
    sinks: tracing.sinks,
    // Every workflow task replays the run from its first event.
    maxCachedWorkflows: 0,
  });
  running = worker.run();
}, 300_000);

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

const byName = (trace: OtlpSpan[], name: string): OtlpSpan[] => trace.filter((s) => s.name === name);
const one = (trace: OtlpSpan[], name: string): OtlpSpan => {
  const found = byName(trace, name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0];
};

test('one trace: the client start, RunWorkflow, each activity and the agent.* spans, correctly parented, none twice under replaying workflow tasks', async () => {
  const { agent, bundle: compiled } = compileAgent({
    agent_id: 'temporal-spans-agent',
    model: scripted({ turns: [{ tool_calls: [{ name: 'arithmetic', arguments: { a: 6, b: 7, op: 'mul' } }] }, { content: 'done' }] }),
    tools: [builtin('arithmetic')],
  });
  const bundle = await storeTestBundle(compiled);
  // A client as Agentloom makes them: its plugin carries Temporal's client interceptor.
  const client = new Client({ connection: t.connection, namespace: t.client.options.namespace, plugins: [new AgentloomClientPlugin({ dataConverter: null })] });
  const workflowId = `temporal-spans-${randomBytes(4).toString('hex')}`;
  const h = await client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId, args: [{ bundle, agent_id: agent.agent_id, input: 'go' }] });
  expect((await h.result()).output).toBe('done');
  await flushClientTracing();

  const wanted = ['StartWorkflow:agfReactWorkflow', 'RunWorkflow:agfReactWorkflow', 'agent.run', 'agent.tool_call'];
  const start = await until(async () => {
    await tracing.forceFlush();
    const s = spans.find((x) => x.name === 'StartWorkflow:agfReactWorkflow' && x.attributes?.some((a) => a.key === 'temporalWorkflowId' && Object.values(a.value)[0] === workflowId));
    return s && wanted.every((n) => spans.some((x) => x.traceId === s.traceId && x.name === n)) && byName(spans.filter((x) => x.traceId === s.traceId), 'agent.model_invocation').length === 2 ? s : undefined;
  }, 'the run\'s spans at the collector');
  const trace = spans.filter((s) => s.traceId === start.traceId);

  // No span twice (each workflow task replayed the run from the start).
  const ids = trace.map((s) => s.spanId);
  expect(new Set(ids).size).toBe(ids.length);

  const run = one(trace, 'RunWorkflow:agfReactWorkflow');
  expect(start.parentSpanId ?? '').toBe('');
  expect(run.parentSpanId).toBe(start.spanId);
  expect(one(trace, 'agent.run').parentSpanId).toBe(run.spanId);

  // Each activity: StartActivity under RunWorkflow, RunActivity under it, the agent.* span under RunActivity.
  const pairs: [string, string][] = [['modelTurn', 'agent.model_invocation'], ['runTool', 'agent.tool_call']];
  for (const [type, ours] of pairs) {
    const starts = byName(trace, `StartActivity:${type}`);
    const runs = byName(trace, `RunActivity:${type}`);
    const agentSpans = byName(trace, ours);
    expect(starts.length).toBe(type === 'modelTurn' ? 2 : 1);
    expect(runs.length).toBe(starts.length);
    expect(agentSpans.length).toBe(starts.length);
    for (const s of starts) expect(s.parentSpanId).toBe(run.spanId);
    for (const r of runs) expect(starts.map((s) => s.spanId)).toContain(r.parentSpanId);
    for (const a of agentSpans) expect(runs.map((r) => r.spanId)).toContain(a.parentSpanId);
  }

  // Replaying the finished history with the same interceptors and sinks exports nothing more.
  const before = spans.length;
  await Worker.runReplayHistory({ workflowBundle: { code }, sinks: tracing.sinks, interceptors: { activity: [tracing.activityInterceptor] } }, await h.fetchHistory(), workflowId);
  await tracing.forceFlush();
  await flushClientTracing();
  expect(spans.length).toBe(before);
});

/** The longest recorded history (in bytes) of each workflow type, by type name; ties by file name. */
function longestOfEachType(manifest: FixtureEntry[]): FixtureEntry[] {
  const size = (e: FixtureEntry) => fs.statSync(path.join(FIXTURE_DIR, e.file)).size;
  const best = new Map<string, { e: FixtureEntry; bytes: number }>();
  for (const e of manifest) {
    const bytes = size(e);
    const cur = best.get(e.workflow_type);
    if (!cur || bytes > cur.bytes || (bytes === cur.bytes && e.file < cur.e.file)) best.set(e.workflow_type, { e, bytes });
  }
  return [...best.keys()].sort().map((k) => best.get(k)!.e);
}

test('a recorded compat fixture of every workflow type replays against a bundle with Temporal\'s and Agentloom\'s workflow interceptors (no command changes)', async () => {
  const manifest = readManifest();
  expect(manifest.length).toBeGreaterThanOrEqual(50);
  const sample = longestOfEachType(manifest);
  // One per workflow type the fixtures hold (over ten: the react agent, each policy and pattern, strategies, sessions).
  expect(sample.map((e) => e.workflow_type)).toEqual([...new Set(manifest.map((e) => e.workflow_type))].sort());
  expect(sample.length).toBeGreaterThanOrEqual(10);
  const histories = sample.map((e) => ({ workflowId: e.workflow_id, history: historyFromJSON(JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, e.file), 'utf8'))) }));
  const failures: string[] = [];
  let replayed = 0;
  const before = spans.length;
  for await (const r of Worker.runReplayHistories({ workflowBundle: { code }, replayName: 'compat-fixtures-traced', sinks: tracing.sinks }, histories)) {
    replayed++;
    if (r.error) failures.push(`${sample[replayed - 1]?.file ?? r.workflowId}: ${describeReplayError(r.error)}`);
  }
  expect(replayed).toBe(histories.length);
  expect(failures).toEqual([]);
  await tracing.forceFlush();
  expect(spans.length).toBe(before);
});
