import { WorkflowFailedError } from '@temporalio/client';
import type { TestTemporal } from '../helpers/temporal';
import { agfReactWorkflow } from '../../src/workflows/react';
import type { AgentRunResult, RunAgentInput, RunStatus } from '../../src/shared/contract';
import { agent, builtinTool, bundleOf, scriptedModel, storeTestBundle, testStore } from './builders';
import { Harness, startHarness, waitForStatus } from './harness';
import { childWorkflowIds, historyEvents, waitForSettledHistory } from '../helpers/history';

let t: TestTemporal;
let h: Harness;

beforeAll(async () => {
  h = await startHarness('react-basic');
  t = h.t;
});
afterAll(async () => {
  await h?.close();
});

async function start(input: RunAgentInput, id = `${input.agent_id}-${Math.random().toString(36).slice(2)}`) {
  return t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: id, args: [input] });
}

test('scripted react run with a builtin tool returns the final answer', async () => {
  const a = agent({
    agent_id: 'calc',
    model: scriptedModel({
      turns: [
        { tool_calls: [{ name: 'arithmetic', arguments: { a: '{{input.a}}' as never, b: 3, op: 'mul' } }] },
        { content: { answer: 'result {{last_tool_result}}' } },
      ],
    }),
    tools: [builtinTool('arithmetic', { input_schema: { type: 'object', properties: { a: {}, b: { type: 'number' }, op: { type: 'string' } }, required: ['a', 'b', 'op'] } })],
    output_schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
  });
  const bundle = await storeTestBundle(bundleOf(a));
  const h = await start({ bundle, agent_id: 'calc', input: { a: 14 } });
  const res: AgentRunResult = await h.result();
  expect(res.output).toEqual({ answer: 'result 42' });
  expect(res.usage.total_tokens).toBeGreaterThan(0);
  const st: RunStatus = await h.query('status');
  expect(st.state).toBe('completed');
  expect(st.tool_calls_made).toBe(1);
  expect(st.turn).toBe(2);
});

test('a plain text agent answers without tools', async () => {
  const a = agent({ agent_id: 'hello', model: scriptedModel({ turns: [{ content: 'hi {{input}}' }] }) });
  const bundle = await storeTestBundle(bundleOf(a));
  const res = await (await start({ bundle, agent_id: 'hello', input: 'there' })).result();
  expect(res.output).toBe('hi there');
});

test('max_input_chars is checked before the first model call', async () => {
  const a = agent({ agent_id: 'short', model: scriptedModel({ turns: [{ content: 'x' }] }), runtime: { max_input_chars: 5 } });
  const bundle = await storeTestBundle(bundleOf(a));
  const h = await start({ bundle, agent_id: 'short', input: 'way too long' });
  await expect(h.result()).rejects.toThrow(WorkflowFailedError);
  const hist = await h.fetchHistory();
  const kinds = (hist.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
  expect(kinds).toEqual(['loadAgent']);
});

test('agent as a tool runs as a child workflow and its output goes back to the model', async () => {
  const child = agent({ agent_id: 'helper-agent', model: scriptedModel({ turns: [{ content: { said: 'child got {{input.q}}' } }] }) });
  const parent = agent({
    agent_id: 'boss',
    model: scriptedModel({ turns: [{ tool_calls: [{ id: 'ask', name: 'helper', arguments: { q: 'ping' } }] }, { content: 'boss heard {{last_tool_result}}' }] }),
    tools: [
      {
        ...builtinTool('echo'),
        tool_id: 'helper',
        kind: 'agent',
        builtin: undefined,
        agent: { agent_id: 'helper-agent' },
        input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      },
    ],
  });
  const bundle = await storeTestBundle(bundleOf(parent, child));
  const bossId = `boss-${Date.now()}`;
  const h = await start({ bundle, agent_id: 'boss', input: 'go' }, bossId);
  const res = await h.result();
  expect(res.output).toBe('boss heard {"said":"child got ping"}');
  const childRun = await t.client.workflow.getHandle(`${bossId}/tool-ask`).describe();
  expect(childRun.type).toBe('agfReactWorkflow');
  expect(childRun.status.name).toBe('COMPLETED');
});

describe('delegation (can_delegate / allowed_delegates) is enforced by the runtime', () => {
  const child = () => agent({ agent_id: 'helper-agent', model: scriptedModel({ turns: [{ content: { said: 'child got {{input.q}}' } }] }) });
  function delegator(id: string, target: string, canDelegate: boolean) {
    const a = agent({
      agent_id: id,
      model: scriptedModel({
        turns: [{ tool_calls: [{ id: 'd1', name: 'delegate_to_agent', arguments: { agent_id: target, input: { q: 'ping' } } }] }, { content: 'lead heard {{last_tool_result}}' }],
      }),
    });
    a.orchestration = { ...a.orchestration, can_delegate: canDelegate, allowed_delegates: ['helper-agent'] };
    return a;
  }

  test('an allowed delegate runs as a child workflow and its answer goes back to the model', async () => {
    const bundle = await storeTestBundle(bundleOf(delegator('lead', 'helper-agent', true), child()));
    const id = `lead-${Date.now()}`;
    const res = await (await start({ bundle, agent_id: 'lead', input: 'go' }, id)).result();
    expect(res.output).toBe('lead heard {"said":"child got ping"}');
    expect((await t.client.workflow.getHandle(`${id}/delegate-d1`).describe()).status.name).toBe('COMPLETED');
  });

  test('a delegate outside allowed_delegates is refused whatever the model says', async () => {
    const bundle = await storeTestBundle(bundleOf(delegator('lead2', 'rogue-agent', true), child()));
    const id = `lead2-${Date.now()}`;
    const res = await (await start({ bundle, agent_id: 'lead2', input: 'go' }, id)).result();
    expect(res.output).toMatch(/delegation to 'rogue-agent' refused: this agent may only delegate to helper-agent/);
    await expect(t.client.workflow.getHandle(`${id}/delegate-d1`).describe()).rejects.toThrow(/not found/i);
  });

  test('without can_delegate there is no delegate tool at all', async () => {
    const bundle = await storeTestBundle(bundleOf(delegator('lead3', 'helper-agent', false), child()));
    const res = await (await start({ bundle, agent_id: 'lead3', input: 'go' })).result();
    expect(res.output).toMatch(/unknown tool 'delegate_to_agent'/);
  });

  test('policies.require_human_approval gates delegation: the delegate runs only once approved', async () => {
    const lead = delegator('lead4', 'helper-agent', true);
    lead.policies = { ...lead.policies, require_human_approval: true };
    const bundle = await storeTestBundle(bundleOf(lead, child()));
    const id = `lead4-${Date.now()}`;
    const h = await start({ bundle, agent_id: 'lead4', input: 'go' }, id);
    const st = await waitForStatus(h, (s) => s.pending_approvals.length === 1);
    expect(st.pending_approvals[0]).toMatchObject({ call_id: 'd1', tool: 'delegate_to_agent', reason: 'policies.require_human_approval' });
    // The run has answered everything recorded so far and holds for the approval: no delegate.
    expect(childWorkflowIds(await waitForSettledHistory(h, () => true, 'the run to hold for the approval'))).toEqual([]);
    await expect(t.client.workflow.getHandle(`${id}/delegate-d1`).describe()).rejects.toThrow(/not found/i);
    await h.executeUpdate('approveCall', { args: [{ call_id: 'd1' }] });
    expect((await h.result()).output).toBe('lead heard {"said":"child got ping"}');
    // The delegate started after the approval was accepted.
    const ev = await historyEvents(h);
    const approved = ev.find((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    const delegated = ev.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId === `${id}/delegate-d1`);
    expect(approved && delegated && Number(delegated.eventId) > Number(approved.eventId)).toBe(true);
  });
});

