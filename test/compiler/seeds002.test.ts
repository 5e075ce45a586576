/**
 * Seed 002's YAML examples compile unchanged inside an agent file: the seed's orchestration block
 * under `orchestration.pattern: {type: strategies, …}` (a keyword graph also under `type: graph`,
 * told apart from seed 001's graph by its shape), the agent names resolved through local_agents
 * aliases or agent ids. Fragments the seed leaves incomplete (contracts it names but never defines,
 * a state it routes to but never declares) are completed the way the validator asks.
 */
import * as fs from 'fs';
import * as path from 'path';
import YAML from 'yaml';
import { compileBundle, formatDiagnostic } from '../../src/compiler';
import { BODY, baseAgent, tempRegistry } from './helpers';
import * as S from '../strategies/seed-examples';

type Obj = Record<string, unknown>;
const reg = tempRegistry();
// The magentic example names model gpt-4o: register it like the base registry's gpt-4o-mini.
fs.writeFileSync(path.join(reg, 'models', 'gpt-4o.model.md'), fs.readFileSync(path.join(reg, 'models', 'gpt-4o-mini.model.md'), 'utf8').replace(/gpt-4o-mini/g, 'gpt-4o'));

/** Agent names → base-registry agents (several names may run the same agent). */
const BACKING = ['architect', 'coder', 'worker', 'reviewer'];
const localAgents = (names: readonly string[]) => names.map((alias, i) => ({ alias, agent_ref: BACKING[i % BACKING.length] }));

let n = 0;
function compileAgent(orchestration: Obj, names: readonly string[]) {
  const id = `seed002-host-${++n}`;
  const data = { ...baseAgent(id), local_agents: localAgents(names), orchestration };
  fs.writeFileSync(path.join(reg, 'agents', `${id}.agent.md`), `---\n${YAML.stringify(data)}---\n${BODY}`);
  return { id, ...compileBundle(reg, id) };
}
const strategies = (block: Obj, names: readonly string[]) => compileAgent({ pattern: { type: 'strategies', ...block } }, names);

function expectClean(r: ReturnType<typeof compileAgent>, allowedWarnings: string[] = []): void {
  const bad = r.diagnostics.filter((d) => d.severity === 'error' || (d.severity === 'warning' && !allowedWarnings.includes(d.code) && d.code.startsWith('AGL02')));
  if (bad.length) throw new Error(bad.map(formatDiagnostic).join('\n'));
  expect(r.bundle).toBeDefined();
}
const patternOf = (r: ReturnType<typeof compileAgent>) => r.bundle!.agents[r.id].orchestration.pattern as unknown as { type: string; agents: { name: string; agent_id: string }[]; config: Obj };

const CONTRACT_DEFS = [
  { Name: 'BriefExists', Requires: [{ FilesWritten: { Source: 'brief.json', Field: 'files_to_change' } }] },
  { Name: 'ImplementationComplete', Requires: [{ CommandSucceeded: { PatternField: 'verify_command' } }] },
  { Name: 'TestsValid', Requires: [{ CommandSucceeded: { PatternField: 'verify_command' } }] },
];
const PHASE = ['Planner', 'PlanReviewer', 'Developer', 'CodeReviewer'];

describe('seed 002 examples compile clean under `orchestration.pattern: {type: strategies}`', () => {
  test.each([
    ['keyword + composite termination', () => ({ ...S.load(S.KEYWORD_YAML), ...S.load(S.COMPOSITE_TERMINATION_YAML) }), S.DEV_TEAM],
    ['structured + its termination', () => ({ ...S.load(S.STRUCTURED_YAML), ...S.load(S.STRUCTURED_TERMINATION_YAML) }), S.STRUCTURED_AGENTS],
    ['statemachine (+ the contracts it names)', () => ({ ...S.load(S.STATEMACHINE_YAML), Contracts: CONTRACT_DEFS, ...S.load(S.COMPOSITE_TERMINATION_YAML) }), S.DEV_TEAM],
    ['parallel fan-out + termination', () => ({ ...S.load(S.PARALLEL_YAML), Termination: { Type: 'maxiterations', MaxIterations: 30 } }), S.PARALLEL_AGENTS],
    ['graph', () => S.load(S.GRAPH_YAML), S.DEV_TEAM],
    ['graph sub-graph', () => S.load(S.SUBGRAPH_GRAPH_YAML), S.SUBGRAPH_AGENTS],
  ])('%s', (_name, block, names) => {
    const r = strategies(block(), names);
    expectClean(r);
    expect(r.diagnostics.filter((d) => d.code === 'AGL017')).toEqual([]);
    const p = patternOf(r);
    expect(p.type).toBe('strategies');
    expect(p.config).toEqual(block());
    expect(p.agents.map((a) => a.name)).toEqual(names);
    expect(p.agents.map((a) => a.agent_id)).toEqual(localAgents(names).map((a) => a.agent_ref));
  });

  test('the Contracts example (an `Orchestration:` block) once the Testing state it routes to is declared', () => {
    const orch = S.load(S.CONTRACTS_YAML).Orchestration;
    const before = strategies(orch, S.DEV_TEAM);
    expect(before.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.field}`)).toEqual(['AGF071 orchestration.pattern.Selection.StateMachine.States.Implementation.Transitions[0].To']);
    orch.Selection.StateMachine.States.Testing = { Agent: 'Tester', Terminal: true };
    orch.Termination = { Type: 'maxiterations', MaxIterations: 10 };
    const r = strategies(orch, S.DEV_TEAM);
    expectClean(r);
    // CommandSucceeded without Source reads the brief its sibling FilesWritten names, stored explicitly.
    expect((patternOf(r).config.Contracts as Obj[])[0]).toEqual({
      Name: 'ImplementationComplete',
      Requires: [
        { FilesWritten: { Source: '.fuseraft/artifacts/brief.json', Field: 'files_to_change' } },
        { CommandSucceeded: { PatternField: 'verify_command', Source: '.fuseraft/artifacts/brief.json' } },
      ],
    });
  });

  test.each([
    ['map-reduce sub-graph', () => S.load(S.SUBGRAPH_MAPREDUCE_YAML), S.SUBGRAPH_AGENTS, false],
    ['scatter-gather sub-graph', () => S.load(S.SUBGRAPH_SCATTER_YAML), S.SUBGRAPH_AGENTS, false],
    ['scattergather', () => S.load(S.SCATTERGATHER_YAML), S.SUBGRAPH_AGENTS, false],
    ['mapreduce', () => S.load(S.MAPREDUCE_YAML), ['Splitter', 'Mapper', 'Reducer'], false],
    ['llm', () => S.load(S.LLM_YAML), ['A'], false],
    ['magentic', () => S.load(S.MAGENTIC_YAML), ['A'], false],
    ['adversarial', () => S.load(S.ADVERSARIAL_YAML), PHASE, false],
  ])('%s compiles (no AGL017 "not yet executed" warning: every type runs)', (_name, block, names, phase) => {
    const r = strategies(block(), names);
    expectClean(r);
    expect(r.diagnostics.some((d) => d.code === 'AGL017' && d.field === 'orchestration.pattern.Selection.Type')).toBe(phase);
  });

  test('the llm selection / magentic manager model is compiled into the pattern (their calls read it from the bundle)', () => {
    const r = strategies(S.load(S.LLM_YAML), ['A']);
    const models = (patternOf(r) as unknown as { models?: Record<string, { model_id: string; provider: string }> }).models;
    expect(Object.keys(models ?? {})).toEqual(['gpt-4o-mini']);
    expect(models!['gpt-4o-mini'].model_id).toBe('gpt-4o-mini');
    const mag = (patternOf(strategies(S.load(S.MAGENTIC_YAML), ['A'])) as unknown as { models?: Record<string, unknown> }).models;
    expect(Object.keys(mag ?? {})).toEqual(['gpt-4o']);
  });

  test('a model the registry does not know is reported (llm/magentic Model)', () => {
    const block = S.load(S.LLM_YAML);
    block.Selection.Model.ModelId = 'gpt-4o-mimi';
    const r = strategies(block, ['A']);
    expect(r.diagnostics.find((d) => d.code === 'AGF073')?.message).toMatch(/unknown model `gpt-4o-mimi`; did you mean `gpt-4o-mini`\?/);
  });
});

describe('a seed-002 graph under `type: graph` is told apart by its shape, never rejected', () => {
  test('the seed\'s orchestration block (`Selection: {Type: graph, Graph: …}`)', () => {
    const r = compileAgent({ pattern: { type: 'graph', ...S.load(S.GRAPH_YAML) } }, S.DEV_TEAM);
    expectClean(r);
    expect(patternOf(r)).toMatchObject({ type: 'strategies', config: S.load(S.GRAPH_YAML) });
  });

  test('the bare GraphConfig (EntryNode/Nodes/Edges) with a Termination beside it', () => {
    const graph = S.load(S.GRAPH_YAML).Selection.Graph;
    const r = compileAgent({ pattern: { type: 'graph', ...graph, Termination: { Type: 'maxiterations', MaxIterations: 20 } } }, S.DEV_TEAM);
    expectClean(r);
    expect(patternOf(r).config).toEqual({ Selection: { Type: 'graph', Graph: graph }, Termination: { Type: 'maxiterations', MaxIterations: 20 } });
  });

  test('seed 001\'s graph (lowercase nodes/edges) still compiles as a seed-001 graph', () => {
    const r = compileAgent({ pattern: { type: 'graph', nodes: [{ id: 'a', agent_ref: 'worker' }], edges: [{ from: '$self', to: 'a' }] } }, []);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(patternOf(r).type).toBe('graph');
    expect((patternOf(r) as unknown as { nodes: unknown[] }).nodes).toEqual([{ id: 'a', agent_ref: 'worker' }]);
  });
});

describe('agent names', () => {
  test('`Agents` lists agent ids directly (no local_agents), in the order roundrobin uses; they join the bundle', () => {
    const r = compileAgent({ pattern: { type: 'strategies', Agents: ['coder', 'reviewer'], Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: 4 } } }, []);
    expectClean(r);
    expect(patternOf(r).agents).toEqual([{ name: 'coder', agent_id: 'coder' }, { name: 'reviewer', agent_id: 'reviewer' }]);
    expect(Object.keys(r.bundle!.agents).sort()).toEqual(expect.arrayContaining(['coder', 'reviewer']));
  });

  test('`Agents` may restrict and reorder the local_agents aliases; a name outside it is unknown (AGF070, with a suggestion when one is close)', () => {
    const ok = strategies({ Agents: ['Tester', 'Planner'], Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: 3 } }, S.DEV_TEAM);
    expectClean(ok);
    expect(patternOf(ok).agents).toEqual([{ name: 'Tester', agent_id: 'worker' }, { name: 'Planner', agent_id: 'architect' }]);
    const r = strategies({ Agents: ['Tester', 'Planner'], Selection: { Type: 'keyword', DefaultAgent: 'Testr', Routes: [{ Keyword: 'GO', Agent: 'Developer' }] } }, S.DEV_TEAM);
    expect(r.diagnostics.filter((x) => x.code === 'AGF070').map((x) => `${x.field}: ${x.message}`)).toEqual([
      'orchestration.pattern.Selection.DefaultAgent: unknown agent `Testr`; did you mean `Tester`? (declared agents: Tester, Planner)',
      'orchestration.pattern.Selection.Routes[0].Agent: unknown agent `Developer` (declared agents: Tester, Planner)',
    ]);
  });

  test('no agents at all is one AGF070 at the pattern', () => {
    const r = compileAgent({ pattern: { type: 'strategies', Selection: { Type: 'sequential' } } }, []);
    expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.field}`)).toEqual(['AGF070 orchestration.pattern']);
  });
});

describe('phase sub-graphs run', () => {
  test.each([
    ['MapReduce', () => S.load(S.SUBGRAPH_MAPREDUCE_YAML)],
    ['ScatterGather', () => S.load(S.SUBGRAPH_SCATTER_YAML)],
  ])('a %s sub-graph compiles with no AGL017 (the runtime executes it)', (_kind, block) => {
    const r = strategies(block(), S.SUBGRAPH_AGENTS);
    expect(r.diagnostics.filter((d) => d.code === 'AGL017')).toEqual([]);
  });
});
