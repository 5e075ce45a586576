/**
 * `policies.pii_redaction: true` runs the PII pass before anything is recorded: with every content
 * switch of the tracing section on (model inputs and outputs, tool arguments and results in full)
 * and logs at debug, no raw e-mail address, phone number or person name of the run reaches the
 * collector's spans or log records. The same agent without the policy, against the same collector,
 * does export them (the check can fail).
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import { randomBytes } from 'crypto';
import type { Worker } from '@temporalio/worker';
import { AgentTracing } from '../../src/telemetry/tracing';
import { agfReactWorkflow } from '../../src/workflows/react';
import { builtin, compileAgent, scripted } from '../helpers/definitions';
import { connectTestTemporal, type TestTemporal } from '../helpers/temporal';
import { until } from '../helpers/wait';
import { storeTestBundle, testStore } from '../runtime/builders';
import { createTracingWorker, tracingWorkflowCode } from './otel-harness';

jest.setTimeout(300_000);

const EMAIL = 'jane.doe@example.com';
const PHONE = '+1 415 555 0199';
const NAME = 'Jane Doe';
const bodies: { url: string; body: string }[] = [];
let receiver: http.Server;
let t: TestTemporal;
let tracing: AgentTracing;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push({ url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  t = await connectTestTemporal('telemetry-pii');
  const store = testStore();
  // The telemetry configuration: OTEL_* variables only (given to the tracing, not to this process).
  tracing = new AgentTracing({ store, scheduledDelayMillis: 50, log: () => undefined, env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}` } });
  worker = await createTracingWorker(t, await tracingWorkflowCode(), tracing, { store });
  running = worker.run();
}, 240_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await tracing?.shutdown();
  await t?.close();
  receiver?.close();
});

/** Runs an agent that hears and repeats PII, and returns what the collector got for that run (spans and log records). */
async function exported(redact: boolean): Promise<string> {
  const id = `pii-${redact ? 'on' : 'off'}-agent`;
  const { agent, bundle: compiled } = compileAgent({
    agent_id: id,
    model: scripted({ turns: [
      { content: `Noting ${NAME} (${EMAIL}).`, tool_calls: [{ name: 'arithmetic', arguments: { a: 4155550199, b: 1, op: 'mul' } }] },
      { content: `Done: I will write to ${NAME} at ${EMAIL} or call ${PHONE}.` },
    ] }),
    tools: [builtin('arithmetic')],
    front: {
      policies: { pii_redaction: redact },
      observability: {
        tracing: { include_model_inputs: true, include_model_outputs: true, include_tool_args: 'full', include_tool_results: 'full' },
        logs: { level: 'debug' },
      },
    },
  });
  const bundle = await storeTestBundle(compiled);
  const workflowId = `${id}-${randomBytes(4).toString('hex')}`;
  const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId, args: [{ bundle, agent_id: agent.agent_id, input: `Please contact ${NAME}, ${EMAIL}, phone ${PHONE}.` }] });
  await h.result();
  return until(async () => {
    await tracing.forceFlush();
    const mine = bodies.filter((b) => b.body.includes(workflowId) || b.body.includes(id));
    const text = mine.map((b) => b.body).join('\n');
    return mine.some((b) => b.url === '/v1/traces' && text.includes('agent.model_invocation')) && mine.some((b) => b.url === '/v1/logs' && text.includes('run.end')) ? text : undefined;
  }, `the spans and log records of ${workflowId}`);
}

test('without pii_redaction the content switches export the raw values (the check below can fail)', async () => {
  const text = await exported(false);
  expect(text).toContain(EMAIL);
  expect(text).toContain(NAME);
});

test('with pii_redaction: true no raw e-mail, phone number or person name is in any exported span attribute or log record', async () => {
  const text = await exported(true);
  expect(text).toContain('agent.model_invocation');
  expect(text).not.toContain(EMAIL);
  expect(text).not.toContain(PHONE);
  expect(text).not.toContain('415 555');
  expect(text).not.toContain(NAME);
  expect(text).not.toContain('Jane');
});
