/**
 * Seed 001's pattern limits and escalation triggers that had no test of their own: swarm
 * `max_iterations`, `node_timeout` and `execution_timeout`; `on: timeout` for graph and swarm;
 * `on: node_failure` with and without `node` for swarm and workflow (task DAG). Real dev server,
 * scripted models; durations only as limits the runtime enforces, never as test assertions.
 */
import type { EscalationRule, GraphPattern, SwarmPattern, WorkflowPattern } from '../../src/compiled/types';
import type { AgentRunResult, RunStatus } from '../../src/shared/contract';
import { agent, answers, bundle, failingModel, handoff, locals } from './builders';
import { failureOf, Harness, startHarness } from './harness';
import { childWorkflowIds, historyEvents } from '../helpers/history';

let h: Harness;
beforeAll(async () => { h = await startHarness('orch-limits'); });
afterAll(async () => { await h?.close(); });

const swarm = (p: Partial<SwarmPattern>): SwarmPattern => ({
  type: 'swarm', max_handoffs: 20, max_iterations: 20, execution_timeout: 300, node_timeout: 60,
  repetitive_handoff_detection_window: 0, repetitive_handoff_min_unique_agents: 0, agents: [], ...p,
});
const graph = (p: Partial<GraphPattern>): GraphPattern => ({ type: 'graph', execution_timeout: 120, node_timeout: 60, reset_on_revisit: false, nodes: [], edges: [], ...p });
/** The escalation agent answers with what it was told (trigger and node), so tests see the routing. */
const rescuer = (id: string) => agent({ id, model: { turns: [{ content: `${id} handled {{input}}` }] } });

describe('swarm limits', () => {
  test('max_iterations stops a swarm that never answers', async () => {
    const b = bundle('loopy', [
      agent({ id: 'loopy', pattern: swarm({ max_iterations: 3, agents: [{ ref: 'tick' }, { ref: 'tock' }] }) }),
      agent({ id: 'tick', model: { turns: [handoff('tock', 'your turn')] } }),
      agent({ id: 'tock', model: { turns: [handoff('tick', 'yours')] } }),
    ]);
    b.agents.loopy.runtime.model.scripted = { turns: [handoff('tick', 'start')] };
    const wf = await h.start(b, 'x');
    expect(await failureOf(wf)).toMatch(/\[MaxIterations\] swarm stopped: max_iterations \(3\) reached without a final answer/);
    const st = await wf.query<RunStatus>('status');
    expect(st.progress).toMatchObject({ iterations: 3 });
    expect(childWorkflowIds(await historyEvents(wf))).toHaveLength(3);
  });

  test('node_timeout fails the agent that overruns it', async () => {
    const b = bundle('slowswarm', [
      agent({ id: 'slowswarm', pattern: swarm({ node_timeout: 2, agents: [{ ref: 'sleepy' }] }) }),
      agent({ id: 'sleepy', model: answers('too late', 8000) }),
    ]);
    b.agents.slowswarm.runtime.model.scripted = { turns: [handoff('sleepy', 'take your time')] };
    expect(await failureOf(await h.start(b, 'x'))).toMatch(/\[NodeTimeout\] swarm agent 'sleepy' timed out after node_timeout \(2s\)/);
  });

  test('execution_timeout is a durable timer over the whole swarm', async () => {
    const b = bundle('longswarm', [
      agent({ id: 'longswarm', pattern: swarm({ execution_timeout: 3, node_timeout: 60, agents: [{ ref: 'long' }] }) }),
      agent({ id: 'long', model: answers('late', 20000) }),
    ]);
    b.agents.longswarm.runtime.model.scripted = { turns: [handoff('long', 'go')] };
    const wf = await h.start(b, 'x');
    expect(await failureOf(wf)).toMatch(/\[ExecutionTimeout\] swarm execution_timeout \(3s\) exceeded/);
    const ev = await historyEvents(wf);
    expect(ev.some((e) => e.timerFiredEventAttributes)).toBe(true);
    // the 20 s member never completed: the timer ended the swarm
    expect(ev.filter((e) => e.childWorkflowExecutionCompletedEventAttributes).map((e) => e.childWorkflowExecutionCompletedEventAttributes!.workflowExecution!.workflowId!).filter((id) => id.endsWith('-long'))).toEqual([]);
  });
});

describe('on: timeout', () => {
  test('graph: the execution_timeout escalation runs its agent and that agent answers for the graph', async () => {
    const esc: EscalationRule[] = [{ on: 'timeout', target: { type: 'agent', id: 'graph-rescue' } }];
    const b = bundle('g-timeout', [
      agent({ id: 'g-timeout', model: answers('go'), escalation: esc, pattern: graph({ execution_timeout: 3, nodes: [{ id: 'long', agent_ref: 'g-long' }], edges: [{ from: '$self', to: 'long' }] }) }),
      agent({ id: 'g-long', model: answers('late', 20000) }),
      rescuer('graph-rescue'),
    ]);
    const res = (await (await h.start(b, 'x')).result()) as AgentRunResult;
    expect(String(res.output)).toMatch(/^graph-rescue handled .*"trigger":"timeout"/);
    expect(String(res.output)).not.toContain('"node"');
    expect(res.warnings.join('\n')).toMatch(/escalated to agent 'graph-rescue'/);
  });

  test('swarm: the same rule, and a node_failure rule does not catch a timeout', async () => {
    const esc: EscalationRule[] = [
      { on: 'node_failure', target: { type: 'agent', id: 'wrong-rescue' } },
      { on: 'timeout', target: { type: 'agent', id: 'swarm-rescue' } },
    ];
    const b = bundle('s-timeout', [
      agent({ id: 's-timeout', escalation: esc, pattern: swarm({ execution_timeout: 3, agents: [{ ref: 's-long' }] }) }),
      agent({ id: 's-long', model: answers('late', 20000) }),
      rescuer('swarm-rescue'),
      rescuer('wrong-rescue'),
    ]);
    b.agents['s-timeout'].runtime.model.scripted = { turns: [handoff('s-long', 'go')] };
    const wf = await h.start(b, 'x');
    const res = (await wf.result()) as AgentRunResult;
    expect(String(res.output)).toMatch(/^swarm-rescue handled .*"trigger":"timeout"/);
    expect(childWorkflowIds(await historyEvents(wf)).some((id) => id.includes('wrong-rescue'))).toBe(false);
  });
});

describe('on: node_failure', () => {
  test('swarm: a rule naming another node is skipped, the catch-all handles the failing agent', async () => {
    const esc: EscalationRule[] = [
      { on: 'node_failure', node: 'somebody-else', target: { type: 'agent', id: 'wrong-rescue' } },
      { on: 'node_failure', target: { type: 'agent', id: 'swarm-catch-all' } },
    ];
    const b = bundle('s-fail', [
      agent({ id: 's-fail', escalation: esc, pattern: swarm({ agents: [{ ref: 'broken' }] }) }),
      agent({ id: 'broken', model: failingModel('backend down') }),
      rescuer('swarm-catch-all'),
      rescuer('wrong-rescue'),
    ]);
    b.agents['s-fail'].runtime.model.scripted = { turns: [handoff('broken', 'do it')] };
    const wf = await h.start(b, 'x');
    const res = (await wf.result()) as AgentRunResult;
    expect(String(res.output)).toMatch(/^swarm-catch-all handled .*"trigger":"node_failure".*"node":"broken"/);
    expect(childWorkflowIds(await historyEvents(wf)).some((id) => id.includes('wrong-rescue'))).toBe(false);
  });

  test('swarm: a rule naming the failing node wins over a later catch-all', async () => {
    const esc: EscalationRule[] = [
      { on: 'node_failure', node: 'broken2', target: { type: 'agent', id: 'named-rescue' } },
      { on: 'node_failure', target: { type: 'agent', id: 'wrong-rescue' } },
    ];
    const b = bundle('s-fail2', [
      agent({ id: 's-fail2', escalation: esc, pattern: swarm({ agents: [{ ref: 'broken2' }] }) }),
      agent({ id: 'broken2', model: failingModel('backend down') }),
      rescuer('named-rescue'),
      rescuer('wrong-rescue'),
    ]);
    b.agents['s-fail2'].runtime.model.scripted = { turns: [handoff('broken2', 'do it')] };
    const res = (await (await h.start(b, 'x')).result()) as AgentRunResult;
    expect(String(res.output)).toMatch(/^named-rescue handled .*"node":"broken2"/);
  });

  test('workflow (task DAG): the escalation agent answers for the run; with no rule the task only halts its dependents', async () => {
    const T = (task_id: string, agent_ref: string, dependencies: string[] = []) => ({ task_id, agent_ref, description: `Do ${task_id}`, priority: 0, dependencies });
    const pattern: WorkflowPattern = { type: 'workflow', max_workers: 2, retry_failed_tasks: false, tasks: [T('extract', 'dag-ok'), T('risk', 'dag-broken', ['extract']), T('report', 'dag-ok', ['risk'])] };
    const withRule = bundle('dag-esc', [
      agent({ id: 'dag-esc', pattern, escalation: [{ on: 'node_failure', node: 'risk', target: { type: 'agent', id: 'dag-rescue' } }] }),
      agent({ id: 'dag-ok', model: answers('ok') }),
      agent({ id: 'dag-broken', model: failingModel('risk model exploded') }),
      rescuer('dag-rescue'),
    ]);
    const res = (await (await h.start(withRule, 'x')).result()) as AgentRunResult;
    expect(String(res.output)).toMatch(/^dag-rescue handled .*"node":"risk"/);
    const noRule = bundle('dag-plain', [agent({ id: 'dag-plain', pattern }), agent({ id: 'dag-ok', model: answers('ok') }), agent({ id: 'dag-broken', model: failingModel('risk model exploded') })]);
    const plain = (await (await h.start(noRule, 'x')).result()) as AgentRunResult;
    expect(plain.output).toEqual({ extract: 'ok' });
    expect(plain.warnings.join('\n')).toMatch(/task 'risk' failed.*halted: report/s);
  });
});

test('top_k, which OpenAI-compatible providers lack, is reported as ignored in the run\'s warnings', async () => {
  const a = agent({ id: 'topk', model: answers('fine') });
  a.execution_policy = { id: 'agf.react', config: { top_k: 3 } } as typeof a.execution_policy;
  const res = (await (await h.start(bundle('topk', [a]), 'x')).result()) as AgentRunResult;
  expect(res.output).toBe('fine');
  expect(res.warnings).toContain('execution_policy.config.top_k is not supported by OpenAI-compatible providers: ignored');
});

describe('graph error edges', () => {
  test('a failing node follows its error edge before any escalation rule; its target gets the error', async () => {
    const esc: EscalationRule[] = [{ on: 'node_failure', target: { type: 'agent', id: 'wrong-rescue' } }];
    const b = bundle('pay', [
      agent({ id: 'pay', model: answers('go'), escalation: esc, pattern: graph({
        nodes: [{ id: 'charge', agent_ref: 'pay-charge' }, { id: 'receipt', agent_ref: 'pay-receipt' }, { id: 'refund-desk', agent_ref: 'pay-refund' }],
        edges: [{ from: '$self', to: 'charge' }, { from: 'charge', to: 'receipt' }, { from: 'charge', to: 'refund-desk', on: 'error' }],
      }) }),
      agent({ id: 'pay-charge', model: failingModel('card declined') }),
      agent({ id: 'pay-receipt', model: answers('receipt sent') }),
      agent({ id: 'pay-refund', model: { turns: [{ content: 'refund desk got {{input}}' }] } }),
      rescuer('wrong-rescue'),
    ]);
    const wf = await h.start(b, 'x');
    const res = (await wf.result()) as AgentRunResult;
    expect(String(res.output)).toMatch(/^refund desk got .*"inputs":\{"charge":\{"error":"failed: .*card declined.*","node":"charge"\}\}/);
    expect(res.warnings.join('\n')).toMatch(/graph node 'charge' failed: .*; followed its error edge\(s\) to 'refund-desk'/);
    const kids = childWorkflowIds(await historyEvents(wf));
    expect(kids.some((id) => id.includes('receipt') || id.includes('wrong-rescue'))).toBe(false);
    expect((await wf.query<RunStatus>('status')).progress).toMatchObject({ nodes: { charge: { status: 'failed' }, 'refund-desk': { status: 'completed' }, receipt: { executions: 0 } } });
  });
});

test('a graph node whose agent_ref is itself a multi-agent system runs it as the node (its own workflow and members)', async () => {
  const b = bundle('outer', [
    agent({ id: 'outer', model: answers('go'), pattern: graph({
      nodes: [{ id: 'research', agent_ref: 'research-team' }, { id: 'write', agent_ref: 'writer' }],
      edges: [{ from: '$self', to: 'research' }, { from: 'research', to: 'write' }],
    }) }),
    // The node is a sequential pipeline of two agents (seed 001: "agents (or nested multi-agent systems) are nodes").
    agent({ id: 'research-team', policy: { id: 'agf.sequential', config: { steps: [{ agent: 'finder' }, { agent: 'checker' }] } }, local_agents: locals('finder', 'checker') }),
    agent({ id: 'finder', model: answers('FOUND-3-SOURCES') }),
    agent({ id: 'checker', model: { turns: [{ content: 'checked: {{input}}' }] } }),
    agent({ id: 'writer', model: { turns: [{ content: 'article from {{input}}' }] } }),
  ]);
  const wf = await h.start(b, 'topic');
  const res = (await wf.result()) as AgentRunResult;
  expect(String(res.output)).toMatch(/^article from .*checked: .*FOUND-3-SOURCES/);
  const node = `${wf.workflowId}/node-research-1`;
  const desc = await h.t.client.workflow.getHandle(node).describe();
  expect(desc.type).toBe('agfSequentialWorkflow');
  const inner = childWorkflowIds(await historyEvents(h.t.client.workflow.getHandle(node)));
  expect(inner).toHaveLength(2);
});
