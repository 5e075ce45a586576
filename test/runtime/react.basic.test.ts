import { WorkflowFailedError } from '@temporalio/client';
import type { TestTemporal } from '../helpers/temporal';
import { agfReactWorkflow } from '../../src/workflows/react';
import type { AgentRunResult, RunAgentInput, RunStatus } from '../../src/shared/contract';
import { storeTestBundle, testStore } from './builders';
import { agentDefinition, builtin, compileAgent, definition, scripted } from '../helpers/definitions';

/** An interface that takes and returns any JSON (what the model's scripted replies need). */
const OPEN = { interface: { input: { schema: {} }, output: { schema: {} } } };
/** helper-agent, called as a tool or as a delegate: it answers with the `q` it was given. */
const HELPER = [
  scripted({ turns: [{ content: { said: 'child got {{input.q}}' } }] }, 'helper-model'),
  agentDefinition({ agent_id: 'helper-agent', model: scripted({}, 'helper-model'), front: { ...OPEN, orchestration: { can_be_invoked_as_tool: true } } }),
];
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
  const { bundle: compiled } = compileAgent({
    agent_id: 'calc',
    model: scripted({
      turns: [
        { tool_calls: [{ name: 'arithmetic', arguments: { a: '{{input.a}}' as never, b: 3, op: 'mul' } }] },
        { content: { answer: 'result {{last_tool_result}}' } },
      ],
    }),
    tools: [builtin('arithmetic', { input_schema: { type: 'object', properties: { a: {}, b: { type: 'number' }, op: { type: 'string' } }, required: ['a', 'b', 'op'] } })],
    front: { interface: { input: { schema: { type: 'object' } }, output: { schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } } } },
  });
  const bundle = await storeTestBundle(compiled);
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
  const bundle = await storeTestBundle(compileAgent({ agent_id: 'hello', model: scripted({ turns: [{ content: 'hi {{input}}' }] }) }).bundle);
  const res = await (await start({ bundle, agent_id: 'hello', input: 'there' })).result();
  expect(res.output).toBe('hi there');
});

test('max_input_chars is checked before the first model call', async () => {
  const bundle = await storeTestBundle(compileAgent({ agent_id: 'short', model: scripted({ turns: [{ content: 'x' }] }), front: { runtime: { max_input_chars: 5 } } }).bundle);
  const h = await start({ bundle, agent_id: 'short', input: 'way too long' });
  await expect(h.result()).rejects.toThrow(WorkflowFailedError);
  const hist = await h.fetchHistory();
  const kinds = (hist.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
  expect(kinds).toEqual(['loadAgent']);
});

test('agent as a tool runs as a child workflow and its output goes back to the model', async () => {
  const { bundle: compiled } = compileAgent({
    agent_id: 'boss',
    model: scripted({ turns: [{ tool_calls: [{ id: 'ask', name: 'helper', arguments: { q: 'ping' } }] }, { content: 'boss heard {{last_tool_result}}' }] }),
    tools: [
      definition('tool', {
        tool_id: 'helper', version: '1.0.0', status: 'active', description: 'Ask the helper agent.', kind: 'agent', agent: { agent_id: 'helper-agent' },
        input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      }),
    ],
    others: HELPER,
  });
  const bundle = await storeTestBundle(compiled);
  const bossId = `boss-${Date.now()}`;
  const h = await start({ bundle, agent_id: 'boss', input: 'go' }, bossId);
  const res = await h.result();
  expect(res.output).toBe('boss heard {"said":"child got ping"}');
  const childRun = await t.client.workflow.getHandle(`${bossId}/tool-ask`).describe();
  expect(childRun.type).toBe('agfReactWorkflow');
  expect(childRun.status.name).toBe('COMPLETED');
});

describe('delegation (can_delegate / allowed_delegates) is enforced by the runtime', () => {
  /** A lead that delegates to `target` once (compiled with helper-agent, its only allowed delegate); `front` adds fields. */
  function delegator(id: string, target: string, canDelegate: boolean, front: Record<string, unknown> = {}) {
    return compileAgent({
      agent_id: id,
      model: scripted({
        turns: [{ tool_calls: [{ id: 'd1', name: 'delegate_to_agent', arguments: { agent_id: target, input: { q: 'ping' } } }] }, { content: 'lead heard {{last_tool_result}}' }],
      }),
      others: HELPER,
      front: { orchestration: { can_delegate: canDelegate, allowed_delegates: ['helper-agent'] }, ...front },
    }).bundle;
  }

  test('an allowed delegate runs as a child workflow and its answer goes back to the model', async () => {
    const bundle = await storeTestBundle(delegator('lead', 'helper-agent', true));
    const id = `lead-${Date.now()}`;
    const res = await (await start({ bundle, agent_id: 'lead', input: 'go' }, id)).result();
    expect(res.output).toBe('lead heard {"said":"child got ping"}');
    expect((await t.client.workflow.getHandle(`${id}/delegate-d1`).describe()).status.name).toBe('COMPLETED');
  });

  test('a delegate outside allowed_delegates is refused whatever the model says', async () => {
    const bundle = await storeTestBundle(delegator('lead2', 'rogue-agent', true));
    const id = `lead2-${Date.now()}`;
    const res = await (await start({ bundle, agent_id: 'lead2', input: 'go' }, id)).result();
    expect(res.output).toMatch(/delegation to 'rogue-agent' refused: this agent may only delegate to helper-agent/);
    await expect(t.client.workflow.getHandle(`${id}/delegate-d1`).describe()).rejects.toThrow(/not found/i);
  });

  test('without can_delegate there is no delegate tool at all', async () => {
    const bundle = await storeTestBundle(delegator('lead3', 'helper-agent', false));
    const res = await (await start({ bundle, agent_id: 'lead3', input: 'go' })).result();
    expect(res.output).toMatch(/unknown tool 'delegate_to_agent'/);
  });

  test('policies.require_human_approval gates delegation: the delegate runs only once approved', async () => {
    const bundle = await storeTestBundle(delegator('lead4', 'helper-agent', true, { policies: { require_human_approval: true } }));
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

