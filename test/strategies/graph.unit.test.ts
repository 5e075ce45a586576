/** The keyword graph (seed 002 "graph"): BFS layers and back-edges, strict matching, only the
 * current node's edges, declaration order, unconditional edges, terminal nodes with validators,
 * MaxRetries, multi-target back-edges, Parallel fan-out, route approval, RecoveryAgent,
 * ShellFallbackPattern, sub-graphs; property: only declared nodes are ever entered. */
import fc from 'fast-check';
import { graphLayers, keywordGraphRouter, GraphState } from '../../src/strategies/keyword-graph';
import type { GraphConfig, GraphEdgeConfig, SpeakDecision, StrategyConfig, SubGraphDecision } from '../../src/strategies/types';
import { GRAPH_YAML, load, MULTI_TARGET_FRAGMENT_YAML, SUBGRAPH_GRAPH_YAML, SUBGRAPH_MAPREDUCE_YAML } from './seed-examples';
import { BRIEF, REVIEW, TEST_REPORT, turn, walk, who, withEvidence } from './turns';

const graph = (): GraphConfig => (load(GRAPH_YAML) as StrategyConfig).Selection.Graph as GraphConfig;
const pos = (d: unknown): string | undefined => (d as SpeakDecision).position;
const at = (g: GraphConfig, node: string): GraphState => ({ ...keywordGraphRouter(g).start().state, current: node });
const devDone = { writes: ['main.go'], shell: [{ command: 'go test ./...', exitCode: 0 }] };

describe('graph: BFS layers and edge classification (the seed example)', () => {
  test('layers from EntryNode; back-edges point to an equal or earlier layer', () => {
    const { layer, edgeKinds } = graphLayers(graph());
    expect(layer).toEqual({ planner: 0, developer: 1, tester: 2, reviewer: 3, approved: 4 });
    expect(edgeKinds).toEqual(['forward', 'forward', 'back', 'forward', 'back', 'forward', 'back']);
  });
  test('EntryNode defaults to the first node; an edge between siblings is a back-edge', () => {
    const g: GraphConfig = { Nodes: [{ Id: 'a', Agent: 'A' }, { Id: 'b', Agent: 'B' }, { Id: 'c', Agent: 'C' }], Edges: [{ From: 'a', To: 'b' }, { From: 'a', To: 'c' }, { From: 'b', To: 'c' }] };
    expect(graphLayers(g)).toEqual({ layer: { a: 0, b: 1, c: 1 }, edgeKinds: ['forward', 'forward', 'back'] });
    expect(who(keywordGraphRouter(g).start().decision)).toBe('A');
  });
});

describe('graph: routing', () => {
  test('the full seed pipeline with evidence: back-edges restart the phase, the terminal node ends it', () => {
    const { decisions } = walk(keywordGraphRouter(graph()), [
      withEvidence('Planner', 'HANDOFF TO DEVELOPER', { files: { 'brief.json': BRIEF } }),
      withEvidence('Developer', 'HANDOFF TO TESTER', devDone),
      turn('Tester', 'BUGS FOUND'),
      withEvidence('Developer', 'HANDOFF TO TESTER', devDone),
      withEvidence('Tester', 'HANDOFF TO REVIEWER', { files: { 'test-report.json': TEST_REPORT } }),
      turn('Reviewer', REVIEW),
      turn('Reviewer', 'Summary for the user.'),
    ]);
    expect(decisions.map(pos).slice(0, 7)).toEqual(['planner', 'developer', 'tester', 'developer', 'tester', 'reviewer', 'approved']);
    expect(decisions[3]).toMatchObject({ backEdge: true, reason: expect.stringMatching(/back-edge "BUGS FOUND" from tester: phase restarts/) });
    expect(decisions[2]).toMatchObject({ backEdge: false });
    expect(decisions[7]).toMatchObject({ kind: 'stop', outcome: 'terminal' });
  });

  test('strict matching: `APPROVED: see notes` does not fire in graph mode', () => {
    const g = graph();
    const d = keywordGraphRouter(g).next(at(g, 'reviewer'), turn('Reviewer', 'APPROVED: see notes')).decision as SpeakDecision;
    expect(d).toMatchObject({ agent: 'Reviewer', position: 'reviewer' });
    expect(d.message).toBe('No routing keyword detected. Put exactly one of these alone on its own line: APPROVED, REVISION REQUIRED.');
  });

  test('only the current node\'s edges are checked: another node\'s keyword is ignored', () => {
    const g = graph();
    const d = keywordGraphRouter(g).next(at(g, 'planner'), turn('Planner', 'BUGS FOUND')).decision as SpeakDecision;
    expect(d).toMatchObject({ agent: 'Planner', position: 'planner' });
  });

  test('edges are evaluated in declaration order: the first matching edge fires', () => {
    const g = graph();
    const d = keywordGraphRouter(g).next(at(g, 'developer'), withEvidence('Developer', 'REPLAN REQUIRED\nHANDOFF TO TESTER', devDone)).decision;
    expect(pos(d)).toBe('tester');
  });

  test('edge validators block with a correction; MaxRetries (default 4) consecutive corrections are stuck', () => {
    const g = graph();
    const r = keywordGraphRouter(g);
    const { decisions } = walk(r, Array.from({ length: 4 }, () => turn('Planner', 'HANDOFF TO DEVELOPER')));
    expect((decisions[1] as SpeakDecision).message).toMatch(/Edge "HANDOFF TO DEVELOPER" is blocked: RequireBrief/);
    expect(decisions.map(who)).toEqual(['Planner', 'Planner', 'Planner', 'Planner', 'stop:stuck']);
    const two = walk(keywordGraphRouter({ ...g, MaxRetries: 2 }), [turn('Planner', 'x'), turn('Planner', 'y')]);
    expect(two.last.decision).toMatchObject({ kind: 'stop', outcome: 'stuck' });
  });

  test('terminal node Validators must pass before the session ends', () => {
    const g = graph();
    g.Nodes[4].Validators = ['RequireShellPass'];
    const r = keywordGraphRouter(g);
    expect((r.next(at(g, 'approved'), turn('Reviewer', 'done')).decision as SpeakDecision).message).toMatch(/cannot end yet: RequireShellPass/);
    expect(r.next(at(g, 'approved'), withEvidence('Reviewer', 'done', devDone)).decision).toMatchObject({ kind: 'stop', outcome: 'terminal' });
  });

  test('multi-target back-edges (the seed fragment): each keyword goes back to its own node', () => {
    const frag = load(MULTI_TARGET_FRAGMENT_YAML) as GraphConfig;
    const base = graph();
    const g: GraphConfig = {
      EntryNode: 'planner',
      Nodes: [...base.Nodes.filter((n) => !['reviewer', 'approved'].includes(n.Id)), ...frag.Nodes],
      Edges: [...base.Edges.filter((e) => e.From !== 'reviewer'), ...frag.Edges],
    };
    const r = keywordGraphRouter(g);
    const rev = r.next(at(g, 'reviewer'), turn('Reviewer', 'REVISION REQUIRED')).decision;
    const replan = r.next(at(g, 'reviewer'), turn('Reviewer', 'replan required')).decision;
    expect(rev).toMatchObject({ position: 'developer', backEdge: true });
    expect(replan).toMatchObject({ position: 'planner', agent: 'Planner', backEdge: true });
  });

  test('unconditional edges fire after the turn without scanning', () => {
    const g: GraphConfig = { Nodes: [{ Id: 'a', Agent: 'A' }, { Id: 'b', Agent: 'B', Terminal: true }], Edges: [{ From: 'a', To: 'b' }] };
    expect(walk(keywordGraphRouter(g), [turn('A', 'anything'), turn('B', 'end')]).decisions.map(who)).toEqual(['A', 'B', 'stop:terminal']);
  });

  test('SourceAgents, RequireHumanApproval, RecoveryAgent (once) and ShellFallbackPattern on edges', () => {
    const edge: GraphEdgeConfig = { From: 'a', To: 'b', Keyword: 'SHIP', Validators: ['RequireWriteFile'], ShellFallbackPattern: 'git apply', RecoveryAgent: 'Fixer', RequireHumanApproval: true, SourceAgents: ['A'] };
    const g: GraphConfig = { Nodes: [{ Id: 'a', Agent: 'A' }, { Id: 'b', Agent: 'B', Terminal: true }], Edges: [edge] };
    const r = keywordGraphRouter(g);
    const s0 = r.start().state;
    expect((r.next(s0, turn('Intruder', 'SHIP')).decision as SpeakDecision).message).toMatch(/Intruder may not emit "SHIP"/);
    const fallback = { shell: [{ command: 'git apply fix.patch', exitCode: 0 }] };
    expect(r.next(s0, withEvidence('A', 'SHIP', fallback)).decision).toMatchObject({ kind: 'approval', keyword: 'SHIP', target: 'b' });
    expect((r.next(s0, withEvidence('A', 'SHIP', fallback, { routeApproval: 'rejected' })).decision as SpeakDecision).message).toMatch(/Route blocked/);
    expect(r.next(s0, withEvidence('A', 'SHIP', fallback, { routeApproval: 'approved' })).decision).toMatchObject({ agent: 'B', position: 'b' });
    const { decisions } = walk(r, [turn('A', 'SHIP'), turn('A', 'SHIP'), turn('Fixer', 'patched'), turn('A', 'SHIP'), turn('A', 'SHIP')]);
    expect(decisions.map(who)).toEqual(['A', 'A', 'Fixer', 'A', 'A', 'stop:stuck']); // MaxRetries 4: the recovery turn is not a failure
    expect(decisions[2]).toMatchObject({ recovery: true });
    const more = walk(keywordGraphRouter({ ...g, MaxRetries: 9 }), [turn('A', 'SHIP'), turn('A', 'SHIP'), turn('Fixer', 'x'), turn('A', 'SHIP'), turn('A', 'SHIP')]);
    expect(more.decisions.map(who)).toEqual(['A', 'A', 'Fixer', 'A', 'A', 'A']); // at most once per edge
  });

  test('Parallel nodes sharing the trigger fan out together and join at their common successor', () => {
    const g: GraphConfig = {
      EntryNode: 'coord',
      Nodes: [{ Id: 'coord', Agent: 'Coordinator' }, { Id: 'a', Agent: 'AnalyzerA', Parallel: true }, { Id: 'b', Agent: 'AnalyzerB', Parallel: true }, { Id: 'synth', Agent: 'Synthesizer', Terminal: true }],
      Edges: [{ From: 'coord', To: 'a', Keyword: 'BEGIN PARALLEL ANALYSIS' }, { From: 'coord', To: 'b', Keyword: 'BEGIN PARALLEL ANALYSIS' }, { From: 'a', To: 'synth' }, { From: 'b', To: 'synth' }],
    };
    const r = keywordGraphRouter(g);
    const step = r.next(r.start().state, turn('Coordinator', 'BEGIN PARALLEL ANALYSIS'));
    expect(step.decision).toMatchObject({ kind: 'fanout', branches: [{ position: 'a', agent: 'AnalyzerA' }, { position: 'b', agent: 'AnalyzerB' }], join: { position: 'synth', agent: 'Synthesizer' }, merge: { Strategy: 'union' } });
    expect(step.state.current).toBe('synth');
    expect(r.next(step.state, turn('Synthesizer', 'report')).decision).toMatchObject({ kind: 'stop', outcome: 'terminal' });
  });
});

describe('graph: sub-graphs', () => {
  test('a SubGraphId node asks the runtime to run the nested spec; a nested Graph runs with the same router', () => {
    const g = (load(SUBGRAPH_GRAPH_YAML) as StrategyConfig).Selection.Graph as GraphConfig;
    const r = keywordGraphRouter(g);
    const first = r.start().decision as SubGraphDecision;
    expect(first).toMatchObject({ kind: 'subgraph', subGraphId: 'research_team', position: 'research_phase' });
    const nested = walk(keywordGraphRouter(first.spec.Graph as GraphConfig), [turn('DataGatherer', 'DATA READY'), turn('Analyst', 'findings\nRESEARCH COMPLETE')]);
    expect(nested.decisions.map(who)).toEqual(['DataGatherer', 'Analyst', 'stop:terminal']);
    const parent = walk(r, [turn('Analyst', 'findings\nRESEARCH COMPLETE'), turn('Writer', 'article')]);
    expect(parent.decisions.map(who)).toEqual(['subgraph:research_team', 'Writer', 'stop:terminal']);
  });
  test('a MapReduce sub-graph is handed over whole', () => {
    const g = (load(SUBGRAPH_MAPREDUCE_YAML) as StrategyConfig).Selection.Graph as GraphConfig;
    expect(keywordGraphRouter(g).start().decision).toMatchObject({ kind: 'subgraph', subGraphId: 'item_processor', spec: { MapReduce: { Splitter: 'TaskSplitter', ItemsJsonPath: 'tasks', MaxConcurrency: 4 } } });
  });
});

describe('property: only declared nodes are ever entered', () => {
  test('random replies over the seed graph', () => {
    const g = graph();
    const ids = g.Nodes.map((n) => n.Id);
    const words = ['HANDOFF TO DEVELOPER', 'HANDOFF TO TESTER', 'HANDOFF TO REVIEWER', 'BUGS FOUND', 'APPROVED', 'REVISION REQUIRED', 'REPLAN REQUIRED', 'none', 'APPROVED: x'];
    fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom(...words), fc.boolean()), { maxLength: 40 }), (replies) => {
      const r = keywordGraphRouter(g);
      let step = r.start();
      for (const [text, ev] of replies) {
        if (step.decision.kind === 'stop') break;
        expect(ids).toContain(step.state.current);
        const agent = (step.decision as SpeakDecision).agent;
        step = r.next(step.state, ev ? withEvidence(agent, `${REVIEW}\n${text}`, { ...devDone, files: { 'brief.json': BRIEF, 'test-report.json': TEST_REPORT } }) : turn(agent, text));
      }
      if (step.decision.kind === 'stop') expect(['terminal', 'stuck']).toContain(step.decision.outcome);
    }));
  });
});
