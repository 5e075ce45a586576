/**
 * `loom mcp` driven by the official SDK client over stdio against the real dev server: start a run of
 * the published demo agent, see it wait for approval in the pending decisions, approve it, get the
 * result; a refusal (unknown call id, unpublished agent) comes back as an MCP error result with the reason.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { compileBundle, publishBundle } from '../../src/compiler';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MAX_INPUT_DEPTH } from '../../src/operator/input-limits';
import { CliHarness, DEMO_REGISTRY, EXAMPLES, LOOM_BIN, ROOT, spawnCli, startCliHarness, until } from '../cli/harness';

let h: CliHarness;
let client: Client;
let registry: string;

beforeAll(async () => {
  h = await startCliHarness('mcp');
  registry = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-mcp-reg-'));
  fs.cpSync(DEMO_REGISTRY, registry, { recursive: true });
  const { bundle } = compileBundle(registry, 'trip-planner');
  expect(publishBundle(registry, bundle!).ok).toBe(true);
  // The execution-loop example beside it (existing files kept), made ephemeral (decisions 261-263).
  fs.cpSync(path.join(EXAMPLES, 'execution-loop'), registry, { recursive: true, force: false });
  const planner = path.join(registry, 'agents', 'order-planner.agent.md');
  fs.writeFileSync(planner, fs.readFileSync(planner, 'utf8').replace('artifacts:\n  enabled: false\n', 'artifacts:\n  enabled: false\n  retention_class: ephemeral\n'));
  const ephemeral = compileBundle(registry, 'order-planner').bundle;
  expect(ephemeral?.agents['order-planner'].artifacts.retention_class).toBe('ephemeral');
  expect(publishBundle(registry, ephemeral!).ok).toBe(true);
  client = new Client({ name: 'loom-mcp-test', version: '1.0.0' });
  const env = Object.fromEntries(Object.entries(h.env).filter(([, v]) => v !== undefined)) as Record<string, string>;
  await client.connect(new StdioClientTransport({ command: 'node', args: [LOOM_BIN, 'mcp', '--registry', registry], env, cwd: ROOT, stderr: 'inherit' }));
});
afterAll(async () => {
  await client?.close();
  await h.close();
  fs.rmSync(registry, { recursive: true, force: true });
});

type Result = { structuredContent?: Record<string, unknown>; content: { type: string; text?: string }[]; isError?: boolean };
const call = async (name: string, args: Record<string, unknown> = {}): Promise<Result> => (await client.callTool({ name, arguments: args })) as Result;

test('lists its tools', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(['approve', 'get_result', 'get_run', 'list_pending_decisions', 'reject', 'start_run']);
});

test('start a published agent, see it wait for approval, approve, get the result', async () => {
  const started = await call('start_run', { agent_id: 'trip-planner', input: { destination: 'Porto', nights: 2, nightly_rate_eur: 100, daily_budget_eur: 50 } });
  expect(started.isError).toBeFalsy();
  const id = String(started.structuredContent!.workflow_id);
  expect(started.structuredContent).toMatchObject({ agent_id: 'trip-planner', version: '1.0.0' });
  const pending = await until('the approval in list_pending_decisions', async () => {
    const r = await call('list_pending_decisions');
    const mine = (r.structuredContent!.decisions as { root_workflow_id: string; call_id: string; tool: string }[]).filter((d) => d.root_workflow_id === id);
    return mine.length ? mine : undefined;
  });
  expect(pending).toHaveLength(1);
  expect(pending[0].tool).toBe('save-itinerary');
  const st = await call('get_run', { workflow_id: id });
  expect(st.structuredContent).toMatchObject({ temporal_status: 'RUNNING', state: 'waiting_for_approval' });
  expect((await call('get_result', { workflow_id: id })).structuredContent).toMatchObject({ done: false });
  const refused = await call('approve', { workflow_id: id, ref: 'no-such-call' });
  expect(refused.isError).toBe(true);
  expect(refused.content[0].text).toMatch(/^error: no pending approval 'no-such-call' in the tree of .*; pending: /);
  const ok = await call('approve', { workflow_id: id, ref: pending[0].call_id });
  expect(ok.structuredContent).toMatchObject({ approved: pending[0].call_id, workflow_id: id });
  const res = await call('get_result', { workflow_id: id, wait: true });
  expect(res.structuredContent).toMatchObject({ done: true });
  const output = res.structuredContent!.output as Record<string, unknown>;
  expect(output).toMatchObject({ destination: 'Porto', total_cost_eur: 350 });
  expect(output.itinerary_saved).toMatchObject({ path: 'itinerary.md' });
  // Started as AgentloomClient starts a run: the agent's view in the start input, no loadAgent activity.
  const events = (await h.handle(id).fetchHistory()).events ?? [];
  const scheduled = events.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
  expect(scheduled).toContain('modelTurn');
  expect(scheduled).not.toContain('loadAgent');
  const startInput = Buffer.from(events[0].workflowExecutionStartedEventAttributes!.input!.payloads![0].data!).toString('utf8');
  expect(JSON.parse(startInput).agent_view).toMatchObject({ agent_id: 'trip-planner' });
});

test('an ephemeral agent\'s output is collected once by get_result; the run\'s result holds only where it was', async () => {
  const started = await call('start_run', { agent_id: 'order-planner' });
  expect(started.isError).toBeFalsy();
  const id = String(started.structuredContent!.workflow_id);
  const res = await call('get_result', { workflow_id: id, wait: true });
  expect(res.isError).toBeFalsy();
  expect(res.structuredContent).toMatchObject({ done: true });
  expect((await h.handle(id).result()).output).toEqual({ ephemeral_output: id, collect_with: `loom result ${id}` });
  expect(res.structuredContent!.output).not.toEqual({ ephemeral_output: id, collect_with: `loom result ${id}` });
  expect(res.structuredContent!.output).toBeDefined();
  const again = await call('get_result', { workflow_id: id, wait: true });
  expect(again.isError).toBe(true);
  expect(again.content[0].text).toMatch(/is an ephemeral run and its output is no longer in the store: it was already collected/);
});

test('start_run: an input nested past the depth limit is refused naming it; a 3 MB input is taken by claim check', async () => {
  let deep: unknown = 'leaf';
  for (let i = 0; i < MAX_INPUT_DEPTH + 50; i++) deep = [deep];
  const refused = await call('start_run', { agent_id: 'trip-planner', input: { destination: 'Porto', nights: 2, nightly_rate_eur: 100, daily_budget_eur: 50, notes: deep } });
  expect(refused.isError).toBe(true);
  expect(refused.content[0].text).toBe(`error: input nests deeper than ${MAX_INPUT_DEPTH} levels of arrays/objects, the most a run input may have: flatten it, or pass the data as a file (a field with widget: file)`);

  const marker = `MCP-BULK-${Date.now()}`;
  const big = await call('start_run', { agent_id: 'trip-planner', input: { destination: 'Porto', nights: 2, nightly_rate_eur: 100, daily_budget_eur: 50, notes: `${marker} ${'z'.repeat(3 * 1024 * 1024)}` } });
  expect(big.isError).toBeFalsy();
  const id = String(big.structuredContent!.workflow_id);
  const handle = h.handle(id);
  // It reaches the approval (the model read the stored input), and no event holds the text.
  await until('the claim-checked run to wait for approval', async () => {
    const r = await call('get_run', { workflow_id: id });
    return r.structuredContent?.state === 'waiting_for_approval' ? true : undefined;
  });
  const events = (await handle.fetchHistory()).events ?? [];
  // Payload bytes serialise as base64 `data`: every payload of every event, decoded.
  const payloads: string[] = [];
  JSON.stringify(events, (k, v: unknown) => {
    if (k === 'data' && typeof v === 'string') payloads.push(Buffer.from(v, 'base64').toString('utf8'));
    return v;
  });
  const text = payloads.join('\n');
  expect(text).not.toContain(marker);
  expect(text).toContain('"input_ref":{"hash":"sha256:');
  // The model read the stored input: its calculator call has the nights and rates given.
  expect(text).toContain('"expression":"2 * 100 + (2 + 1) * 50"');
  await handle.cancel();
});

test('an agent that is not published is refused with what to run', async () => {
  const r = await call('start_run', { agent_id: 'nope' });
  expect(r.isError).toBe(true);
  expect(r.content[0].text).toBe(`error: agent nope is not published in ${registry}; run \`loom publish nope --registry ${registry}\` first`);
});

test('--http serves the same tools over streamable HTTP on 127.0.0.1; SIGTERM stops it with exit 0', async () => {
  const p = spawnCli(['mcp', '--registry', registry, '--http', '0'], h.env);
  const url = await until('loom mcp to print its URL', () => /streamable HTTP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(p.err())?.[1]);
  const web = new Client({ name: 'loom-mcp-http-test', version: '1.0.0' });
  await web.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    expect((await web.listTools()).tools.map((t) => t.name)).toContain('start_run');
    const r = (await web.callTool({ name: 'get_run', arguments: { workflow_id: 'no-such-run-id' } })) as Result;
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/^error: .*no-such-run-id/i);
  } finally {
    await web.close();
  }
  p.child.kill('SIGTERM');
  expect((await p.done).code).toBe(0);
});

test('--http with a bad port is a usage error (exit 2)', async () => {
  const r = await spawnCli(['mcp', '--http', 'eighty'], h.env).done;
  expect(r.code).toBe(2);
  expect(r.err).toContain("--http needs a port number (0-65535), e.g. --http 8765 (got 'eighty')");
});
