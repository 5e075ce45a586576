/** Small compiled agents, one per pattern, for the diagram golden tests. */
import type { CompiledAgent, ExecutionPolicy, OrchestrationPattern } from '../../src/compiled/types';
import { agent, builtinTool, scriptedModel } from '../runtime/builders';

const model = scriptedModel({ turns: [{ content: 'ok' }] }, 'm');
const withPolicy = (id: string, execution_policy: ExecutionPolicy): CompiledAgent => ({ ...agent({ agent_id: id, model }), execution_policy });
const withPattern = (id: string, pattern: OrchestrationPattern): CompiledAgent => {
  const a = agent({ agent_id: id, model });
  return { ...a, orchestration: { ...a.orchestration, pattern } };
};
const strategies = (id: string, names: string[], config: Record<string, unknown>): CompiledAgent =>
  withPattern(id, { type: 'strategies', agents: names.map((n) => ({ name: n, agent_id: n.toLowerCase() })), config: config as never });

export const CASES: Record<string, CompiledAgent> = {
  react: agent({ agent_id: 'helper', model, tools: [builtinTool('echo'), builtinTool('arithmetic', { approval_required: true, max_calls_per_run: 2 })], runtime: { max_turns: 4 } }),
  sequential: withPolicy('seq', { id: 'agf.sequential', config: { steps: [{ agent: 'writer' }, { agent: 'editor' }], output_from: 'editor' } }),
  parallel: withPolicy('par', { id: 'agf.parallel', config: { agents: [{ agent: 'a' }, { agent: 'b' }], output_from: { strategy: 'merge' } } }),
  loop: withPolicy('loop', { id: 'agf.loop', config: { steps: [{ agent: 'writer' }, { agent: 'checker' }], max_iterations: 3, exit_condition: { args_match: { 'checker.output.score': { gte: 0.8 } } } } }),
  batch: withPolicy('batch', { id: 'agf.batch', config: { agent: 'worker', input_mapping: { item: 'parent.input.items.[]' }, max_concurrency: 2 } }),
  conditional: withPolicy('cond', { id: 'agf.conditional', config: { routes: [{ when: { args_match: { 'parent.input.lang': 'en' } }, agent: 'english' }], default_agent: 'other' } }),
  graph: withPattern('triage', {
    type: 'graph', execution_timeout: 60, node_timeout: 30, reset_on_revisit: false,
    nodes: [{ id: 'fix', agent_ref: 'fixer' }, { id: 'check', agent_ref: 'checker' }],
    edges: [{ from: '$self', to: 'fix' }, { from: 'fix', to: 'check' }, { from: 'check', to: 'fix', condition: "result_contains('retry')" }],
  }),
  swarm: withPattern('swarm', { type: 'swarm', max_handoffs: 5, max_iterations: 10, execution_timeout: 60, node_timeout: 30, repetitive_handoff_detection_window: 4, repetitive_handoff_min_unique_agents: 2, agents: [{ ref: 'a' }, { ref: 'b' }] }),
  workflow: withPattern('dag', { type: 'workflow', retry_failed_tasks: false, tasks: [
    { task_id: 'get', agent_ref: 'getter', description: '', priority: 1, dependencies: [] },
    { task_id: 'x', agent_ref: 'ax', description: '', priority: 1, dependencies: ['get'] },
    { task_id: 'y', agent_ref: 'ay', description: '', priority: 1, dependencies: ['get'] },
    { task_id: 'report', agent_ref: 'writer', description: '', priority: 1, dependencies: ['x', 'y'] },
  ] }),
  steps: withPattern('steps', { type: 'steps', steps: [
    { name: 'a', agent: { ByName: 'x' }, mode: 'FanOut' },
    { name: 'b', agent: { ByName: 'y' }, mode: 'FanOut' },
    { name: 'join', agent: { ByName: 'z' }, mode: 'Collect', output_var: 'merged' },
    { name: 'maybe', agent: { ByName: 'w' }, mode: { Conditional: { condition: 'urgent' } } },
    { name: 'polish', agent: { ByName: 'p' }, mode: { Loop: { max_iterations: 2, until: 'DONE' } } },
  ] }),
  keyword: strategies('kw', ['Dev', 'Rev'], {
    Selection: { Type: 'keyword', DefaultAgent: 'Dev', Routes: [{ Keyword: 'REVIEW', Agent: 'Rev' }, { Keyword: 'FIX', Agent: 'Dev', RequireHumanApproval: true }] },
    Termination: { Type: 'regex', Pattern: 'APPROVED', AgentNames: ['Rev'] },
  }),
  statemachine: strategies('sm', ['Dev', 'Rev'], {
    Selection: { Type: 'statemachine', StateMachine: { Initial: 'Build', States: {
      Build: { Agent: 'Dev', Transitions: [{ To: 'Review', Signal: 'DONE' }] },
      Review: { Agent: 'Rev', Transitions: [{ To: 'Build', Signal: 'CHANGES', MaxRevisits: 2 }, { To: 'End', Signal: 'OK' }] },
      End: { Agent: 'Rev', Terminal: true },
    } } },
    Termination: { Type: 'maxiterations', MaxIterations: 20 },
  }),
  keywordGraph: strategies('kg', ['Dev', 'Test'], {
    Selection: { Type: 'graph', Graph: { EntryNode: 'code', Nodes: [{ Id: 'code', Agent: 'Dev' }, { Id: 'test', Agent: 'Test' }, { Id: 'done', Agent: 'Test', Terminal: true }],
      Edges: [{ From: 'code', To: 'test', Keyword: 'READY' }, { From: 'test', To: 'code', Keyword: 'BUGS' }, { From: 'test', To: 'done', Keyword: 'PASS' }] } },
  }),
  scattergather: strategies('sg', ['A', 'B', 'Lead'], { Selection: { Type: 'scattergather', ScatterGather: { Participants: ['A', 'B'], Synthesizer: 'Lead' } } }),
  mapreduce: strategies('mr', ['S', 'M', 'R'], { Selection: { Type: 'mapreduce', MapReduce: { Splitter: 'S', Mapper: 'M', Reducer: 'R', MaxConcurrency: 2 } } }),
  roundrobin: strategies('rr', ['A', 'B'], { Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: 6 } }),
  llm: strategies('llm', ['A', 'B'], { Selection: { Type: 'llm', Model: 'm' } }),
  adversarial: strategies('adv', ['Gen', 'Crit'], { Selection: { Type: 'adversarial', Adversarial: { Stages: [{ Generator: 'Gen', Critic: 'Crit', Label: 'Draft' }], Rounds: 2, PassKeyword: 'PASS' } } }),
};
