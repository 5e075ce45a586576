/**
 * A graph node whose `agent_ref` is a nested pattern declaration (a workflow, swarm or graph written
 * inline instead of an agent id), compiled from real definitions: the nested pattern becomes an
 * agent of its own in the bundle (`<owner>.<node id>`) that the node names; its members join the
 * bundle; a bad nested declaration is reported where it is written.
 */
import type { CompiledBundle, GraphPattern, WorkflowPattern } from '../../src/compiled/types';
import { WORKFLOW_TYPES, workflowTypeFor } from '../../src/shared/dispatch';
import { agentDefinition, agentDefinitions, compileAgent, Definitions, scripted, type Definition, type FrontMatter } from '../helpers/definitions';

const MODEL = scripted({ turns: [{ content: 'ok' }] });
const member = (id: string, front: FrontMatter = {}): Definition => agentDefinition({ agent_id: id, model: MODEL, front });
const MEMBERS = [member('extract-agent'), member('analyze-agent'), member('report-agent'), member('hand-agent', { orchestration: { can_be_invoked_as_tool: true } })];

const RESEARCH = {
  type: 'workflow',
  tasks: [
    { task_id: 'extract', agent_ref: 'extract-agent', description: 'Extract the figures.' },
    { task_id: 'analyze', agent_ref: 'analyze-agent', description: 'Analyze them.', dependencies: ['extract'] },
  ],
};

function graphFront(nodes: unknown[], edges: unknown[]): FrontMatter {
  return { orchestration: { pattern: { type: 'graph', max_node_executions: 10, nodes, edges } } };
}

function compilePipeline(nodes: unknown[], edges: unknown[]): CompiledBundle {
  const { bundle, defs } = compileAgent({ agent_id: 'pipeline', model: MODEL, others: MEMBERS, front: graphFront(nodes, edges) });
  defs.remove();
  return bundle;
}

function errorsOf(nodes: unknown[], edges: unknown[] = []) {
  const defs = new Definitions();
  defs.addAll(agentDefinitions({ agent_id: 'pipeline', model: MODEL, others: MEMBERS, front: graphFront(nodes, edges) }));
  try {
    return defs.diagnostics('pipeline').filter((d) => d.severity === 'error').map((d) => ({ code: d.code, field: d.field, message: d.message }));
  } finally {
    defs.remove();
  }
}

test('an inline workflow at a graph node compiles to an agent of its own that the node names; its members join the bundle', () => {
  const b = compilePipeline(
    [{ id: 'research', agent_ref: RESEARCH }, { id: 'report', agent_ref: 'report-agent' }],
    [{ from: '$self', to: 'research' }, { from: 'research', to: 'report' }],
  );
  expect(Object.keys(b.agents).sort()).toEqual(['analyze-agent', 'extract-agent', 'pipeline', 'pipeline.research', 'report-agent']);
  const graph = b.agents.pipeline.orchestration.pattern as GraphPattern;
  expect(graph.nodes).toEqual([{ id: 'research', agent_ref: 'pipeline.research' }, { id: 'report', agent_ref: 'report-agent' }]);
  const nested = b.agents['pipeline.research'];
  const wf = nested.orchestration.pattern as WorkflowPattern;
  expect(wf.type).toBe('workflow');
  expect(wf.tasks.map((t) => [t.task_id, t.agent_ref, t.dependencies])).toEqual([['extract', 'extract-agent', []], ['analyze', 'analyze-agent', ['extract']]]);
  expect(workflowTypeFor(nested)).toBe(WORKFLOW_TYPES.workflow);
  // The owner's model and policies; an open interface (the node's input and output) and no escalation rules of its own.
  expect(nested.runtime.model.model_id).toBe(b.agents.pipeline.runtime.model.model_id);
  expect(nested.interface).toEqual({ input: { schema: {}, examples: [] }, output: { schema: {} } });
  expect(nested.orchestration.escalation).toEqual([]);
  expect(nested.meta.name).toBe('pipeline / research');
});

test('nesting goes deeper: a graph inside a graph node holds a swarm of its own', () => {
  const b = compilePipeline(
    [{ id: 'outer', agent_ref: { type: 'graph', nodes: [{ id: 'inner', agent_ref: { type: 'swarm', agents: [{ ref: 'hand-agent' }] } }], edges: [{ from: '$self', to: 'inner' }] } }],
    [{ from: '$self', to: 'outer' }],
  );
  expect((b.agents['pipeline.outer'].orchestration.pattern as GraphPattern).nodes).toEqual([{ id: 'inner', agent_ref: 'pipeline.outer.inner' }]);
  expect(b.agents['pipeline.outer.inner'].orchestration.pattern).toMatchObject({ type: 'swarm', agents: [{ ref: 'hand-agent' }] });
  expect(b.agents['hand-agent']).toBeDefined();
});

test('a nested declaration of another type is AGF063 at its type', () => {
  const errors = errorsOf([{ id: 'research', agent_ref: { type: 'steps', steps: [] } }], [{ from: '$self', to: 'research' }]);
  expect(errors).toEqual([expect.objectContaining({ code: 'AGF063', field: 'orchestration.pattern.nodes[0].agent_ref.type' })]);
  expect(errors[0].message).toMatch(/is a graph, swarm or workflow \(got `steps`\)/);
});

test("a nested pattern's own problems are reported at their place in it", () => {
  const unknownMember = errorsOf([{ id: 'research', agent_ref: { ...RESEARCH, tasks: [{ task_id: 'x', agent_ref: 'no-such-agent', description: 'X.' }] } }], [{ from: '$self', to: 'research' }]);
  expect(unknownMember).toEqual([expect.objectContaining({ code: 'AGF055', field: 'orchestration.pattern.nodes[0].agent_ref.tasks[0].agent_ref' })]);
  const noTasks = errorsOf([{ id: 'research', agent_ref: { type: 'workflow' } }], [{ from: '$self', to: 'research' }]);
  expect(noTasks).toEqual([expect.objectContaining({ code: 'AGF051', field: 'orchestration.pattern.nodes[0].agent_ref.tasks' })]);
  const badEdge = errorsOf([{ id: 'outer', agent_ref: { type: 'graph', nodes: [{ id: 'a', agent_ref: 'report-agent' }], edges: [{ from: '$self', to: 'b' }] } }], [{ from: '$self', to: 'outer' }]);
  expect(badEdge).toEqual([expect.objectContaining({ code: 'AGF054', field: 'orchestration.pattern.nodes[0].agent_ref.edges[0].to' })]);
});
