import { tokenize, parseExpr, evaluateExpr, checkExpr, ExprError } from '../../src/shared/expr';
import { GraphScheduler, SELF, checkGraph } from '../../src/orchestration/graph';
import { SwarmBook, detectPingPong, handoffToolSpec } from '../../src/orchestration/swarm';
import { DagScheduler, checkDag } from '../../src/orchestration/task-dag';
import { planSteps, renderTemplate, containsCI, joinCollected, checkSteps, COLLECT_SEPARATOR } from '../../src/orchestration/steps';
import { matchEscalation, shadowedRules } from '../../src/orchestration/escalation';
import { shardRanges, shardSizeFor, mapBounded } from '../../src/orchestration/batch';
import type { EscalationRule, StepDefinition, WorkflowTask } from '../../src/compiled/types';

describe('graph edge expressions', () => {
  const scope = { vars: { state: { score: 0.85, label: 'billing', n: 3 }, result: { text: 'Billing issue' } }, resultText: 'This is a BILLING question' };
  test('tokenizer', () => {
    expect(tokenize("result_contains('billing')").map((t) => t.t)).toEqual(['id', 'op', 'str', 'op', 'eof']);
    expect(tokenize('state.score >= -0.5').map((t) => ('v' in t ? t.v : t.t))).toEqual(['state', '.', 'score', '>=', -0.5, 'eof']);
    expect(() => tokenize("'open")).toThrow(ExprError);
    expect(() => tokenize('a = 1')).toThrow(/==/);
    expect(() => tokenize('a ; b')).toThrow(/unexpected character/);
  });
  test('result_contains is case-insensitive', () => {
    expect(evaluateExpr("result_contains('billing')", scope)).toBe(true);
    expect(evaluateExpr("result_contains('technical')", scope)).toBe(false);
  });
  test('comparisons, and/or/not, parentheses', () => {
    expect(evaluateExpr('state.score >= 0.8', scope)).toBe(true);
    expect(evaluateExpr('state.score < 0.8', scope)).toBe(false);
    expect(evaluateExpr("state.label == 'billing' and state.n > 2", scope)).toBe(true);
    expect(evaluateExpr("state.label != 'billing' or state.n > 5", scope)).toBe(false);
    expect(evaluateExpr("not (state.label == 'tech') && !(state.n == 1)", scope)).toBe(true);
    expect(evaluateExpr("(result_contains('x') or state.n == 3) and state.score > 0.5", scope)).toBe(true);
    expect(evaluateExpr('state.missing', scope)).toBe(false);
    expect(evaluateExpr('state.missing == null', scope)).toBe(false);
    expect(evaluateExpr("contains(result.text, 'issue') and len(state.label) == 7", scope)).toBe(true);
    expect(evaluateExpr('exists(state.score) and not exists(state.nope)', scope)).toBe(true);
    expect(evaluateExpr("lower(result.text) == 'billing issue'", scope)).toBe(true);
    expect(evaluateExpr('true and 1', scope)).toBe(true);
  });
  test('precedence: and binds tighter than or', () => {
    expect(evaluateExpr('true or false and false', scope)).toBe(true);
    expect(parseExpr('a or b and c')).toEqual({ k: 'bin', op: 'or', l: { k: 'path', segs: ['a'] }, r: { k: 'bin', op: 'and', l: { k: 'path', segs: ['b'] }, r: { k: 'path', segs: ['c'] } } });
  });
  test('no eval: unknown functions and junk are syntax errors', () => {
    expect(checkExpr('process.exit(1)')).toMatch(/trailing/);
    expect(checkExpr("constructor('x')")).toMatch(/unknown function/);
    expect(checkExpr('(a')).toMatch(/expected '\)'/);
    expect(checkExpr('a b')).toMatch(/trailing/);
    expect(checkExpr('')).toMatch(/end of expression/);
    expect(checkExpr('state.score >= 0.8')).toBeUndefined();
  });
});

const G = (edges: { from: string; to: string; condition?: string }[], nodes: string[], max?: number) =>
  new GraphScheduler({ nodes: nodes.map((id) => ({ id, agent_ref: id })), edges, max_node_executions: max });

describe('graph scheduler', () => {
  test('$self first, conditional branching, join not blocked by untaken branch', () => {
    const g = G([
      { from: SELF, to: 'billing', condition: "result_contains('billing')" },
      { from: SELF, to: 'tech', condition: "result_contains('technical')" },
      { from: 'billing', to: 'report' },
      { from: 'tech', to: 'report' },
    ], ['billing', 'tech', 'report']);
    expect(g.readyNodes()).toEqual([SELF]);
    g.markRunning(SELF);
    expect(g.readyNodes()).toEqual([]);
    expect(g.complete(SELF, 'a billing question', {})).toEqual(['billing']);
    expect(g.readyNodes()).toEqual(['billing']);
    g.markRunning('billing');
    g.complete('billing', { refund: 5 }, {});
    expect(g.readyNodes()).toEqual(['report']);
    g.markRunning('report');
    g.complete('report', 'final', {});
    expect(g.finished()).toBe(true);
    expect(g.output()).toBe('final');
    expect(g.inputsFor('report')).toEqual({});
  });
  test('fan-out runs in parallel and the join waits for all running branches', () => {
    const g = G([
      { from: SELF, to: 'a' }, { from: SELF, to: 'b' }, { from: 'a', to: 'join' }, { from: 'b', to: 'b2' }, { from: 'b2', to: 'join' },
    ], ['a', 'b', 'b2', 'join']);
    g.markRunning(SELF);
    g.complete(SELF, 'go', {});
    expect(g.readyNodes()).toEqual(['a', 'b']);
    g.markRunning('a'); g.markRunning('b');
    g.complete('a', 'A', {});
    expect(g.readyNodes()).toEqual([]); // join waits: b (running) reaches b2 -> join
    g.complete('b', 'B', {});
    expect(g.readyNodes()).toEqual(['b2']);
    g.markRunning('b2');
    g.complete('b2', 'B2', {});
    expect(g.readyNodes()).toEqual(['join']);
    expect(g.inputsFor('join')).toEqual({ a: 'A', b2: 'B2' });
  });
  test('cycle with state comparison and max_node_executions', () => {
    const g = G([
      { from: SELF, to: 'draft' }, { from: 'draft', to: 'review' },
      { from: 'review', to: 'draft', condition: 'state.score < 0.8' },
    ], ['draft', 'review'], 5);
    const run = (id: string, out: unknown) => { g.markRunning(id); return g.complete(id, out as never, {}); };
    run(SELF, 'start');
    run('draft', 'd1');
    expect(run('review', { score: 0.2 })).toEqual(['draft']);
    run('draft', 'd2');
    expect(g.limitReached()).toBe(false);
    run('review', { score: 0.3 });
    expect(g.limitReached()).toBe(true);
    expect(g.readyNodes()).toEqual(['draft']);
    expect(g.node('draft').executions).toBe(2);
    expect(g.progress()).toMatchObject({ total_executions: 5, max_node_executions: 5 });
  });
  test('a join inside a cycle: the back-edge source does not block its target (no deadlock)', () => {
    const edges = [
      { from: SELF, to: 'a' }, { from: SELF, to: 'b' }, { from: 'a', to: 'join' }, { from: 'b', to: 'join' },
      { from: 'join', to: 'a', condition: "result_contains('again')" },
    ];
    const g = G(edges, ['a', 'b', 'join']);
    expect([...g.backEdges]).toEqual([`join\u0000a`]);
    g.markRunning(SELF); g.complete(SELF, 'go', {});
    expect(g.readyNodes()).toEqual(['a', 'b']);
    g.markRunning('b'); g.complete('b', 'B', {});
    expect(g.readyNodes()).toEqual(['a']); // join waits for a
    g.markRunning('a'); g.complete('a', 'A', {});
    expect(g.readyNodes()).toEqual(['join']);
    expect(g.inputsFor('join')).toEqual({ a: 'A', b: 'B' });
    g.markRunning('join');
    expect(g.complete('join', 'again', {})).toEqual(['a']);
    expect(g.readyNodes()).toEqual(['a']);
    g.markRunning('a'); g.complete('a', 'A2', {});
    expect(g.readyNodes()).toEqual(['join']);
    g.markRunning('join'); g.complete('join', 'done', {});
    expect(g.finished()).toBe(true);
    expect(g.stalled()).toEqual([]);
    expect(g.output()).toBe('done');
    // The pre-patch rule (back-edge sources block too) deadlocks: a waits on join, join on a.
    const old = G(edges, ['a', 'b', 'join']);
    old.ignoreBackEdges = false;
    old.markRunning(SELF); old.complete(SELF, 'go', {});
    expect(old.readyNodes()).toEqual(['b']);
    old.markRunning('b'); old.complete('b', 'B', {});
    expect(old.readyNodes()).toEqual([]);
    expect(old.finished()).toBe(false);
    expect(old.stalled()).toEqual(['a', 'join']);
  });
  test('stalled() names activated nodes that wait on each other; empty while something runs', () => {
    // b joins a; a's source s is fed back from b (b -> s closes the cycle s -> a -> b -> s).
    const g = G([
      { from: SELF, to: 's' }, { from: SELF, to: 'b' }, { from: 's', to: 'a' }, { from: 'a', to: 'b' },
      { from: 'b', to: 's', condition: "result_contains('loop')" },
    ], ['s', 'a', 'b']);
    g.markRunning(SELF); g.complete(SELF, 'go', {});
    expect(g.readyNodes()).toEqual(['s']);
    g.markRunning('s');
    expect(g.stalled()).toEqual([]);
    g.complete('s', 'S', {});
    expect(g.readyNodes()).toEqual([]);
    expect(g.stalled()).toEqual(['a', 'b']);
  });
  test('several sinks give an object keyed by node id', () => {
    const g = G([{ from: SELF, to: 'x' }, { from: SELF, to: 'y' }], ['x', 'y']);
    g.markRunning(SELF); g.complete(SELF, 's', {});
    g.markRunning('y'); g.complete('y', 'Y', {});
    g.markRunning('x'); g.complete('x', 'X', {});
    expect(Object.keys(g.output() as object)).toEqual(['x', 'y']);
  });
  test('checkGraph', () => {
    expect(checkGraph({ nodes: [{ id: 'a', agent_ref: 'a' }], edges: [{ from: SELF, to: 'a', condition: 'bad ==' }, { from: 'zz', to: 'a' }] })).toHaveLength(2);
    expect(() => G([{ from: 'a', to: SELF }], ['a'])).toThrow(/entry/);
  });
});

describe('swarm bookkeeping', () => {
  const pattern = { agents: [{ ref: 'architect' }, { ref: 'coder' }, { ref: 'reviewer' }], max_handoffs: 3, max_iterations: 10, repetitive_handoff_detection_window: 0, repetitive_handoff_min_unique_agents: 0 };
  test('hand-offs, shared context, history and context block', () => {
    const b = SwarmBook.start('lead', pattern, { task: 'build' });
    b.beginIteration();
    expect(b.handoff({ agent_name: 'architect', message: 'design it', context: { lang: 'ts' } })).toEqual({ ok: true, to: 'architect' });
    b.beginIteration();
    expect(b.handoff({ agent_name: 'coder', message: 'code it', context: { files: 2 } })).toEqual({ ok: true, to: 'coder' });
    const block = b.contextBlock([{ agent_id: 'lead', description: 'L' }, { agent_id: 'architect', description: 'A' }, { agent_id: 'coder', description: 'C' }]);
    expect(block.swarm).toMatchObject({
      original_task: { task: 'build' }, current_agent: 'coder', handoff_message: 'code it',
      shared_context: { lang: 'ts', files: 2 }, handoffs_used: 2,
      history: [{ agent: 'lead', handoff_to: 'architect' }, { agent: 'architect', handoff_to: 'coder' }],
    });
    expect((block.swarm as { peers: { agent_id: string }[] }).peers.map((p) => p.agent_id)).toEqual(['lead', 'architect']);
  });
  test('unlisted target refused; orchestrator is a valid target; max_handoffs', () => {
    const b = SwarmBook.start('lead', pattern, 'x');
    const r = b.handoff({ agent_name: 'hacker', message: 'm' });
    expect(r).toMatchObject({ ok: false, kind: 'unlisted' });
    expect(b.state.handoffs).toBe(0);
    expect(b.handoff({ agent_name: 'coder', message: 'm' }).ok).toBe(true);
    expect(b.handoff({ agent_name: 'lead', message: 'm' }).ok).toBe(true);
    expect(b.handoff({ agent_name: 'reviewer', message: 'm' }).ok).toBe(true);
    expect(b.handoffsExhausted()).toBe(true);
    expect(b.handoff({ agent_name: 'coder', message: 'm' })).toMatchObject({ ok: false, reason: expect.stringMatching(/max_handoffs/) });
    expect(b.handoff({})).toMatchObject({ ok: false, kind: 'invalid' });
  });
  test('ping-pong detection with window/min_unique', () => {
    expect(detectPingPong(['a', 'b', 'a'], 4, 3)).toBeUndefined();
    expect(detectPingPong(['a', 'b', 'a', 'b'], 4, 3)).toMatch(/only 2 unique/);
    expect(detectPingPong(['a', 'b', 'c', 'a'], 4, 3)).toBeUndefined();
    expect(detectPingPong(['a', 'b', 'a', 'b'], 0, 3)).toBeUndefined();
    const b = SwarmBook.start('lead', { ...pattern, max_handoffs: 20, repetitive_handoff_detection_window: 4, repetitive_handoff_min_unique_agents: 3 }, 'x');
    const seq = ['coder', 'reviewer', 'coder', 'reviewer'];
    const results = seq.map((to) => b.handoff({ agent_name: to, message: 'm' }));
    expect(results.slice(0, 3).every((r) => r.ok)).toBe(true);
    expect(results[3]).toMatchObject({ ok: false, kind: 'ping_pong' });
  });
  test('handoff tool spec is terminal', () => {
    const spec = handoffToolSpec([{ agent_id: 'coder', description: 'c' }]);
    expect(spec.terminal).toBe(true);
    expect(spec.name).toBe('handoff_to_agent');
  });
});

const T = (task_id: string, deps: string[] = [], priority = 0): WorkflowTask => ({ task_id, agent_ref: `${task_id}-agent`, description: `do ${task_id}`, priority, dependencies: deps });

describe('task DAG scheduler', () => {
  const now = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  test('entry tasks first, priority order, max_workers', () => {
    const d = new DagScheduler([T('low', [], 1), T('high', [], 5), T('mid', [], 3), T('after', ['high'])], { max_workers: 2, retry_failed_tasks: false });
    expect(d.nextBatch()).toEqual(['high', 'mid']);
    d.start('high', now(0)); d.start('mid', now(0));
    expect(d.nextBatch()).toEqual([]);
    d.complete('high', 'H', now(2));
    expect(d.ready()).toEqual(['low', 'after']);
    expect(d.nextBatch()).toEqual(['low']);
    expect(d.rec('high').duration_ms).toBe(2000);
    expect(d.inputFor('after', { q: 1 })).toEqual({ task: 'do after', input: { q: 1 }, dependencies: { high: 'H' } });
  });
  test('failure halts only dependents; retry once', () => {
    const d = new DagScheduler([T('extract'), T('a', ['extract']), T('b', ['extract']), T('bad'), T('after-bad', ['bad']), T('final', ['a', 'after-bad'])], { retry_failed_tasks: true });
    for (const id of d.nextBatch()) d.start(id, now(0));
    expect(d.fail('bad', 'boom', now(1))).toBe('retry');
    expect(d.rec('bad').status).toBe('pending');
    expect(d.nextBatch()).toEqual(['bad']);
    d.start('bad', now(1));
    expect(d.fail('bad', 'boom again', now(2))).toBe('failed');
    expect(d.rec('after-bad')).toMatchObject({ status: 'halted', halted_by: 'bad' });
    expect(d.rec('final').status).toBe('halted');
    d.complete('extract', 'E', now(3));
    expect(d.nextBatch()).toEqual(['a', 'b']);
    d.start('a', now(3)); d.start('b', now(3));
    d.complete('a', 'A', now(4)); d.complete('b', 'B', now(4));
    expect(d.finished()).toBe(true);
    expect(d.progressPercent()).toBe(100);
    expect(d.outputs()).toEqual({ extract: 'E', a: 'A', b: 'B' });
    const rep = d.statusReport();
    expect(rep.counts).toEqual({ pending: 0, running: 0, completed: 3, failed: 1, halted: 2 });
  });
  test('progress percent and validation', () => {
    const d = new DagScheduler([T('a'), T('b'), T('c')], { retry_failed_tasks: false });
    d.start('a', now(0)); d.complete('a', 1, now(1));
    expect(d.progressPercent()).toBe(33.3);
    expect(checkDag([T('a', ['b']), T('b', ['a'])])[0]).toMatch(/circular/);
    expect(checkDag([T('a', ['zz'])])[0]).toMatch(/unknown/);
    expect(checkDag([T('a'), T('a')])[0]).toMatch(/duplicate/);
  });
});

describe('steps planning', () => {
  const seed: StepDefinition[] = [
    { name: 'extract', agent: { ByName: 'extractor' }, prompt_template: 'Extract from: {{input}}', output_var: 'data' },
    { name: 'legal-review', mode: 'FanOut', agent: { ByName: 'legal' }, prompt_template: 'Legal review: {{data}}' },
    { name: 'compliance-review', mode: 'FanOut', agent: { ByName: 'compliance' }, prompt_template: 'Compliance review: {{data}}' },
    { name: 'synthesize', mode: 'Collect', agent: { ByName: 'synthesizer' }, prompt_template: 'Combine reviews: {{input}}' },
    { name: 'escalate', mode: { Conditional: { condition: 'high_risk' } }, agent: { ByName: 'supervisor' }, prompt_template: 'Escalate: {{input}}' },
    { name: 'finalize', mode: { Loop: { max_iterations: 3, until: 'APPROVED' } }, agent: { ByName: 'finalizer' }, prompt_template: 'Finalize: {{input}}' },
  ];
  test('consecutive FanOut steps form one stage', () => {
    const st = planSteps(seed);
    expect(st.map((s) => s.kind)).toEqual(['sequential', 'fanout', 'collect', 'conditional', 'loop']);
    expect(st[1].kind === 'fanout' && st[1].steps.map((s) => s.step.name)).toEqual(['legal-review', 'compliance-review']);
    expect(st[4]).toMatchObject({ max_iterations: 3, until: 'APPROVED' });
    expect(checkSteps(seed)).toEqual([]);
    expect(checkSteps([{ name: 'x', agent: { ByName: 'a' }, mode: { Loop: { max_iterations: 0 } } }])[0]).toMatch(/max_iterations/);
  });
  test('templates, case-insensitive contains, collect join', () => {
    expect(renderTemplate('Legal review: {{data}} / {{ input }} / {{unknown}}', 'IN', { data: 'D' })).toBe('Legal review: D / IN / {{unknown}}');
    expect(renderTemplate(undefined, 'IN', {})).toBe('IN');
    expect(containsCI('This is HIGH_RISK', 'high_risk')).toBe(true);
    expect(containsCI('fine', 'high_risk')).toBe(false);
    expect(joinCollected(['a', 'b'])).toBe('a\n\n---\n\nb');
    expect(COLLECT_SEPARATOR).toBe('\n\n---\n\n');
  });
});

describe('escalation rules', () => {
  const rules: EscalationRule[] = [
    { on: 'guardrail', guardrail: 'prompt-injection-scan', target: { type: 'human_queue', id: 'security-review' } },
    { on: 'model_decision', target: { type: 'human_queue', id: 'tier-2-support' } },
    { on: 'node_failure', node: 'billing-specialist', target: { type: 'agent', id: 'billing-escalation-agent' } },
    { on: 'node_failure', target: { type: 'human_queue', id: 'ops-oncall' } },
    { on: 'timeout', target: { type: 'human_queue', id: 'ops-oncall' } },
  ];
  test('top to bottom, narrowing fields', () => {
    expect(matchEscalation(rules, { on: 'node_failure', node: 'billing-specialist' })?.target.id).toBe('billing-escalation-agent');
    expect(matchEscalation(rules, { on: 'node_failure', node: 'tech' })?.target.id).toBe('ops-oncall');
    expect(matchEscalation(rules, { on: 'guardrail', guardrail: 'prompt-injection-scan' })?.target.id).toBe('security-review');
    expect(matchEscalation(rules, { on: 'guardrail', guardrail: 'other' })).toBeUndefined();
    expect(matchEscalation(rules, { on: 'timeout' })?.target.id).toBe('ops-oncall');
    expect(matchEscalation(rules, { on: 'model_decision' })?.target.id).toBe('tier-2-support');
    expect(matchEscalation([], { on: 'timeout' })).toBeUndefined();
  });
  test('catch-all before specific shadows it', () => {
    expect(shadowedRules([rules[3], rules[2]])).toEqual([{ index: 1, shadowedBy: 0 }]);
    expect(shadowedRules(rules)).toEqual([]);
  });
});

describe('batch sharding', () => {
  test('ranges and shard sizes', () => {
    expect(shardRanges(1200, 500)).toEqual([{ start: 0, end: 500 }, { start: 500, end: 1000 }, { start: 1000, end: 1200 }]);
    expect(shardSizeFor(300)).toBe(300);
    expect(shardSizeFor(10000)).toBe(500);
    expect(shardSizeFor(1_000_000)).toBe(250000);
  });
  test('mapBounded keeps input order and bounds concurrency', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapBounded([5, 1, 3, 2, 4], 2, async (x) => {
      inFlight++; peak = Math.max(peak, inFlight);
      // x turns of the microtask queue: the items finish out of input order, the same way on every run.
      for (let i = 0; i < x; i++) await Promise.resolve();
      inFlight--;
      return x * 10;
    });
    expect(out).toEqual([50, 10, 30, 20, 40]);
    expect(peak).toBe(2);
  });
});
