/** validateStrategyConfig: every seed 002 example validates, and every rule the seed states or
 * implies is reported with its field path and a message saying what to write instead. */
import { closestName, formatPath, validateStrategyConfig, StrategyProblem } from '../../src/strategies/validate';
import * as S from './seed-examples';

const errors = (ps: StrategyProblem[]) => ps.filter((p) => p.severity === 'error');
const show = (ps: StrategyProblem[]) => ps.map((p) => `${p.severity} ${formatPath(p.path)}: ${p.message}`);
/** The one problem at `path` (fails when there is none). */
function at(ps: StrategyProblem[], path: string): StrategyProblem {
  const hit = ps.find((p) => formatPath(p.path) === path);
  if (!hit) throw new Error(`no problem at ${path}; got:\n${show(ps).join('\n')}`);
  return hit;
}
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const kwCfg = () => S.load(S.KEYWORD_YAML);
const smCfg = () => ({ ...S.load(S.PARALLEL_YAML), Termination: { Type: 'maxiterations', MaxIterations: 30 } });
const graphCfg = () => S.load(S.GRAPH_YAML);
const CONTRACT_DEFS = [
  { Name: 'BriefExists', Requires: [{ FilesWritten: { Source: 'brief.json', Field: 'files_to_change' } }] },
  { Name: 'ImplementationComplete', Requires: [{ CommandSucceeded: { PatternField: 'verify_command' } }] },
  { Name: 'TestsValid', Requires: [{ CommandSucceeded: { PatternField: 'verify_command' } }] },
];

describe('the seed examples validate', () => {
  test.each([
    ['keyword', () => S.load(S.KEYWORD_YAML), S.DEV_TEAM],
    ['keyword + composite termination', () => ({ ...S.load(S.KEYWORD_YAML), ...S.load(S.COMPOSITE_TERMINATION_YAML) }), S.DEV_TEAM],
    ['structured + its termination', () => ({ ...S.load(S.STRUCTURED_YAML), ...S.load(S.STRUCTURED_TERMINATION_YAML) }), S.STRUCTURED_AGENTS],
    ['graph', () => S.load(S.GRAPH_YAML), S.DEV_TEAM],
    ['graph sub-graph', () => S.load(S.SUBGRAPH_GRAPH_YAML), S.SUBGRAPH_AGENTS],
    ['map-reduce sub-graph', () => S.load(S.SUBGRAPH_MAPREDUCE_YAML), S.SUBGRAPH_AGENTS],
    ['scatter-gather sub-graph', () => S.load(S.SUBGRAPH_SCATTER_YAML), S.SUBGRAPH_AGENTS],
    ['scattergather', () => S.load(S.SCATTERGATHER_YAML), S.SUBGRAPH_AGENTS],
    ['mapreduce', () => S.load(S.MAPREDUCE_YAML), ['Splitter', 'Mapper', 'Reducer']],
    ['llm', () => S.load(S.LLM_YAML), ['A']],
    ['magentic', () => S.load(S.MAGENTIC_YAML), ['A']],
    ['adversarial', () => S.load(S.ADVERSARIAL_YAML), ['Planner', 'PlanReviewer', 'Developer', 'CodeReviewer']],
  ])('%s: no problem at all', (_n, cfg, agents) => {
    expect(show(validateStrategyConfig(cfg(), agents))).toEqual([]);
  });

  test('statemachine: the seed names contracts it never defines (reported); with definitions and a Termination it is clean', () => {
    const raw = S.load(S.STATEMACHINE_YAML);
    const ps = validateStrategyConfig(raw, S.DEV_TEAM);
    expect(at(ps, 'Selection.StateMachine.States.Planning.Transitions[0].Contract').message).toBe('unknown contract `BriefExists` (contracts declared in Contracts: none)');
    expect(at(ps, 'Selection.StateMachine').severity).toBe('warning');
    expect(show(validateStrategyConfig({ ...raw, Contracts: CONTRACT_DEFS, Termination: { Type: 'maxiterations', MaxIterations: 40 } }, S.DEV_TEAM))).toEqual([]);
  });

  test('parallel fan-out example: clean but for the missing Termination warning', () => {
    expect(show(validateStrategyConfig(S.load(S.PARALLEL_YAML), S.PARALLEL_AGENTS))).toEqual([
      'warning Selection.StateMachine: a terminal state re-invokes its agent every turn until a Termination strategy fires; add `Termination` (e.g. regex on the final agent, with MaxIterations)',
    ]);
    expect(show(validateStrategyConfig(smCfg(), S.PARALLEL_AGENTS))).toEqual([]);
  });

  test('Contracts example: the contract is fine; its snippet routes to a state it does not declare', () => {
    const orch = S.load(S.CONTRACTS_YAML).Orchestration;
    expect(show(validateStrategyConfig(orch, S.DEV_TEAM))).toEqual(['error Selection.StateMachine.States.Implementation.Transitions[0].To: unknown state `Testing` (declared states: Implementation)']);
    orch.Selection.StateMachine.States.Testing = { Agent: 'Tester', Terminal: true };
    orch.Termination = { Type: 'maxiterations', MaxIterations: 10 };
    expect(show(validateStrategyConfig(orch, S.DEV_TEAM))).toEqual([]);
  });

  test('HandoffContext example: its three sources are accepted', () => {
    const cfg = { Selection: { Type: 'statemachine', StateMachine: { Initial: 'Implementation', States: { ...S.load(S.HANDOFF_CONTEXT_STATE_YAML), Testing: { Agent: 'Tester', Terminal: true } } } }, Contracts: CONTRACT_DEFS, Termination: { Type: 'maxiterations', MaxIterations: 9 } };
    expect(show(validateStrategyConfig(cfg, S.DEV_TEAM))).toEqual([]);
  });
});

describe('agents, names and fields', () => {
  test('an unknown agent gets the closest declared name', () => {
    const cfg = kwCfg();
    cfg.Selection.Routes[0].Agent = 'Developr';
    cfg.Selection.DefaultAgent = 'planner';
    const ps = validateStrategyConfig(cfg, S.DEV_TEAM);
    expect(at(ps, 'Selection.Routes[0].Agent').message).toBe('unknown agent `Developr`; did you mean `Developer`? (declared agents: Planner, Developer, Tester, Reviewer)');
    expect(at(ps, 'Selection.DefaultAgent').message).toMatch(/did you mean `Planner`\?/);
    expect(closestName('Zebra', S.DEV_TEAM)).toBeUndefined();
  });
  test('an unknown field (e.g. wrong case) names the field to write', () => {
    const cfg = kwCfg();
    cfg.Selection.Routes[0].Sourceagents = ['Planner'];
    cfg.Selection.Typo = 1;
    const ps = validateStrategyConfig(cfg, S.DEV_TEAM);
    expect(at(ps, 'Selection.Routes[0].Sourceagents').message).toMatch(/^unknown field `Sourceagents` in a route; did you mean `SourceAgents`\?/);
    expect(at(ps, 'Selection.Typo').severity).toBe('error');
  });
  test('Selection and its Type are required; an unknown Type gets a suggestion; the block a Type needs is required', () => {
    expect(at(validateStrategyConfig({}, ['A']), 'Selection').message).toMatch(/required/);
    expect(at(validateStrategyConfig({ Selection: { Type: 'roundRobin' } }, ['A']), 'Selection.Type').message).toMatch(/did you mean `roundrobin`\?/);
    expect(at(validateStrategyConfig({ Selection: { Type: 'graph' } }, ['A']), 'Selection.Graph').message).toBe('`Type: graph` needs `Graph`');
    expect(at(validateStrategyConfig({ Selection: { Type: 'sequential' } }, []), 'Selection').message).toMatch(/no agents/);
  });
  test('fields another Type reads are ignored with a warning; roundrobin without Termination is warned', () => {
    const ps = validateStrategyConfig({ Selection: { Type: 'roundrobin', Routes: [] } }, ['A']);
    expect(at(ps, 'Selection.Routes')).toMatchObject({ severity: 'warning', message: '`Routes` is ignored for `Type: roundrobin`' });
    expect(at(ps, 'Selection.Type').message).toMatch(/runs until a Termination strategy fires/);
  });
});

describe('keyword routes', () => {
  test('validator names, Validator+Validators, patterns without their validator, types', () => {
    const cfg = kwCfg();
    const r = cfg.Selection.Routes;
    r[0].Validator = 'RequireBreif';
    r[2].Validators = ['RequireShellPass'];
    r[3].RequiredCommandPattern = 'go test';
    r[4].RequireHumanApproval = 'yes';
    r[5].Keyword = '**';
    const ps = validateStrategyConfig(cfg, S.DEV_TEAM);
    expect(at(ps, 'Selection.Routes[0].Validator').message).toMatch(/unknown validator `RequireBreif`; did you mean `RequireBrief`\?/);
    expect(at(ps, 'Selection.Routes[2].Validator')).toMatchObject({ severity: 'warning', message: expect.stringMatching(/`Validators` takes precedence/) });
    expect(at(ps, 'Selection.Routes[3].RequiredCommandPattern').message).toMatch(/only used with the RequireShellPass validator/);
    expect(at(ps, 'Selection.Routes[4].RequireHumanApproval').message).toBe('`RequireHumanApproval` must be true or false');
    expect(at(ps, 'Selection.Routes[5].Keyword').message).toMatch(/empty once `\*` and `_` are stripped/);
  });
  test('a route shadowed by an earlier one with the same keyword and overlapping SourceAgents', () => {
    const cfg = kwCfg();
    cfg.Selection.Routes.push({ Keyword: 'bugs found', Agent: 'Planner', SourceAgents: ['Tester'] });
    cfg.Selection.Routes.push({ Keyword: 'BUGS FOUND', Agent: 'Planner', SourceAgents: ['Reviewer'] });
    const ps = validateStrategyConfig(cfg, S.DEV_TEAM);
    expect(at(ps, 'Selection.Routes[7]').message).toMatch(/Routes\[3\] already routes "bugs found"/);
    expect(ps.find((p) => formatPath(p.path) === 'Selection.Routes[8]')).toBeUndefined();
  });
  test('a termination keyword that no route owns', () => {
    const cfg = { ...kwCfg(), Termination: { Type: 'composite', Strategies: [{ Type: 'regex', Pattern: '\\bSHIPPED\\b' }, { Type: 'regex', Pattern: '\\bAPPROVED\\b' }, { Type: 'regex', Pattern: 'a+b' }] } };
    const ps = validateStrategyConfig(cfg, S.DEV_TEAM);
    expect(ps.filter((p) => formatPath(p.path) === 'Termination').map((p) => p.message)).toEqual([
      expect.stringMatching(/^"SHIPPED" is a termination keyword that no route owns: the routing engine reads keywords from Selection.Routes only/),
    ]);
  });
  test('keyword selection without Routes is warned', () => {
    expect(at(validateStrategyConfig({ Selection: { Type: 'keyword' } }, ['A']), 'Selection.Routes').severity).toBe('warning');
  });
});

describe('structured routes', () => {
  const base = () => S.load(S.STRUCTURED_YAML);
  test('operators: none is an error, several a warning; Field paths; no validators on structured routes', () => {
    const cfg = base();
    const routes = cfg.Selection.StructuredRoutes;
    delete routes[0].Condition.Exists;
    routes[1].Condition.IsNot = 'No';
    routes[2].Condition.Field = 'a..b';
    routes[2].Validator = 'RequireBrief';
    const ps = validateStrategyConfig(cfg, S.STRUCTURED_AGENTS);
    expect(at(ps, 'Selection.StructuredRoutes[0].Condition').message).toMatch(/exactly one operator/);
    expect(at(ps, 'Selection.StructuredRoutes[1].Condition')).toMatchObject({ severity: 'warning', message: expect.stringMatching(/only `Is` is evaluated/) });
    expect(at(ps, 'Selection.StructuredRoutes[2].Condition.Field').message).toMatch(/empty segment/);
    expect(at(ps, 'Selection.StructuredRoutes[2].Validator').message).toMatch(/structured routes have no validators/);
  });
  test('Condition required; empty StructuredRoutes', () => {
    const cfg = base();
    delete cfg.Selection.StructuredRoutes[0].Condition;
    expect(at(validateStrategyConfig(cfg, S.STRUCTURED_AGENTS), 'Selection.StructuredRoutes[0].Condition').message).toMatch(/required/);
    expect(at(validateStrategyConfig({ Selection: { Type: 'structured', StructuredRoutes: [] } }, ['A']), 'Selection.StructuredRoutes').severity).toBe('error');
  });
});

describe('state machine', () => {
  const P = 'Selection.StateMachine';
  test('unknown Initial / To / state agent, with suggestions', () => {
    const cfg = smCfg();
    cfg.Selection.StateMachine.Initial = 'planning';
    cfg.Selection.StateMachine.States.Integration.Transitions[0].To = 'Don';
    const ps = validateStrategyConfig(cfg, S.PARALLEL_AGENTS);
    expect(at(ps, `${P}.Initial`).message).toMatch(/unknown state `planning`; did you mean `Planning`\?/);
    expect(at(ps, `${P}.States.Integration.Transitions[0].To`).message).toMatch(/did you mean `Done`\?/);
    expect(at(validateStrategyConfig({ Selection: { Type: 'statemachine', StateMachine: { Initial: 'A', States: {} } } }, ['A']), `${P}.States`).message).toMatch(/at least one state/);
  });
  test('Targets without Parallel, the join state among its targets, empty Targets, Merge rules', () => {
    const cfg = smCfg();
    const t = cfg.Selection.StateMachine.States.Planning.Transitions[0];
    t.Targets.push('Integration');
    t.Merge = { Strategy: 'ranked', ConflictResolution: ['votes'] };
    let ps = validateStrategyConfig(cfg, S.PARALLEL_AGENTS);
    expect(at(ps, `${P}.States.Planning.Transitions[0].To`).message).toMatch(/join state `Integration` is also one of its Targets/);
    expect(at(ps, `${P}.States.Planning.Transitions[0].Merge.Agent`).message).toMatch(/`ranked` needs `Merge.Agent`/);
    expect(at(ps, `${P}.States.Planning.Transitions[0].Merge.ConflictResolution[0]`).message).toMatch(/did you mean `vote`\?/);
    const noPar = smCfg();
    delete noPar.Selection.StateMachine.States.Planning.Transitions[0].Parallel;
    ps = validateStrategyConfig(noPar, S.PARALLEL_AGENTS);
    expect(at(ps, `${P}.States.Planning.Transitions[0].Targets`).message).toBe('`Targets` without `Parallel: true`; add `Parallel: true` to fan out, or remove `Targets` and route with `To`');
    expect(at(ps, `${P}.States.Planning.Transitions[0].Merge`).severity).toBe('warning');
    const empty = smCfg();
    empty.Selection.StateMachine.States.Planning.Transitions[0].Targets = [];
    expect(at(validateStrategyConfig(empty, S.PARALLEL_AGENTS), `${P}.States.Planning.Transitions[0].Targets`).message).toMatch(/needs `Targets`/);
  });
  test('parallel transitions ignore contracts and RecoveryAgent; branch transitions are not evaluated', () => {
    const cfg = { ...smCfg(), Contracts: CONTRACT_DEFS };
    const t = cfg.Selection.StateMachine.States.Planning.Transitions[0];
    t.Contract = 'BriefExists';
    t.RecoveryAgent = 'Planner';
    cfg.Selection.StateMachine.States.BackendWork.Transitions = [{ To: 'Integration' }];
    const ps = validateStrategyConfig(cfg, S.PARALLEL_AGENTS);
    expect(at(ps, `${P}.States.Planning.Transitions[0]`).message).toMatch(/contracts are not evaluated on parallel transitions/);
    expect(at(ps, `${P}.States.Planning.Transitions[0].RecoveryAgent`).severity).toBe('warning');
    expect(at(ps, `${P}.States.BackendWork.Transitions`).message).toMatch(/parallel branch/);
  });
  test('Terminal with Transitions, MaxRevisits, ReviewArtifactPath, HandoffContext sources, unreachable and shadowed transitions', () => {
    const cfg = smCfg();
    const st = cfg.Selection.StateMachine.States;
    st.Done.Transitions = [{ To: 'Integration' }];
    st.Integration.Transitions.unshift({ To: 'Planning', MaxRevisits: -1, ReviewArtifactPath: 'r.md' });
    st.Integration.Transitions[1].HandoffContext = [{ Source: 'own_history' }, { Source: 'changes_recent:0' }, { Source: 'brief_field:' }, { Source: 'diff' }, { Source: 'file:notes.md', MaxChars: 0 }];
    st.Orphan = { Agent: 'Planner', Terminal: true };
    const ps = validateStrategyConfig(cfg, S.PARALLEL_AGENTS);
    const T = `${P}.States.Integration.Transitions`;
    expect(at(ps, `${P}.States.Done.Terminal`).message).toMatch(/Terminal but has Transitions/);
    expect(at(ps, `${T}[0].MaxRevisits`).message).toMatch(/integer ≥ 0/);
    expect(at(ps, `${T}[0].ReviewArtifactPath`).severity).toBe('warning');
    expect(at(ps, `${T}[1]`).message).toMatch(/Transitions\[0\] has no Signal and fires automatically first/);
    expect(at(ps, `${T}[1].HandoffContext[0].Source`).message).toMatch(/own_history` is not supported/);
    expect(at(ps, `${T}[1].HandoffContext[1].Source`).message).toMatch(/positive integer/);
    expect(at(ps, `${T}[1].HandoffContext[2].Source`).message).toMatch(/needs a field name/);
    expect(at(ps, `${T}[1].HandoffContext[3].Source`).message).toMatch(/unknown HandoffContext source `diff`/);
    expect(at(ps, `${T}[1].HandoffContext[4].MaxChars`).message).toMatch(/≥ 1/);
    expect(at(ps, `${P}.States.Orphan`).message).toMatch(/unreachable from Initial/);
  });
  test('Contracts: shape of Requires', () => {
    const cfg = { ...smCfg(), Contracts: [{ Name: 'A', Requires: [{ FilesWritten: { Source: 'b.json' }, CommandSucceeded: { PatternField: 'x' } }, { Built: {} }] }, { Name: 'A', Requires: [] }] };
    const ps = validateStrategyConfig(cfg, S.PARALLEL_AGENTS);
    expect(at(ps, 'Contracts[0].Requires[0]').message).toMatch(/exactly one of FilesWritten, CommandSucceeded/);
    expect(at(ps, 'Contracts[0].Requires[0].FilesWritten.Field').message).toMatch(/required/);
    expect(at(ps, 'Contracts[0].Requires[1].Built').severity).toBe('error');
    expect(at(ps, 'Contracts[1].Name').message).toMatch(/declared twice/);
    expect(at(ps, 'Contracts[1].Requires').severity).toBe('error');
  });
});

describe('graph', () => {
  const G = 'Selection.Graph';
  test('unknown nodes with suggestions, duplicate ids, Agent xor SubGraphId, dead-end nodes', () => {
    const cfg = graphCfg();
    const g = cfg.Selection.Graph;
    g.EntryNode = 'Planner';
    g.Edges[0].To = 'develper';
    g.Nodes.push({ Id: 'tester', Agent: 'Tester' });
    g.Nodes.push({ Id: 'both', Agent: 'Tester', SubGraphId: 'x' });
    g.Nodes.push({ Id: 'none' });
    const ps = validateStrategyConfig(cfg, S.DEV_TEAM);
    expect(at(ps, `${G}.EntryNode`).message).toMatch(/unknown node `Planner`; did you mean `planner`\?/);
    expect(at(ps, `${G}.Edges[0].To`).message).toMatch(/did you mean `developer`\?/);
    expect(at(ps, `${G}.Nodes[5].Id`).message).toMatch(/declared twice/);
    expect(at(ps, `${G}.Nodes[6].Agent`).message).toMatch(/must be empty when `SubGraphId` is set/);
    expect(at(ps, `${G}.Nodes[7]`).message).toMatch(/needs `Agent`.*or `SubGraphId`/);
    const dead = graphCfg();
    dead.Selection.Graph.Edges = dead.Selection.Graph.Edges.filter((e: { From: string }) => e.From !== 'reviewer');
    const dps = validateStrategyConfig(dead, S.DEV_TEAM);
    expect(at(dps, `${G}.Nodes[3]`).message).toMatch(/node reviewer has no outgoing edges and is not Terminal/);
    expect(at(dps, `${G}.Nodes[4]`).message).toMatch(/unreachable from EntryNode/);
  });
  test('edges: from a terminal node, shadowed by declaration order, validator patterns, RecoveryAgent without validators, node Validators off terminal', () => {
    const cfg = graphCfg();
    const g = cfg.Selection.Graph;
    g.Edges.push({ From: 'approved', To: 'developer', Keyword: 'REOPEN' });
    g.Edges.push({ From: 'reviewer', To: 'planner', Keyword: 'approved' });
    g.Edges.push({ From: 'tester', To: 'planner', Keyword: 'X', ShellFallbackPattern: 'git apply', RecoveryAgent: 'Planner', MaxRetries: 1 });
    g.Nodes[0].Validators = ['RequireBrief'];
    g.MaxRetries = 0;
    const ps = validateStrategyConfig(cfg, S.DEV_TEAM);
    expect(at(ps, `${G}.Edges[7]`).message).toMatch(/node approved is Terminal: its outgoing edges are never evaluated/);
    expect(at(ps, `${G}.Edges[8]`).message).toMatch(/Edges\[5\] already fires on "approved" from reviewer/);
    expect(at(ps, `${G}.Edges[9].ShellFallbackPattern`).message).toMatch(/only used with the RequireWriteFile validator/);
    expect(at(ps, `${G}.Edges[9].RecoveryAgent`).message).toMatch(/no validators/);
    expect(at(ps, `${G}.Edges[9].MaxRetries`).message).toMatch(/unknown field `MaxRetries` in an edge/);
    expect(at(ps, `${G}.Nodes[0].Validators`).severity).toBe('warning');
    expect(at(ps, `${G}.MaxRetries`).message).toMatch(/integer ≥ 1/);
  });
  test('Parallel nodes need one unconditional edge each to a common join node', () => {
    const cfg = { Selection: { Type: 'graph', Graph: {
      EntryNode: 'c',
      Nodes: [{ Id: 'c', Agent: 'Planner' }, { Id: 'a', Agent: 'Developer', Parallel: true }, { Id: 'b', Agent: 'Tester', Parallel: true }, { Id: 's', Agent: 'Reviewer', Terminal: true }, { Id: 't', Agent: 'Reviewer', Terminal: true }],
      Edges: [{ From: 'c', To: 'a', Keyword: 'GO' }, { From: 'c', To: 'b', Keyword: 'GO' }, { From: 'a', To: 's' }, { From: 'b', To: 't' }],
    } } };
    expect(at(validateStrategyConfig(cfg, S.DEV_TEAM), `${G}.Edges[0]`).message).toMatch(/Parallel nodes a, b triggered by "GO" need one unconditional edge each/);
    cfg.Selection.Graph.Edges[3].To = 's';
    expect(errors(validateStrategyConfig(cfg, S.DEV_TEAM)).map((p) => p.message)).toEqual([]);
  });
  test('sub-graphs: exactly one kind, known ids, nested graphs and agents checked, unused specs warned', () => {
    const cfg = S.load(S.SUBGRAPH_GRAPH_YAML);
    const g = cfg.Selection.Graph;
    g.SubGraphs.research_team.MapReduce = { Splitter: 'A', Mapper: 'B', Reducer: 'C' };
    g.SubGraphs.research_team.Graph.Nodes[0].Agent = 'DataGaterer';
    g.SubGraphs.spare = { ScatterGather: { Participants: [], Synthesizer: 'Writer' } };
    g.Nodes[0].SubGraphId = 'research_teem';
    const ps = validateStrategyConfig(cfg, S.SUBGRAPH_AGENTS);
    expect(at(ps, `${G}.SubGraphs.research_team`).message).toMatch(/exactly one of `Graph`, `MapReduce` or `ScatterGather` \(it sets Graph, MapReduce\)/);
    expect(at(ps, `${G}.SubGraphs.research_team.Graph.Nodes[0].Agent`).message).toMatch(/did you mean `DataGatherer`\?/);
    expect(at(ps, `${G}.SubGraphs.spare.ScatterGather.Participants`).message).toMatch(/at least one agent/);
    expect(at(ps, `${G}.Nodes[0].SubGraphId`).message).toMatch(/unknown sub-graph `research_teem`; did you mean `research_team`\?/);
    expect(at(ps, `${G}.SubGraphs.spare`).severity).toBe('warning');
  });
});

describe('termination', () => {
  test('types, required fields per type, regex syntax, AgentNames, fields ignored by a type', () => {
    const ps = validateStrategyConfig({ Selection: { Type: 'sequential' }, Termination: { Type: 'composite', Strategies: [
      { Type: 'regex', Pattern: '(?i)approved', AgentNames: ['Reviwer'] },
      { Type: 'maxiterations' },
      { Type: 'maxiteration', MaxIterations: 0 },
      { Type: 'regex' },
      { Type: 'maxiterations', MaxIterations: 5, Pattern: 'x' },
      { Type: 'composite' },
    ] } }, S.DEV_TEAM);
    const T = 'Termination.Strategies';
    expect(at(ps, `${T}[0].Pattern`).message).toMatch(/not a valid regular expression here.*\(\?i\)/);
    expect(at(ps, `${T}[0].AgentNames[0]`).message).toMatch(/did you mean `Reviewer`\?/);
    expect(at(ps, `${T}[1].MaxIterations`).message).toMatch(/is required/);
    expect(at(ps, `${T}[2].Type`).message).toMatch(/did you mean `maxiterations`\?/);
    expect(at(ps, `${T}[2].MaxIterations`).message).toMatch(/≥ 1/);
    expect(at(ps, `${T}[3].Pattern`).message).toMatch(/required/);
    expect(at(ps, `${T}[4].Pattern`)).toMatchObject({ severity: 'warning', message: '`Pattern` is ignored for `Type: maxiterations`' });
    expect(at(ps, `${T}[5].Strategies`).message).toMatch(/needs `Strategies`/);
  });
});

describe('phase strategies (configuration only)', () => {
  test('adversarial: Rounds < 1, Generator = Critic, empty Stages, PassKeyword', () => {
    const cfg = S.load(S.ADVERSARIAL_YAML);
    cfg.Selection.Adversarial.Rounds = 0;
    cfg.Selection.Adversarial.PassKeyword = '__';
    cfg.Selection.Adversarial.Stages[1].Critic = 'Developer';
    const ps = validateStrategyConfig(cfg, ['Planner', 'PlanReviewer', 'Developer', 'CodeReviewer']);
    expect(at(ps, 'Selection.Adversarial.Rounds').message).toBe('`Rounds` must be an integer ≥ 1 (got 0)');
    expect(at(ps, 'Selection.Adversarial.Stages[1].Critic').message).toMatch(/must differ from the Generator/);
    expect(at(ps, 'Selection.Adversarial.PassKeyword').severity).toBe('error');
    expect(at(validateStrategyConfig({ Selection: { Type: 'adversarial', Adversarial: { Stages: [] } } }, ['A']), 'Selection.Adversarial.Stages').severity).toBe('error');
  });
  test('mapreduce, scattergather, llm, magentic limits; Termination ignored where the seed says so', () => {
    const mr = S.load(S.MAPREDUCE_YAML);
    mr.Selection.MapReduce.MaxSplitterRetries = 0;
    mr.Selection.MapReduce.MaxConcurrency = -1;
    mr.Termination = { Type: 'maxiterations', MaxIterations: 3 };
    let ps = validateStrategyConfig(mr, ['Splitter', 'Mapper', 'Reducer']);
    expect(at(ps, 'Selection.MapReduce.MaxSplitterRetries').message).toMatch(/≥ 1/);
    expect(at(ps, 'Selection.MapReduce.MaxConcurrency').message).toMatch(/≥ 0/);
    expect(at(ps, 'Termination')).toMatchObject({ severity: 'warning', message: expect.stringMatching(/not evaluated for `Type: mapreduce`/) });
    const mag = { ...S.load(S.MAGENTIC_YAML), Termination: { Type: 'maxiterations', MaxIterations: 3 } };
    mag.Selection.Magentic.MaxRoundCount = 0;
    ps = validateStrategyConfig(mag, ['A'], { models: ['gpt-4o-mini'] });
    expect(at(ps, 'Selection.Magentic.MaxRoundCount').severity).toBe('error');
    expect(at(ps, 'Selection.Magentic.Model').message).toMatch(/unknown model `gpt-4o`/);
    expect(at(ps, 'Termination').message).toMatch(/ignored for `Type: magentic`/);
    expect(at(validateStrategyConfig({ Selection: { Type: 'llm', Model: 42 } }, ['A']), 'Selection.Model').message).toMatch(/model id or `\{ModelId/);
    const sg = clone(S.load(S.SCATTERGATHER_YAML));
    delete sg.Selection.ScatterGather.Synthesizer;
    expect(at(validateStrategyConfig(sg, S.SUBGRAPH_AGENTS), 'Selection.ScatterGather.Synthesizer').message).toMatch(/required/);
    const sgTerm = { ...clone(S.load(S.SCATTERGATHER_YAML)), Termination: { Type: 'maxiterations', MaxIterations: 3 } };
    expect(at(validateStrategyConfig(sgTerm, S.SUBGRAPH_AGENTS), 'Termination')).toMatchObject({ severity: 'warning', message: expect.stringMatching(/not evaluated for `Type: scattergather`/) });
  });
});
