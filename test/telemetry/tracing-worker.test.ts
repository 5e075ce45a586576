/**
 * The production wiring of traces (src/worker/create-worker.ts): a worker built by
 * createAgentloomWorker from the workflow sources registers the activity interceptor, bundles the
 * tracing workflow interceptor module and the agent.run sink, so a react run's spans reach the
 * agent's OTLP endpoint (an in-process receiver on 127.0.0.1) with agent.run as their parent.
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
import { storeTestBundle, testStore } from '../runtime/builders';
import { builtin, compileAgent, scripted } from '../helpers/definitions';
import { until } from '../helpers/wait';

interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string }

let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let tracing: AgentTracing;
let receiver: http.Server;
const received: OtlpSpan[] = [];
const saved = { paths: process.env.LOOM_WORKFLOWS_PATH };

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const doc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[] };
      for (const rs of doc.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) received.push(...(ss.spans ?? []));
      res.end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  t = await connectTestTemporal('telemetry-worker');
  testStore(); // sets LOOM_STORE_DIR, which the worker's activities and the tracing read
  // From the sources (not the suite's prebuilt bundle): the worker adds the interceptor module itself.
  process.env.LOOM_WORKFLOWS_PATH = path.join(__dirname, '..', '..', 'src', 'workflows', 'index.ts');
  tracing = new AgentTracing({ scheduledDelayMillis: 100 });
  worker = await createAgentloomWorker({ connection: t.nativeConnection, taskQueue: t.taskQueue, tracing });
  running = worker.run();
}, 240_000);

afterAll(async () => {
  if (saved.paths === undefined) delete process.env.LOOM_WORKFLOWS_PATH;
  else process.env.LOOM_WORKFLOWS_PATH = saved.paths;
  worker?.shutdown();
  await running;
  await tracing?.shutdown();
  await t?.close();
  receiver?.close();
});

/** Flush the exporters until `done` holds (spans come from activities and, for agent.run, the run-end sinks). */
async function flushUntil(done: () => boolean, what: string): Promise<void> {
  await until(async () => {
    if (done()) return true;
    await tracing.forceFlush();
    return done() ? true : undefined;
  }, what, 30_000, 200);
}

test('createAgentloomWorker exports agent.run with its model and tool spans', async () => {
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
  const { agent: a, bundle: compiled } = compileAgent({
    agent_id: 'traced-worker',
    model: scripted({ turns: [{ tool_calls: [{ name: 'arithmetic', arguments: { a: 6, b: 7, op: 'mul' } }] }, { content: 'forty-two' }] }),
    tools: [builtin('arithmetic')],
    front: { observability: { tracing: { enabled: true, exporter: 'otlp', endpoint } } },
  });
  const bundle = await storeTestBundle(compiled);
  const workflowId = `traced-worker-${randomBytes(4).toString('hex')}`;
  const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId, args: [{ bundle, agent_id: a.agent_id, input: 'go' }] });
  expect((await h.result()).output).toBe('forty-two');
  const runId = (await h.describe()).runId;
  const traceId = runTraceId(workflowId, runId);
  const mine = () => received.filter((s) => s.traceId === traceId);
  await flushUntil(() => mine().some((s) => s.name === 'agent.run'), 'the agent.run span');
  const run = mine().find((s) => s.name === 'agent.run');
  expect(run?.spanId).toBe(runSpanId(workflowId, runId));
  const children = mine().filter((s) => s.name !== 'agent.run');
  expect(children.map((s) => s.name).sort()).toEqual(['agent.model_invocation', 'agent.model_invocation', 'agent.tool_call']);
  expect(children.every((s) => s.parentSpanId === run?.spanId)).toBe(true);
}, 180_000);
