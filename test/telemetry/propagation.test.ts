/**
 * observability.tracing.propagate_context on a real dev server (seed 001, decisions 287 and 288): an
 * in-process OTLP receiver and an HTTP tool server, both on 127.0.0.1. The tool server receives a
 * W3C traceparent naming the exported trace and agent.tool_call span; a parent agent calling a
 * child agent as a tool exports one trace holding both runs, the child's agent.run under the
 * parent's; with propagate_context false, or the child's tracing off, or the parent's run not
 * sampled, none of that happens. An MCP tool over streamable HTTP gets the header on its
 * tools/call request (not on the session's opening, which serves later calls too). The members of
 * an agf.sequential orchestration join its trace the same way.
 */
import { randomBytes } from 'crypto';
import * as http from 'http';
import type { AddressInfo } from 'net';
import type { Worker } from '@temporalio/worker';
import type { CompiledAgent, CompiledTool } from '../../src/compiled/types';
import { expandMcpTools } from '../../src/compiler/mcp-tools';
import { listMcpTools } from '../../src/mcp/discover';
import { McpPool } from '../../src/mcp/pool';
import { agfReactWorkflow } from '../../src/workflows/react';
import { AgentTracing } from '../../src/telemetry/tracing';
import { parseTraceparent, runSpanId, runTraceId } from '../../src/telemetry/trace-ids';
import { connectTestTemporal, TestTemporal } from '../helpers/temporal';
import { attr, createTracingWorker, otlpLogRecords, otlpSpans, tracingWorkflowCode, type OtlpSpan } from './otel-harness';
import { agent, builtinTool, bundleOf, scriptedModel, storeTestBundle, testStore } from '../runtime/builders';
import { agent as orchAgent, answers } from '../orchestration/builders';
import { workflowTypeFor } from '../../src/shared/dispatch';
import { quietWindow, until } from '../helpers/wait';

interface ToolRequest { sku: string; traceparent?: string; tracestate?: string }

const fixture = require('../mcp/fixture-server.js') as {
  buildFixtureServer(o?: { variant?: string }): { connect(t: unknown): Promise<void>; close(): Promise<void> };
};
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js') as {
  StreamableHTTPServerTransport: new (o: { sessionIdGenerator: undefined }) => { handleRequest(req: unknown, res: unknown, body?: unknown): Promise<void>; close(): Promise<void> };
};

let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let tracing: AgentTracing;
let receiver: http.Server;
let tools: http.Server;
let endpoint: string;
let toolBase: string;
const received: OtlpSpan[] = [];
/** OTLP log records: the event attribute and the trace context. */
const logRecords: { event?: unknown; agent?: unknown; traceId?: string; spanId?: string }[] = [];
const requests: ToolRequest[] = [];
let mcp: http.Server;
let mcpUrl: string;
/** JSON-RPC requests the MCP server got: method, tool name of a tools/call, traceparent. */
const mcpRequests: { method: string; tool?: string; traceparent?: string }[] = [];
const pool = new McpPool();
const logs: string[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'POST' && req.url === '/v1/traces') received.push(...otlpSpans(body));
      if (req.method === 'POST' && req.url === '/v1/logs') {
        for (const r of otlpLogRecords<{ traceId?: string; spanId?: string; attributes?: OtlpSpan['attributes'] }>(body)) {
          logRecords.push({ event: attr(r, 'event'), agent: attr(r, 'agent_id'), traceId: r.traceId, spanId: r.spanId });
        }
      }
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
  // The tool server records the trace headers of every request.
  tools = http.createServer((req, res) => {
    const sku = decodeURIComponent((req.url ?? '').split('?')[0].replace(/^\/price\//, ''));
    const h = req.headers;
    requests.push({ sku, ...(typeof h.traceparent === 'string' ? { traceparent: h.traceparent } : {}), ...(typeof h.tracestate === 'string' ? { tracestate: h.tracestate } : {}) });
    res.setHeader('content-type', 'application/json');
    res.end('19.5');
  });
  await new Promise<void>((r) => tools.listen(0, '127.0.0.1', r));
  toolBase = `http://127.0.0.1:${(tools.address() as AddressInfo).port}`;
  // The fixture MCP server over streamable HTTP (stateless), recording each request's traceparent.
  mcp = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void (async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? JSON.parse(text) as { method?: string; params?: { name?: string } } : undefined;
      const tp = req.headers.traceparent;
      mcpRequests.push({ method: body?.method ?? req.method ?? '', ...(body?.params?.name ? { tool: body.params.name } : {}), ...(typeof tp === 'string' ? { traceparent: tp } : {}) });
      const server = fixture.buildFixtureServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => { void transport.close(); void server.close(); });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    })());
  });
  await new Promise<void>((r) => mcp.listen(0, '127.0.0.1', r));
  mcpUrl = `http://127.0.0.1:${(mcp.address() as AddressInfo).port}/mcp`;
  const code = await tracingWorkflowCode();
  t = await connectTestTemporal('telemetry-propagation');
  const store = testStore();
  tracing = new AgentTracing({ store, scheduledDelayMillis: 100, log: (m) => logs.push(m) });
  // As createAgentloomWorker does, the sinks describe a child's caller with the worker's client.
  worker = await createTracingWorker(t, code, tracing, { store, mcpPool: pool });
  running = worker.run();
}, 240_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await tracing?.shutdown();
  await pool.closeAll();
  await t?.close();
  mcp?.closeAllConnections();
  mcp?.close();
  receiver?.close();
  tools?.closeAllConnections();
  tools?.close();
});

function priceTool(): CompiledTool {
  return {
    ...builtinTool('echo'),
    tool_id: 'price',
    kind: 'http',
    builtin: undefined,
    description: 'Look up a price',
    input_schema: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
    http: { method: 'GET', url: `${toolBase}/price/{sku}`, allowed_hosts: ['127.0.0.1'], allow_private_network: true },
  };
}

function traced(a: CompiledAgent, over: Record<string, unknown> = {}): CompiledAgent {
  a.observability = { tracing: { enabled: true, exporter: 'otlp', endpoint, ...over } };
  return a;
}

/** The child: looks up the price of `<sku>` and answers; `logs` adds a logs section (info, with trace context). */
function child(id: string, sku: string, tracing: Record<string, unknown> | false = {}, logs = false): CompiledAgent {
  const a = agent({
    agent_id: id,
    model: scriptedModel({ turns: [{ tool_calls: [{ id: 'p', name: 'price', arguments: { sku } }] }, { content: 'child says {{last_tool_result}}' }] }),
    tools: [priceTool()],
  });
  const out = tracing === false ? a : traced(a, tracing);
  if (logs) out.observability = { ...out.observability, logs: { enabled: true, endpoint: endpoint.replace('/v1/traces', '/v1/logs'), level: 'info' } };
  return out;
}

/** The parent: looks up the price of `<sku>`, then asks its child agent (as a tool), then answers. */
function parent(id: string, childId: string, sku: string, tracing: Record<string, unknown> = {}): CompiledAgent {
  return traced(agent({
    agent_id: id,
    model: scriptedModel({
      turns: [
        { tool_calls: [{ id: 'p', name: 'price', arguments: { sku } }] },
        { tool_calls: [{ id: 'ask', name: 'helper', arguments: { q: 'price?' } }] },
        { content: 'parent done' },
      ],
    }),
    tools: [
      priceTool(),
      {
        ...builtinTool('echo'),
        tool_id: 'helper',
        kind: 'agent',
        builtin: undefined,
        agent: { agent_id: childId },
        input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      },
    ],
  }), tracing);
}

interface Ran { workflowId: string; runId: string; childId: string; childRunId: string }

async function runTree(root: CompiledAgent, ...subs: CompiledAgent[]): Promise<Ran> {
  const bundle = await storeTestBundle(bundleOf(root, ...subs));
  const workflowId = `${root.agent_id}-${randomBytes(4).toString('hex')}`;
  const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId, args: [{ bundle, agent_id: root.agent_id, input: 'go' }] });
  expect((await h.result()).output).toBe('parent done');
  const childId = `${workflowId}/tool-ask`;
  return { workflowId, runId: (await h.describe()).runId, childId, childRunId: (await t.client.workflow.getHandle(childId).describe()).runId };
}

/** Flush until `done` holds (spans come from activities and, for agent.run, the run-end sinks). */
async function spansUntil(done: () => boolean): Promise<void> {
  await until(async () => {
    if (done()) return true;
    await tracing.forceFlush();
    return done() ? true : undefined;
  }, 'the spans and records the test expects to reach the collector', 30_000, 200);
}

/** After both runs ended: flush, then give stray spans a moment to arrive (for the "nothing sent" checks). */
async function settle(): Promise<void> {
  await tracing.forceFlush();
  await quietWindow(1000, 'a span that must not be sent would arrive within it');
  await tracing.forceFlush();
}

const request = (sku: string): ToolRequest => {
  const r = requests.filter((x) => x.sku === sku);
  expect(r).toHaveLength(1);
  return r[0];
};

test('tool calls carry a traceparent naming their exported span; a child agent run joins the parent trace under its agent.run', async () => {
  const tag = randomBytes(3).toString('hex');
  const r = await runTree(parent(`lead-${tag}`, `helper-${tag}`, `lead-${tag}`), child(`helper-${tag}`, `child-${tag}`, {}, true));
  const trace = runTraceId(r.workflowId, r.runId);
  const leadRun = runSpanId(r.workflowId, r.runId);
  const childRun = runSpanId(r.childId, r.childRunId);
  const inTrace = () => received.filter((s) => s.traceId === trace);
  await spansUntil(() => inTrace().filter((s) => s.name === 'agent.run').length >= 2 && inTrace().filter((s) => s.name === 'agent.tool_call').length >= 2);

  // The lead's request names the lead's trace and its exported agent.tool_call span, sampled.
  const leadHeader = parseTraceparent(request(`lead-${tag}`).traceparent);
  expect(request(`lead-${tag}`).traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  expect(leadHeader).toEqual({ traceId: trace, spanId: expect.any(String), sampled: true });
  expect(request(`lead-${tag}`).tracestate).toBeUndefined();
  const leadTool = inTrace().filter((s) => s.name === 'agent.tool_call' && attr(s, 'agent_id') === `lead-${tag}` && attr(s, 'tool_id') === 'price');
  expect(leadTool).toHaveLength(1);
  expect(leadTool[0].spanId).toBe(leadHeader?.spanId);
  expect(leadTool[0].parentSpanId).toBe(leadRun);

  // One trace holds both runs: the child's agent.run is a child of the lead's agent.run.
  const runs = inTrace().filter((s) => s.name === 'agent.run');
  expect(runs.map((s) => attr(s, 'agent_id')).sort()).toEqual([`helper-${tag}`, `lead-${tag}`]);
  const lead = runs.find((s) => attr(s, 'agent_id') === `lead-${tag}`)!;
  const helper = runs.find((s) => attr(s, 'agent_id') === `helper-${tag}`)!;
  expect(lead.spanId).toBe(leadRun);
  expect(lead.parentSpanId ?? '').toBe('');
  expect(helper.spanId).toBe(childRun);
  expect(helper.parentSpanId).toBe(leadRun);
  expect(attr(helper, 'temporal.workflow_id')).toBe(r.childId);

  // The child's own spans are in the same trace, under the child's agent.run; its tool request names its span.
  const childSpans = inTrace().filter((s) => s.name !== 'agent.run' && attr(s, 'agent_id') === `helper-${tag}`);
  expect(childSpans.map((s) => s.name).sort()).toEqual(['agent.model_invocation', 'agent.model_invocation', 'agent.tool_call']);
  for (const s of childSpans) expect(s.parentSpanId).toBe(childRun);
  const childHeader = parseTraceparent(request(`child-${tag}`).traceparent);
  expect(childHeader).toEqual({ traceId: trace, spanId: childSpans.find((s) => s.name === 'agent.tool_call')!.spanId, sampled: true });
  // Nothing went to a trace of the child's own; the child's log records name the joined trace.
  await settle();
  expect(received.filter((s) => s.traceId === runTraceId(r.childId, r.childRunId))).toEqual([]);
  await spansUntil(() => logRecords.filter((l) => l.agent === `helper-${tag}`).length >= 2);
  const childLogs = logRecords.filter((l) => l.agent === `helper-${tag}`);
  expect(childLogs.map((l) => l.event).sort()).toEqual(['run.end', 'run.start']);
  for (const l of childLogs) expect({ traceId: l.traceId, spanId: l.spanId }).toEqual({ traceId: trace, spanId: childRun });
  expect(logs).toEqual([]);
}, 180_000);

test('propagate_context: false sends no traceparent and the child run keeps its own trace', async () => {
  const tag = randomBytes(3).toString('hex');
  const r = await runTree(parent(`quiet-${tag}`, `own-${tag}`, `quiet-${tag}`, { propagate_context: false }), child(`own-${tag}`, `own-${tag}`));
  const leadTrace = runTraceId(r.workflowId, r.runId);
  const childTrace = runTraceId(r.childId, r.childRunId);
  await spansUntil(() => received.some((s) => s.traceId === leadTrace && s.name === 'agent.run') && received.some((s) => s.traceId === childTrace && s.name === 'agent.run'));
  await settle();
  // The lead sends no header; its spans are still exported.
  expect(request(`quiet-${tag}`)).toEqual({ sku: `quiet-${tag}` });
  expect(received.filter((s) => s.traceId === leadTrace && s.name === 'agent.tool_call')).toHaveLength(1);
  // The child is the root of its own trace (and, propagating itself, names that trace to its tool).
  const own = received.filter((s) => s.traceId === childTrace && s.name === 'agent.run');
  expect(own).toHaveLength(1);
  expect(own[0].parentSpanId ?? '').toBe('');
  expect(received.filter((s) => s.traceId === leadTrace && attr(s, 'agent_id') === `own-${tag}`)).toEqual([]);
  expect(parseTraceparent(request(`own-${tag}`).traceparent)?.traceId).toBe(childTrace);
}, 180_000);

test('a child with tracing off emits nothing and sends no traceparent; an unsampled parent sends flags 00 and its child records nothing', async () => {
  const tag = randomBytes(3).toString('hex');
  const off = await runTree(parent(`lead-off-${tag}`, `dark-${tag}`, `lead-off-${tag}`), child(`dark-${tag}`, `dark-${tag}`, false));
  const offTrace = runTraceId(off.workflowId, off.runId);
  await spansUntil(() => received.some((s) => s.traceId === offTrace && s.name === 'agent.run'));
  await settle();
  expect(received.filter((s) => attr(s, 'agent_id') === `dark-${tag}`)).toEqual([]);
  expect(request(`dark-${tag}`)).toEqual({ sku: `dark-${tag}` });
  expect(parseTraceparent(request(`lead-off-${tag}`).traceparent)?.traceId).toBe(offTrace);

  // sampling_rate 0: the header still goes (not sampled), no span does, and the child follows the parent's decision.
  const unsampled = await runTree(parent(`lead-0-${tag}`, `follow-${tag}`, `lead-0-${tag}`, { sampling_rate: 0 }), child(`follow-${tag}`, `follow-${tag}`));
  await settle();
  const header = parseTraceparent(request(`lead-0-${tag}`).traceparent);
  expect(header).toEqual({ traceId: runTraceId(unsampled.workflowId, unsampled.runId), spanId: expect.any(String), sampled: false });
  expect(parseTraceparent(request(`follow-${tag}`).traceparent)).toEqual({ traceId: header?.traceId, spanId: expect.any(String), sampled: false });
  expect(received.filter((s) => attr(s, 'agent_id') === `lead-0-${tag}` || attr(s, 'agent_id') === `follow-${tag}`)).toEqual([]);
}, 180_000);

test('an MCP tool over streamable HTTP gets the traceparent of its agent.tool_call on tools/call', async () => {
  const block = { url: mcpUrl, allowed_hosts: ['127.0.0.1'], allow_private_network: true, tools: [{ name: 'echo' }] };
  const listed = await listMcpTools(block as never, {});
  const base: CompiledTool = { tool_id: 'web', version: '1.0.0', status: 'active', description: '', kind: 'mcp', input_schema: {}, approval_required: false, sensitive_fields: [], side_effects: false };
  const expanded = expandMcpTools(base, { ...block, pinned: listed }, () => []);
  expect(expanded.problems).toEqual([]);
  const tag = randomBytes(3).toString('hex');
  const a = traced(agent({
    agent_id: `mcp-${tag}`,
    model: scriptedModel({ turns: [{ tool_calls: [{ id: 'c1', name: 'web__echo', arguments: { text: tag } }] }, { content: 'tool said: {{last_tool_result}}' }] }),
    tools: expanded.tools,
  }));
  mcpRequests.length = 0;
  const bundle = await storeTestBundle(bundleOf(a));
  const workflowId = `${a.agent_id}-run`;
  const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId, args: [{ bundle, agent_id: a.agent_id, input: 'go' }] });
  expect((await h.result()).output).toBe(`tool said: echo: ${tag}`);
  const trace = runTraceId(workflowId, (await h.describe()).runId);
  await spansUntil(() => received.some((s) => s.traceId === trace && s.name === 'agent.tool_call'));
  const span = received.find((s) => s.traceId === trace && s.name === 'agent.tool_call')!;
  const calls = mcpRequests.filter((r) => r.method === 'tools/call');
  expect(calls).toHaveLength(1);
  expect(calls[0].tool).toBe('echo');
  expect(parseTraceparent(calls[0].traceparent)).toEqual({ traceId: trace, spanId: span.spanId, sampled: true });
  // The session was opened (initialize) by this call, outside its trace: it serves later calls too.
  const opening = mcpRequests.filter((r) => r.method === 'initialize');
  expect(opening).toHaveLength(1);
  expect(opening[0].traceparent).toBeUndefined();
}, 180_000);

test('the members of an orchestration (agf.sequential) join the orchestrator trace under its agent.run', async () => {
  const tag = randomBytes(3).toString('hex');
  const pipeline = traced(orchAgent({ id: `pipe-${tag}`, policy: { id: 'agf.sequential', config: { steps: [{ agent: 'writer' }, { agent: 'editor' }] } }, local_agents: [{ alias: 'writer', agent_ref: `writer-${tag}` }, { alias: 'editor', agent_ref: `editor-${tag}` }] }));
  const writer = traced(orchAgent({ id: `writer-${tag}`, model: answers('draft') }));
  const editor = traced(orchAgent({ id: `editor-${tag}`, model: answers('final') }));
  const bundle = await storeTestBundle(bundleOf(pipeline, writer, editor));
  const workflowId = `pipe-${tag}`;
  const h = await t.client.workflow.start(workflowTypeFor(pipeline)!, { taskQueue: t.taskQueue, workflowId, args: [{ bundle, agent_id: pipeline.agent_id, input: 'go' }] });
  expect((await h.result() as { output: unknown }).output).toBe('final');
  const trace = runTraceId(workflowId, (await h.describe()).runId);
  const runs = () => received.filter((s) => s.traceId === trace && s.name === 'agent.run');
  await spansUntil(() => runs().length >= 3);
  const byAgent = new Map(runs().map((s) => [attr(s, 'agent_id'), s]));
  expect([...byAgent.keys()].sort()).toEqual([`editor-${tag}`, `pipe-${tag}`, `writer-${tag}`]);
  const root = byAgent.get(`pipe-${tag}`)!;
  expect(root.parentSpanId ?? '').toBe('');
  for (const member of [`writer-${tag}`, `editor-${tag}`]) {
    const s = byAgent.get(member)!;
    expect(s.parentSpanId).toBe(root.spanId);
    expect(s.spanId).toBe(runSpanId(String(attr(s, 'temporal.workflow_id')), String(attr(s, 'temporal.run_id'))));
    expect(received.filter((x) => x.traceId === trace && x.name === 'agent.model_invocation' && attr(x, 'agent_id') === member).map((x) => x.parentSpanId)).toEqual([s.spanId]);
  }
}, 180_000);

test('a grandchild joins the root trace when every run between propagates', async () => {
  const tag = randomBytes(3).toString('hex');
  const r = await runTree(parent(`root-${tag}`, `mid-${tag}`, `root-${tag}`), parent(`mid-${tag}`, `leaf-${tag}`, `mid-${tag}`), child(`leaf-${tag}`, `leaf-${tag}`));
  const trace = runTraceId(r.workflowId, r.runId);
  const runs = () => received.filter((s) => s.traceId === trace && s.name === 'agent.run');
  await spansUntil(() => runs().length >= 3);
  const leafId = `${r.childId}/tool-ask`;
  const leafRun = (await t.client.workflow.getHandle(leafId).describe()).runId;
  const span = (id: string) => runs().find((s) => attr(s, 'agent_id') === id);
  expect(span(`mid-${tag}`)?.parentSpanId).toBe(runSpanId(r.workflowId, r.runId));
  expect(span(`leaf-${tag}`)?.parentSpanId).toBe(runSpanId(r.childId, r.childRunId));
  expect(span(`leaf-${tag}`)?.spanId).toBe(runSpanId(leafId, leafRun));
  expect(parseTraceparent(request(`leaf-${tag}`).traceparent)?.traceId).toBe(trace);
}, 180_000);
