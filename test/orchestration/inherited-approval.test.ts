/**
 * `policies.require_human_approval: true` on an agf.sequential pipeline, on a real dev server: the
 * pipeline runs no model turn of its own, so the compiler hands the ceiling down to its members; a
 * member's http call with a side effect (a request to a recorder on 127.0.0.1) waits for a human,
 * is listed at the ROOT (its status and the tree-wide inbox), is approved from the root id, and
 * only then reaches the recorder, once. The same pipeline without the policy calls at once. A
 * workflow pattern's `runtime.max_tool_calls` bounds its member's calls the same way.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import type { CompiledBundle } from '../../src/compiled/types';
import type { PendingDecision } from '../../src/shared/contract';
import { statusQuery } from '../../src/shared/definitions';
import { AgentloomClient } from '../../src/client/agentloom-client';
import { agentDefinition, definition, Definitions, scripted, type AgentDef } from '../helpers/definitions';
import { quietWindow, until } from '../helpers/wait';
import { Harness, startHarness } from './harness';

let h: Harness;
let loom: AgentloomClient;
let server: http.Server;
let url = '';
/** Every request the recorder received: the side effect of the `charge` tool. */
const received: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => {
      received.push(body);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ charged: true, n: received.length }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/charge`;
  h = await startHarness('inherited-approval');
  loom = new AgentloomClient({ client: h.t.client, taskQueue: h.t.taskQueue, by: 'inherited-approval-test' });
});

afterAll(async () => {
  await h?.close();
  await new Promise<void>((r) => server?.close(() => r()));
});

const PAY_ONCE = [{ id: 'pay-1', name: 'charge', arguments: { amount: 5 } }];

/**
 * The pipeline (payer, then closer) from real definitions; `policies` on the pipeline only. `front`
 * replaces the pipeline's execution policy (e.g. a workflow pattern over the same members), `calls`
 * the payer's first turn.
 */
function pipeline(id: string, policies: Record<string, unknown>, front?: Record<string, unknown>, calls = PAY_ONCE): CompiledBundle {
  const model = scripted({ turns: [{ tool_calls: calls }, { content: 'paid: {{last_tool_result}}' }] }, `${id}-payer-model`);
  const closerModel = scripted({ turns: [{ content: 'closed: {{input}}' }] }, `${id}-closer-model`);
  const charge = definition('tool', {
    tool_id: 'charge', version: '1.0.0', status: 'active', description: 'Charge an amount (a POST to the billing service).', kind: 'http',
    input_schema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
    http: { method: 'POST', url, allowed_hosts: ['127.0.0.1'], allow_private_network: true },
    side_effects: true, approval_required: false,
  });
  const members: AgentDef[] = [
    // Any input: a pipeline step gives it text, a task DAG an object naming its task.
    { agent_id: `${id}-payer`, model, tools: [charge], front: { interface: { input: { schema: {}, examples: ['order'] }, output: { schema: { type: 'string' } } } } },
    { agent_id: `${id}-closer`, model: closerModel },
  ];
  const root: AgentDef = {
    agent_id: id, model: closerModel,
    front: {
      local_agents: [{ alias: 'payer', agent_ref: `${id}-payer` }, { alias: 'closer', agent_ref: `${id}-closer` }],
      ...(front ?? { execution_policy: { id: 'agf.sequential', config: { steps: [{ agent: 'payer' }, { agent: 'closer' }] } } }),
      policies,
    },
  };
  const defs = new Definitions();
  try {
    defs.addAll([model, closerModel, charge]);
    for (const a of [...members, root]) defs.add(agentDefinition(a));
    return defs.compile(id);
  } finally {
    defs.remove();
  }
}

test('a pipeline with require_human_approval: its member\'s http call waits, is found and approved from the root, then runs once', async () => {
  const b = pipeline('gated-pipeline', { require_human_approval: true });
  const before = received.length;
  const wf = await h.start(b, 'order 42');

  // The member's call waits, listed at the root with its path.
  const [d] = await until(async () => {
    const ds: PendingDecision[] = (await wf.query(statusQuery)).pending_decisions ?? [];
    return ds.length === 1 ? ds : undefined;
  }, 'the member\'s call pending at the root', 60_000);
  expect(d).toMatchObject({ kind: 'approval', path: ['step-1-payer'], agent_id: 'gated-pipeline-payer', call_id: 'pay-1', tool: 'charge', reason: expect.stringContaining('policies.require_human_approval') });
  expect(d.workflow_id).toBe(`${wf.workflowId}/step-1-payer`);

  // In the tree-wide inbox (`loom inbox`), under the root.
  const entry = await until(async () => (await loom.inbox()).find((e) => e.root_workflow_id === wf.workflowId), 'the call in the inbox', 60_000);
  expect(entry).toMatchObject({ call_id: 'pay-1', agent_id: 'gated-pipeline-payer', path: ['step-1-payer'] });
  expect(entry.answer.join('\n')).toContain(wf.workflowId);

  // No side effect while it waits.
  await quietWindow(1500, 'the held call must not reach the recorder before the approval');
  expect(received.length).toBe(before);

  // Approved from the ROOT id: the client resolves the member that holds it.
  const said = await loom.approve(wf.workflowId, 'pay-1');
  expect(said).toMatchObject({ callId: 'pay-1', workflowId: `${wf.workflowId}/step-1-payer`, result: expect.stringContaining('pay-1') });
  const res = await wf.result();
  expect(String(res.output)).toContain('closed: paid:');
  expect(String(res.output)).toContain('"charged":true');
  expect(received.length).toBe(before + 1);
  expect(JSON.parse(received[before])).toEqual({ amount: 5 });
  expect((await wf.query(statusQuery)).pending_decisions ?? []).toEqual([]);
}, 120_000);

test('the same pipeline without the policy: the member calls at once and the run completes without any decision', async () => {
  const b = pipeline('open-pipeline', {});
  const before = received.length;
  const wf = await h.start(b, 'order 43');
  const res = await wf.result();
  expect(received.length).toBe(before + 1);
  expect(String(res.output)).toContain('"charged":true');
}, 120_000);

test('a workflow pattern with runtime.max_tool_calls 1: its member asks for two charges, one reaches the recorder', async () => {
  const twice = [{ id: 'pay-1', name: 'charge', arguments: { amount: 5 } }, { id: 'pay-2', name: 'charge', arguments: { amount: 6 } }];
  // A task DAG answers with its tasks' outputs keyed by task id: an object.
  const dag = (id: string) => ({
    orchestration: { pattern: { type: 'workflow', tasks: [{ task_id: 'pay', agent_ref: `${id}-payer`, description: 'charge the order' }] } },
    interface: { input: { schema: { type: 'string' }, examples: ['order'] }, output: { schema: { type: 'object' } } },
  });
  const bounded = pipeline('bounded-dag', {}, { ...dag('bounded-dag'), runtime: { max_tool_calls: 1 } }, twice);
  expect(bounded.agents['bounded-dag-payer'].runtime.max_tool_calls).toBe(1);
  let before = received.length;
  const r = await (await h.start(bounded, 'order 44')).result();
  expect(r.warnings).toEqual([]);
  expect(JSON.stringify(r.output)).toContain('runtime.max_tool_calls (1) reached');
  expect(received.length).toBe(before + 1);

  // Control: the same pattern without the field lets both calls through.
  const open = pipeline('open-dag', {}, dag('open-dag'), twice);
  before = received.length;
  expect((await (await h.start(open, 'order 45')).result()).warnings).toEqual([]);
  expect(received.length).toBe(before + 2);
}, 120_000);
