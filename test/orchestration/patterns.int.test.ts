/** Graph, Swarm, task DAG and steps patterns on a real Temporal dev server. */
import type { GraphPattern, StepDefinition, SwarmPattern, WorkflowPattern, EscalationRule } from '../../src/compiled/types';
import type { AgentRunResult, RunStatus } from '../../src/shared/contract';
import { agent, answers, bundle, byInput, failingModel, handoff } from './builders';
import { childIds, failureOf, Harness, startHarness, waitFor } from './harness';
import { childWorkflowIds, historyEvents, signalEventIds, waitForSettledHistory } from '../helpers/history';

let h: Harness;
beforeAll(async () => { h = await startHarness('orch-pat'); });
afterAll(async () => { await h?.close(); });

const graph = (p: Partial<GraphPattern>): GraphPattern => ({ type: 'graph', execution_timeout: 120, node_timeout: 60, reset_on_revisit: false, nodes: [], edges: [], ...p });

describe('graph', () => {
  test('$self entry, conditional edge on result_contains, sequential tail', async () => {
    const b = bundle('triage', [
      agent({ id: 'triage', model: answers('This looks like a billing question'), pattern: graph({
        nodes: [{ id: 'billing-specialist', agent_ref: 'billing-agent' }, { id: 'tech-specialist', agent_ref: 'tech-agent' }, { id: 'report-writer', agent_ref: 'reporting-agent' }],
        edges: [
          { from: '$self', to: 'billing-specialist', condition: "result_contains('billing')" },
          { from: '$self', to: 'tech-specialist', condition: "result_contains('technical')" },
          { from: 'billing-specialist', to: 'report-writer' },
          { from: 'tech-specialist', to: 'report-writer' },
        ],
      }) }),
      agent({ id: 'billing-agent', model: answers({ refund: 12 }) }),
      agent({ id: 'tech-agent', model: answers('tech!') }),
      agent({ id: 'reporting-agent', model: byInput([{ contains: 'refund', reply: { content: 'report: refund issued' } }], { content: 'report without inputs' }) }),
    ]);
    const wf = await h.start(b, { ticket: 'charged twice' });
    const res = (await wf.result()) as AgentRunResult;
    expect(res.output).toBe('report: refund issued');
    const st = await wf.query<RunStatus>('status');
    expect(st.progress).toMatchObject({ total_executions: 3, nodes: { 'tech-specialist': { executions: 0 }, 'report-writer': { executions: 1 } } });
    expect(await childIds(h, wf.workflowId)).toEqual([`${wf.workflowId}/node-billing-specialist-1`, `${wf.workflowId}/node-report-writer-1`, `${wf.workflowId}/node-self-1`]);
  });

  test('parallel fan-out and join waits for every branch', async () => {
    const b = bundle('fan', [
      agent({ id: 'fan', model: answers('go'), pattern: graph({
        nodes: [{ id: 'slow', agent_ref: 'slow-agent' }, { id: 'fast', agent_ref: 'fast-agent' }, { id: 'join', agent_ref: 'join-agent' }],
        edges: [{ from: '$self', to: 'slow' }, { from: '$self', to: 'fast' }, { from: 'slow', to: 'join' }, { from: 'fast', to: 'join' }],
      }) }),
      agent({ id: 'slow-agent', model: answers('SLOW-RESULT', 1500) }),
      agent({ id: 'fast-agent', model: answers('FAST-RESULT') }),
      agent({ id: 'join-agent', model: byInput([{ contains: 'SLOW-RESULT', reply: { content: 'joined both' } }], { content: 'joined early' }) }),
    ]);
    const wf = await h.start(b, 'x');
    expect(((await wf.result()) as AgentRunResult).output).toBe('joined both');
    expect((await wf.query<RunStatus>('status')).progress).toMatchObject({ nodes: { join: { executions: 1 } } });
  });

  test('a cycle is stopped by max_node_executions', async () => {
    const b = bundle('drafting', [
      agent({ id: 'drafting', model: answers('start'), pattern: graph({
        max_node_executions: 5,
        nodes: [{ id: 'drafter', agent_ref: 'drafter-agent' }, { id: 'reviewer', agent_ref: 'reviewer-agent' }],
        edges: [{ from: '$self', to: 'drafter' }, { from: 'drafter', to: 'reviewer' }, { from: 'reviewer', to: 'drafter', condition: 'state.score < 0.8' }],
      }) }),
      agent({ id: 'drafter-agent', model: answers({ draft: 'd' }) }),
      agent({ id: 'reviewer-agent', model: answers({ score: 0.3 }) }),
    ]);
    const wf = await h.start(b, 'x');
    expect(await failureOf(wf)).toMatch(/max_node_executions \(5\) reached with 'drafter' still to run/);
    const st = await wf.query<RunStatus>('status');
    expect(st.state).toBe('failed');
    expect(st.progress).toMatchObject({ total_executions: 5, nodes: { drafter: { executions: 2 }, reviewer: { executions: 2 } } });
  });

  test('a cycle exits once the reviewer approves (reset_on_revisit false passes earlier outputs)', async () => {
    const b = bundle('drafting2', [
      agent({ id: 'drafting2', model: answers('start'), pattern: graph({
        max_node_executions: 10,
        nodes: [{ id: 'drafter', agent_ref: 'drafter2' }, { id: 'reviewer', agent_ref: 'reviewer2' }],
        edges: [{ from: '$self', to: 'drafter' }, { from: 'drafter', to: 'reviewer' }, { from: 'reviewer', to: 'drafter', condition: 'state.score < 0.8 and not result_contains(\'approved\')' }],
      }) }),
      // reset_on_revisit false: the revisit continues the drafter's conversation (its last message: the reviewer's score).
      agent({ id: 'drafter2', model: { rules: [{ when: { last_message_contains: 'score' }, reply: { content: { draft: 'second draft' } } }], turns: [{ content: { draft: 'first draft' } }] } }),
      agent({ id: 'reviewer2', model: { rules: [{ when: { last_message_contains: 'second draft' }, reply: { content: { score: 0.9, verdict: 'approved' } } }], turns: [{ content: { score: 0.1 } }] } }),
    ]);
    const res = (await (await h.start(b, 'x')).result()) as AgentRunResult;
    expect(res.output).toEqual({ score: 0.9, verdict: 'approved' });
  });

  test('a join inside a cycle (conditional back-edge join -> a) waits for both branches and loops without deadlock', async () => {
    const b = bundle('cyclejoin', [
      agent({ id: 'cyclejoin', model: answers('go'), pattern: graph({
        max_node_executions: 10,
        nodes: [{ id: 'a', agent_ref: 'cj-a' }, { id: 'b', agent_ref: 'cj-b' }, { id: 'join', agent_ref: 'cj-join' }],
        edges: [
          { from: '$self', to: 'a' }, { from: '$self', to: 'b' }, { from: 'a', to: 'join' }, { from: 'b', to: 'join' },
          { from: 'join', to: 'a', condition: "result_contains('again')" },
        ],
      }) }),
      agent({ id: 'cj-a', model: answers('A-OUT', 1000) }),
      agent({ id: 'cj-b', model: answers('B-OUT') }),
      // Its second visit reads its own first answer in the graph transcript.
      agent({ id: 'cj-join', model: { rules: [
        { when: { last_message_contains: '[join (visit 1)]' }, reply: { content: 'done' } },
        { when: { input_contains: 'A-OUT' }, reply: { content: 'again' } },
      ], turns: [{ content: 'joined without a' }] } }),
    ]);
    const wf = await h.start(b, 'x');
    expect(((await wf.result()) as AgentRunResult).output).toBe('done');
    const st = await wf.query<RunStatus>('status');
    expect(st.progress).toMatchObject({ total_executions: 6, nodes: { a: { executions: 2 }, b: { executions: 1 }, join: { executions: 2 } } });
  });

  test('a graph whose activated nodes wait on each other fails naming them (no partial output)', async () => {
    const b = bundle('stallgraph', [
      agent({ id: 'stallgraph', model: answers('go'), pattern: graph({
        nodes: [{ id: 's', agent_ref: 'st-s' }, { id: 'a', agent_ref: 'st-a' }, { id: 'b', agent_ref: 'st-b' }],
        edges: [
          { from: '$self', to: 's' }, { from: '$self', to: 'b' }, { from: 's', to: 'a' }, { from: 'a', to: 'b' },
          { from: 'b', to: 's', condition: "result_contains('loop')" },
        ],
      }) }),
      agent({ id: 'st-s', model: answers('S-OUT') }),
      agent({ id: 'st-a', model: answers('A-OUT') }),
      agent({ id: 'st-b', model: answers('B-OUT') }),
    ]);
    const wf = await h.start(b, 'x');
    expect(await failureOf(wf)).toMatch(/\[GraphStalled\] graph stalled: node\(s\) 'a', 'b' were activated but can never run/);
    const st = await wf.query<RunStatus>('status');
    expect(st.state).toBe('failed');
    expect(st.error).toMatch(/graph stalled/);
    expect(st.progress).toMatchObject({ nodes: { a: { status: 'activated', executions: 0 }, b: { status: 'activated', executions: 0 } } });
  });

  test('node_timeout marks the node failed and fails the graph', async () => {
    const b = bundle('slowgraph', [
      agent({ id: 'slowgraph', model: answers('go'), pattern: graph({ node_timeout: 2, nodes: [{ id: 'sleepy', agent_ref: 'sleepy-agent' }], edges: [{ from: '$self', to: 'sleepy' }] }) }),
      agent({ id: 'sleepy-agent', model: answers('too late', 8000) }),
    ]);
    expect(await failureOf(await h.start(b, 'x'))).toMatch(/graph node 'sleepy' timed out after node_timeout \(2s\)/);
  });

  test('node_timeout is the member\'s execution timeout (continue-as-new does not reset it)', async () => {
    const b = bundle('ttlgraph', [
      agent({ id: 'ttlgraph', model: answers('go'), pattern: graph({ node_timeout: 45, nodes: [{ id: 'quick', agent_ref: 'quick-agent' }], edges: [{ from: '$self', to: 'quick' }] }) }),
      agent({ id: 'quick-agent', model: answers('fast') }),
    ]);
    const wf = await h.start(b, 'x');
    expect(((await wf.result()) as AgentRunResult).output).toBe('fast');
    const member = await h.t.client.workflow.getHandle(`${wf.workflowId}/node-quick-1`).describe();
    const cfg = member.raw.executionConfig!;
    expect(Number(cfg.workflowExecutionTimeout?.seconds ?? 0)).toBe(45);
  });

  test('execution_timeout is a durable timer: the graph fails when it fires', async () => {
    const b = bundle('slowall', [
      agent({ id: 'slowall', model: answers('go'), pattern: graph({ execution_timeout: 3, node_timeout: 60, nodes: [{ id: 'long', agent_ref: 'long-agent' }], edges: [{ from: '$self', to: 'long' }] }) }),
      agent({ id: 'long-agent', model: answers('late', 20000) }),
    ]);
    const wf = await h.start(b, 'x');
    expect(await failureOf(wf)).toMatch(/graph execution_timeout \(3s\) exceeded/);
    // The 3 s timer ended the graph, not the 20 s member: a timer of at most 3 s fired and the
    // member never completed.
    const ev = await historyEvents(wf);
    const fired = new Set(ev.filter((e) => e.timerFiredEventAttributes).map((e) => String(e.timerFiredEventAttributes!.startedEventId)));
    const firedTimers = ev.filter((e) => e.timerStartedEventAttributes && fired.has(String(e.eventId)));
    expect(firedTimers.length).toBeGreaterThan(0);
    for (const t of firedTimers) expect(Number(t.timerStartedEventAttributes!.startToFireTimeout?.seconds ?? 0)).toBeLessThanOrEqual(3);
    expect(childWorkflowIds(ev).filter((id) => id.endsWith('/node-long-1'))).toHaveLength(1);
    const completed = ev.filter((e) => e.childWorkflowExecutionCompletedEventAttributes).map((e) => e.childWorkflowExecutionCompletedEventAttributes!.workflowExecution!.workflowId!);
    expect(completed.filter((id) => id.endsWith('/node-long-1'))).toEqual([]);
  });

  test('node_failure escalation to an agent returns that agent\'s result', async () => {
    const esc: EscalationRule[] = [
      { on: 'node_failure', node: 'billing-specialist', target: { type: 'agent', id: 'billing-escalation-agent' } },
      { on: 'node_failure', target: { type: 'human_queue', id: 'ops-oncall' } },
    ];
    const b = bundle('escal', [
      agent({ id: 'escal', model: answers('go'), escalation: esc, pattern: graph({ nodes: [{ id: 'billing-specialist', agent_ref: 'broken-billing' }], edges: [{ from: '$self', to: 'billing-specialist' }] }) }),
      agent({ id: 'broken-billing', model: failingModel('billing backend down') }),
      agent({ id: 'billing-escalation-agent', model: answers('handled by escalation') }),
    ]);
    const res = (await (await h.start(b, 'x')).result()) as AgentRunResult;
    expect(res.output).toBe('handled by escalation');
    expect(res.warnings.join('\n')).toMatch(/escalated to agent 'billing-escalation-agent'/);
  });
});

const swarm = (p: Partial<SwarmPattern>): SwarmPattern => ({
  type: 'swarm', max_handoffs: 20, max_iterations: 20, execution_timeout: 300, node_timeout: 60,
  repetitive_handoff_detection_window: 0, repetitive_handoff_min_unique_agents: 0, agents: [], ...p,
});

describe('swarm', () => {
  test('hand-offs carry message and context; the swarm ends on a final answer', async () => {
    const b = bundle('lead', [
      // The lead's (open) output schema is the swarm's output contract: the coder answers in text.
      agent({ id: 'lead', model: answers(handoff('architect', 'design the API', { language: 'typescript' }) as never), output_schema: {}, pattern: swarm({ agents: [{ ref: 'architect' }, { ref: 'coder' }] }) }),
      agent({ id: 'architect', model: { turns: [handoff('coder', 'implement the design')] } }),
      agent({ id: 'coder', model: byInput([{ contains: 'implement the design', reply: { content: 'code written' } }], { content: 'coder confused' }) }),
    ]);
    // `answers` wraps content; the lead needs a tool call turn instead:
    b.agents.lead.runtime.model.scripted = { turns: [handoff('architect', 'design the API', { language: 'typescript' })] };
    const wf = await h.start(b, { task: 'build a service' });
    const res = (await wf.result()) as AgentRunResult;
    expect(res.output).toBe('code written');
    const st = await wf.query<RunStatus>('status');
    expect(st.progress).toMatchObject({ handoffs: 2, iterations: 3, history: [{ agent: 'lead', handoff_to: 'architect' }, { agent: 'architect', handoff_to: 'coder' }, { agent: 'coder' }] });
  });

  test('ping-pong between two agents is detected and fails the swarm', async () => {
    const b = bundle('pp', [
      agent({ id: 'pp', pattern: swarm({ agents: [{ ref: 'ping' }, { ref: 'pong' }, { ref: 'third' }], repetitive_handoff_detection_window: 4, repetitive_handoff_min_unique_agents: 3 }) }),
      agent({ id: 'ping', model: { turns: [handoff('pong', 'your turn')] } }),
      agent({ id: 'pong', model: { turns: [handoff('ping', 'no, yours')] } }),
      agent({ id: 'third' }),
    ]);
    b.agents.pp.runtime.model.scripted = { turns: [handoff('ping', 'start')] };
    const wf = await h.start(b, 'x');
    expect(await failureOf(wf)).toMatch(/repetitive hand-off detected: only 2 unique agent\(s\)/);
    expect((await wf.query<RunStatus>('status')).progress).toMatchObject({ handoffs: 4 });
  });

  test('a hand-off to an unlisted agent is refused and the unlisted agent never runs', async () => {
    const b = bundle('guarded', [
      agent({ id: 'guarded', pattern: swarm({ agents: [{ ref: 'helper' }] }) }),
      agent({ id: 'helper' }),
      agent({ id: 'intruder', model: answers('I should never run') }),
    ]);
    b.agents.guarded.runtime.model.scripted = { turns: [handoff('intruder', 'take over')] };
    const wf = await h.start(b, 'x');
    const msg = await failureOf(wf);
    expect(msg).toMatch(/hand-off to 'intruder' refused: not an agent of this swarm/);
    // From the closed run's history (the visibility list behind childIds may lag behind it).
    const kids = childWorkflowIds(await historyEvents(wf));
    expect(kids.some((k) => k.includes('intruder'))).toBe(false);
    expect(kids).toHaveLength(2); // told once, then failed
  });

  test('max_handoffs: the agent holding the task must answer (no hand-off tool, tools forbidden)', async () => {
    const b = bundle('capped', [
      agent({ id: 'capped', pattern: swarm({ max_handoffs: 1, agents: [{ ref: 'eager' }] }) }),
      // eager would hand back, but after the last allowed hand-off it runs with forbid_tools.
      agent({ id: 'eager', model: { rules: [{ when: { turn: 0 }, reply: handoff('capped', 'back to you') }], turns: [{ content: 'eager answers' }] } }),
    ]);
    b.agents.capped.runtime.model.scripted = { turns: [handoff('eager', 'please')] };
    const wf = await h.start(b, 'original task');
    await wf.result();
    expect((await wf.query<RunStatus>('status')).progress).toMatchObject({ handoffs: 1, iterations: 2, history: [{ agent: 'capped', handoff_to: 'eager' }, { agent: 'eager' }] });
    const kids = await childIds(h, wf.workflowId);
    expect(kids).toEqual([`${wf.workflowId}/turn-1-capped`, `${wf.workflowId}/turn-2-eager`]);
    const eagerIn = await h.t.client.workflow.getHandle(`${wf.workflowId}/turn-2-eager`).fetchHistory();
    const started = eagerIn.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
    const args = JSON.parse(Buffer.from(started as Uint8Array).toString('utf8'));
    expect(args.options).toMatchObject({ forbid_tools: true });
    expect(args.options.extra_tools).toBeUndefined();
  });
});

const T = (task_id: string, agent_ref: string, dependencies: string[] = [], priority = 0) => ({ task_id, agent_ref, description: `Do ${task_id}`, priority, dependencies });

describe('workflow (task DAG)', () => {
  test('a failed task halts only its dependents; retry once; status has progress and errors', async () => {
    const pattern: WorkflowPattern = {
      type: 'workflow', max_workers: 2, retry_failed_tasks: true,
      tasks: [T('data-extraction', 'extractor', [], 5), T('trend-analysis', 'analyst', ['data-extraction'], 3), T('risk-assessment', 'risky', ['data-extraction'], 3), T('report-generation', 'reporter', ['trend-analysis', 'risk-assessment'], 1), T('side-quest', 'sider')],
    };
    const b = bundle('quarterly', [
      agent({ id: 'quarterly', pattern }),
      agent({ id: 'extractor', model: answers({ revenue: 10 }) }),
      agent({ id: 'analyst', model: byInput([{ contains: 'revenue', reply: { content: 'trend up' } }], { content: 'no data' }) }),
      agent({ id: 'risky', model: failingModel('risk model exploded') }),
      agent({ id: 'reporter', model: answers('report') }),
      agent({ id: 'sider', model: answers('side done') }),
    ]);
    const wf = await h.start(b, { quarter: 'Q3' });
    const res = (await wf.result()) as AgentRunResult;
    expect(res.output).toEqual({ 'data-extraction': { revenue: 10 }, 'trend-analysis': 'trend up', 'side-quest': 'side done' });
    expect(res.warnings.join('\n')).toMatch(/task 'risk-assessment' failed.*halted: report-generation/s);
    const st = await wf.query<RunStatus>('status');
    const prog = st.progress as { progress_percent: number; tasks: { task_id: string; status: string; attempts: number; error?: string; duration_ms?: number }[] };
    expect(prog.progress_percent).toBe(100);
    const byId = Object.fromEntries(prog.tasks.map((t) => [t.task_id, t]));
    expect(byId['risk-assessment']).toMatchObject({ status: 'failed', attempts: 2, error: expect.stringMatching(/exploded/) });
    expect(byId['report-generation']).toMatchObject({ status: 'halted' });
    expect(byId['trend-analysis'].status).toBe('completed');
    expect(typeof byId['trend-analysis'].duration_ms).toBe('number');
  });

  test('pause stops new tasks after in-flight ones; resume continues', async () => {
    const pattern: WorkflowPattern = { type: 'workflow', retry_failed_tasks: false, tasks: [T('first', 'slowpoke'), T('second', 'quick', ['first'])] };
    const b = bundle('pausable', [agent({ id: 'pausable', pattern }), agent({ id: 'slowpoke', model: answers('one', 2000) }), agent({ id: 'quick', model: answers('two') })]);
    const wf = await h.start(b, 'x');
    const taskStatus = async (i: number) => ((await wf.query<RunStatus>('status')).progress as { tasks: { status: string }[] } | undefined)?.tasks[i].status;
    await waitFor(async () => (await taskStatus(0)) === 'running', 'first task to start');
    await wf.signal('pause');
    const paused = await waitFor(async () => {
      const st = await wf.query<RunStatus>('status');
      const tasks = (st.progress as { tasks: { task_id: string; status: string }[] }).tasks;
      return tasks[0].status === 'completed' ? st : undefined;
    }, 'first task to complete while paused');
    expect(paused.state).toBe('paused');
    // The run has answered the first task's completion: whatever it would start next is in the
    // history by now, and the second task is not there.
    const held = await waitForSettledHistory(wf, (ev) => ev.some((e) => e.childWorkflowExecutionCompletedEventAttributes), "the run to answer the first task's completion");
    expect(childWorkflowIds(held)).toHaveLength(1);
    const still = await wf.query<RunStatus>('status');
    expect((still.progress as { tasks: { status: string }[]; progress_percent: number }).tasks[1].status).toBe('pending');
    expect((still.progress as { progress_percent: number }).progress_percent).toBe(50);
    await wf.signal('resume');
    const res = (await wf.result()) as AgentRunResult;
    expect(res.output).toEqual({ first: 'one', second: 'two' });
    // The second task started only after the resume was recorded.
    const ev = await historyEvents(wf);
    const starts = ev.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).map((e) => Number(e.eventId));
    expect(starts).toHaveLength(2);
    expect(starts[1]).toBeGreaterThan(signalEventIds(ev, 'resume')[0]);
  });
});

describe('steps (seed 004)', () => {
  test('the seed example runs unchanged: FanOut, Collect, Conditional, Loop, output_var', async () => {
    const steps: StepDefinition[] = [
      { name: 'extract', agent: { ByName: 'extractor' }, prompt_template: 'Extract from: {{input}}', output_var: 'data' },
      { name: 'legal-review', mode: 'FanOut', agent: { ByName: 'legal' }, prompt_template: 'Legal review: {{data}}' },
      { name: 'compliance-review', mode: 'FanOut', agent: { ByName: 'compliance' }, prompt_template: 'Compliance review: {{data}}' },
      { name: 'synthesize', mode: 'Collect', agent: { ByName: 'synthesizer' }, prompt_template: 'Combine reviews: {{input}}' },
      { name: 'escalate', mode: { Conditional: { condition: 'high_risk' } }, agent: { ByName: 'supervisor' }, prompt_template: 'Escalate: {{input}}' },
      { name: 'finalize', mode: { Loop: { max_iterations: 3, until: 'APPROVED' } }, agent: { ByName: 'finalizer' }, prompt_template: 'Finalize: {{input}}' },
    ];
    const b = bundle('contract-review', [
      agent({ id: 'contract-review', pattern: { type: 'steps', steps } }),
      agent({ id: 'extractor', model: byInput([{ contains: 'Extract from: the contract', reply: { content: 'CLAUSES' } }], { content: 'extract-miss' }) }),
      agent({ id: 'legal', model: byInput([{ contains: 'Legal review: CLAUSES', reply: { content: 'legal ok' } }], { content: 'legal-miss' }) }),
      agent({ id: 'compliance', model: byInput([{ contains: 'Compliance review: CLAUSES', reply: { content: 'compliance ok' } }], { content: 'compliance-miss' }) }),
      agent({ id: 'synthesizer', model: byInput([{ contains: 'legal ok\n\n---\n\ncompliance ok', reply: { content: 'summary: High_Risk found' } }], { content: 'synth-miss' }) }),
      agent({ id: 'supervisor', model: byInput([{ contains: 'Escalate: summary', reply: { content: 'supervised draft' } }], { content: 'sup-miss' }) }),
      agent({ id: 'finalizer', model: byInput([{ contains: 'Finalize: Finalize', reply: { content: 'final version: approved' } }], { content: 'Finalize once more' }) }),
    ]);
    const wf = await h.start(b, 'the contract');
    const res = (await wf.result()) as AgentRunResult;
    expect(res.output).toBe('final version: approved');
    const st = await wf.query<RunStatus>('status');
    expect((st.progress as { steps: unknown[] }).steps).toEqual([
      { step: 'extract', status: 'completed' }, { step: 'legal-review', status: 'completed' }, { step: 'compliance-review', status: 'completed' },
      { step: 'synthesize', status: 'completed' }, { step: 'escalate', status: 'completed' }, { step: 'finalize', status: 'completed', iterations: 2 },
    ]);
  });

  test('{"ByName": alias} resolves through local_agents when the alias differs from the agent id', async () => {
    const b = bundle('alias-steps', [
      agent({ id: 'alias-steps', local_agents: [{ alias: 'drafter', agent_ref: 'draft-writer-v2' }, { alias: 'checker', agent_ref: 'qa-agent' }], pattern: { type: 'steps', steps: [
        { name: 'draft', agent: { ByName: 'drafter' }, prompt_template: 'Draft: {{input}}' },
        { name: 'check', agent: { ByName: 'checker' }, prompt_template: 'Check: {{input}}' },
      ] } }),
      agent({ id: 'draft-writer-v2', model: byInput([{ contains: 'Draft: memo', reply: { content: 'DRAFTED memo' } }], { content: 'draft-miss' }) }),
      agent({ id: 'qa-agent', model: byInput([{ contains: 'Check: DRAFTED memo', reply: { content: 'checked by qa' } }], { content: 'check-miss' }) }),
    ]);
    const wf = await h.start(b, 'memo');
    expect(((await wf.result()) as AgentRunResult).output).toBe('checked by qa');
    expect(await childIds(h, wf.workflowId)).toEqual([`${wf.workflowId}/step-1-draft`, `${wf.workflowId}/step-2-check`]);
  });

  test('a Conditional step is skipped when the condition is absent; a failing FanOut step fails the run', async () => {
    const b = bundle('cond-steps', [
      agent({ id: 'cond-steps', pattern: { type: 'steps', steps: [
        { name: 'a', agent: { ByName: 's1' } },
        { name: 'maybe', mode: { Conditional: { condition: 'needs_review' } }, agent: { ByName: 's2' } },
      ] } }),
      agent({ id: 's1', model: answers('all good') }),
      agent({ id: 's2', model: answers('reviewed') }),
    ]);
    expect(((await (await h.start(b, 'in')).result()) as AgentRunResult).output).toBe('all good');
    const f = bundle('fan-fail', [
      agent({ id: 'fan-fail', pattern: { type: 'steps', steps: [
        { name: 'x', mode: 'FanOut', agent: { ByName: 'ok1' } },
        { name: 'y', mode: 'FanOut', agent: { ByName: 'bad1' } },
        { name: 'z', mode: 'Collect', agent: { ByName: 'ok1' } },
      ] } }),
      agent({ id: 'ok1', model: answers('fine') }),
      agent({ id: 'bad1', model: failingModel('fanout member broke') }),
    ]);
    expect(await failureOf(await h.start(f, 'in'))).toMatch(/step 'y' failed/);
  });
});
