/**
 * MCP tools in real runs: the fixture MCP server (stdio child process or streamable HTTP on 127.0.0.1)
 * called by a react agent with a scripted model on the dev server, through the worker's session pool.
 * Approval, a server killed mid-call (retried, completed once), a changed schema refused, cancellation
 * reaching the server.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Worker } from '@temporalio/worker';
import { WorkflowFailedError } from '@temporalio/client';
import type { CompiledTool, JsonObject } from '../../src/compiled/types';
import type { ApproveArgs } from '../../src/shared/contract';
import { expandMcpTools, mcpServerKey } from '../../src/compiler/mcp-tools';
import { listMcpTools } from '../../src/mcp/discover';
import { McpPool } from '../../src/mcp/pool';
import { createActivities } from '../../src/activities';
import { agfReactWorkflow } from '../../src/workflows/react';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { until } from '../helpers/wait';
import { agent, bundleOf, scriptedModel, storeTestBundle, testStore } from '../runtime/builders';
import { waitForStatus } from '../runtime/harness';
import { FIXTURE } from './registry';

const fixture = require('./fixture-server.js') as {
  startHttpFixture(o: { port?: number; variant?: string; requiredAuth?: string; logDir?: string }): Promise<{ url: string; port: number; close(): Promise<void> }>;
};

let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
const pool = new McpPool();

beforeAll(async () => {
  t = await connectTestTemporal('mcp-tools');
  worker = await createTestWorker(t, createActivities({ store: testStore(), mcpPool: pool }));
  running = worker.run();
});
afterAll(async () => {
  worker.shutdown();
  await running;
  await pool.closeAll();
  await t.close();
});

const logDir = (): string => fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'mcp-log-'));
const lines = (dir: string, file: string): string[] => {
  try { return fs.readFileSync(path.join(dir, file), 'utf8').trim().split('\n').filter(Boolean); } catch { return []; }
};

/** Pins the server's tools the way `loom compile` does (a real tools/list), then expands them. */
async function mcpTools(serverId: string, block: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): Promise<CompiledTool[]> {
  const listed = await listMcpTools(block as never, { env });
  const base: CompiledTool = { tool_id: serverId, version: '1.0.0', status: 'active', description: '', kind: 'mcp', input_schema: {}, approval_required: false, sensitive_fields: [], side_effects: false };
  const out = expandMcpTools(base, { ...block, pinned: listed }, () => []);
  expect(out.problems).toEqual([]);
  return out.tools;
}

function callingAgent(id: string, tools: CompiledTool[], call: { name: string; arguments: JsonObject }) {
  return agent({
    agent_id: id,
    model: scriptedModel({ turns: [{ tool_calls: [{ id: 'c1', ...call }] }, { content: 'tool said: {{last_tool_result}}' }] }),
    tools,
  });
}

async function start(a: ReturnType<typeof agent>) {
  const bundle = await storeTestBundle(bundleOf(a));
  return t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: `${a.agent_id}-${Math.random().toString(36).slice(2, 8)}`, args: [{ bundle, agent_id: a.agent_id, input: 'go' }] });
}

test('stdio: an MCP tool with approval_required waits, is approved, runs on the server with the idempotency key', async () => {
  const dir = logDir();
  const block = { command: 'node', args: [FIXTURE], env: ['FIXTURE_LOG'], tools: [{ name: 'add', approval_required: true }] };
  // FIXTURE_LOG is a NAME in the definition; the worker's value reaches the server.
  process.env.FIXTURE_LOG = dir;
  const tools = await mcpTools('calc', block);
  expect(tools.map((x) => [x.tool_id, x.approval_required])).toEqual([['calc__add', true]]);
  const h = await start(callingAgent('mcp-appr', tools, { name: 'calc__add', arguments: { a: 2, b: 40 } }));
  const st = await waitForStatus(h, (s) => s.state === 'waiting_for_approval');
  expect(st.pending_approvals[0]).toMatchObject({ call_id: 'c1', tool: 'calc__add', arguments: { a: 2, b: 40 } });
  expect(lines(dir, 'calls')).toEqual([]);
  await h.signal<[ApproveArgs]>('approve', { call_id: 'c1' });
  expect((await h.result()).output).toBe('tool said: 42');
  expect(lines(dir, 'calls')).toEqual([`add ${h.workflowId}/c1`]);
});

test('streamable HTTP with an auth header from an env var NAME', async () => {
  const srv = await fixture.startHttpFixture({ requiredAuth: 'Bearer fixture-pass' });
  try {
    process.env.MCP_FIXTURE_AUTH = 'Bearer fixture-pass';
    const block = { url: srv.url, allowed_hosts: ['127.0.0.1'], allow_private_network: true, headers: { Authorization: { value_env: 'MCP_FIXTURE_AUTH' } } };
    const tools = await mcpTools('web', block);
    expect(tools.map((x) => x.tool_id).sort()).toEqual(['web__add', 'web__crash_once', 'web__echo', 'web__wait_for_cancel']);
    const h = await start(callingAgent('mcp-http', tools, { name: 'web__echo', arguments: { text: 'hi' } }));
    expect((await h.result()).output).toBe('tool said: echo: hi');
  } finally {
    await srv.close();
  }
});

test('an HTTP MCP server on loopback without mcp.allow_private_network is refused by the network policy; no request reaches it', async () => {
  const dir = logDir();
  const srv = await fixture.startHttpFixture({ logDir: dir });
  try {
    const block = { url: srv.url, allowed_hosts: ['127.0.0.1'], tools: [{ name: 'echo' }] };
    // Discovery refuses it too (nothing to pin), so the list is written in the file, as `mcp.pinned`.
    await expect(listMcpTools(block as never)).rejects.toThrow(/blocked by policy: host '127\.0\.0\.1' resolves to 127\.0\.0\.1 .*need mcp\.allow_private_network: true/);
    const base: CompiledTool = { tool_id: 'fenced', version: '1.0.0', status: 'active', description: '', kind: 'mcp', input_schema: {}, approval_required: false, sensitive_fields: [], side_effects: false };
    const { tools, problems } = expandMcpTools(base, { ...block, pinned: [{ name: 'echo', input_schema: { type: 'object' } }] }, () => []);
    expect(problems).toEqual([]);
    const h = await start(callingAgent('mcp-fenced', tools, { name: 'fenced__echo', arguments: { text: 'hi' } }));
    const out = String((await h.result()).output);
    expect(out).toMatch(/MCP server fenced: http:\/\/127\.0\.0\.1:\d+\/mcp: blocked by policy: host '127\.0\.0\.1' resolves to 127\.0\.0\.1 \(\w+\); private, loopback and link-local addresses need mcp\.allow_private_network: true/);
    expect(lines(dir, 'requests')).toEqual([]);
  } finally {
    await srv.close();
  }
});

test('a stdio server killed mid-call is restarted by the pool; the retried call completes once', async () => {
  const dir = logDir();
  // No env names listed: the server does not see FIXTURE_LOG and logs into its cwd, this test's folder.
  const tools = await mcpTools('crashy', { command: 'node', args: [FIXTURE], cwd: dir, tools: [{ name: 'crash_once' }] });
  const h = await start(callingAgent('mcp-crash', tools, { name: 'crashy__crash_once', arguments: {} }));
  expect((await h.result()).output).toBe('tool said: recovered');
  expect(fs.existsSync(path.join(dir, 'crashed'))).toBe(true);
  expect(lines(dir, 'completions')).toEqual([`${h.workflowId}/c1`]);
  expect(pool.opened.get(mcpServerKey('crashy', tools[0].mcp!.server))).toBe(2);
  const hist = await h.fetchHistory();
  const failed = (hist.events ?? []).filter((e) => e.activityTaskStartedEventAttributes && (e.activityTaskStartedEventAttributes.attempt ?? 1) > 1);
  expect(failed.length).toBe(1); // the second attempt is the one recorded as started
});

test('a changed server schema after pinning is refused clearly; the tool is not called', async () => {
  const v1 = await fixture.startHttpFixture({ variant: 'v1' });
  const tools = await mcpTools('drift', { url: v1.url, allowed_hosts: ['127.0.0.1'], allow_private_network: true, tools: [{ name: 'add' }] });
  await v1.close();
  const dir = logDir();
  const v2 = await fixture.startHttpFixture({ variant: 'v2', port: v1.port, logDir: dir });
  try {
    const h = await start(callingAgent('mcp-drift', tools, { name: 'drift__add', arguments: { a: 1, b: 2 } }));
    const out = String((await h.result()).output);
    expect(out).toMatch(/MCP server drift \(http:\/\/127\.0\.0\.1:\d+\/mcp\) changed the input schema of `add` \(pinned [0-9a-f]{12}, now [0-9a-f]{12}\) since this agent was published; the call was not made\. Re-publish the agent/);
    expect(lines(dir, 'calls')).toEqual([]);
  } finally {
    await v2.close();
  }
});

test('cancelling the run forwards an MCP cancellation to the server', async () => {
  const dir = logDir();
  const tools = await mcpTools('waiter', { command: 'node', args: [FIXTURE], cwd: dir, tools: [{ name: 'wait_for_cancel' }] });
  const h = await start(callingAgent('mcp-cancel', tools, { name: 'waiter__wait_for_cancel', arguments: {} }));
  await until(() => (lines(dir, 'events').includes('started') ? true : undefined), 'the server to start the call');
  await h.cancel();
  await expect(h.result()).rejects.toThrow(WorkflowFailedError);
  await until(() => (lines(dir, 'events').includes('cancelled') ? true : undefined), 'the server to receive notifications/cancelled');
  expect(lines(dir, 'events')).toEqual(['started', 'cancelled']);
});
