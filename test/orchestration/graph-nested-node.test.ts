/**
 * A graph node whose `agent_ref` is an inline nested pattern, on the dev server: the agents are
 * written as definitions and compiled; the nested workflow (task DAG) runs as the node's child with
 * its own tasks under it, and its output feeds the next node. A nested graph whose node fails
 * fails, and so does the enclosing node: the enclosing graph's error edge takes it.
 */
import type { AgentRunResult, RunStatus } from '../../src/shared/contract';
import { WORKFLOW_TYPES } from '../../src/shared/dispatch';
import type { ScriptedModelConfig } from '../../src/compiled/types';
import { agentDefinition, compileAgent, scripted, type Definition, type FrontMatter } from '../helpers/definitions';
import { childIds, Harness, startHarness } from './harness';

let h: Harness;
beforeAll(async () => { h = await startHarness('graph-nested'); });
afterAll(async () => { await h?.close(); });

/** A member agent on its own scripted model; it takes the JSON input a graph node or a task gets. */
function memberAgent(id: string, config: ScriptedModelConfig): Definition[] {
  const model = scripted(config, `model-${id}`);
  return [model, agentDefinition({ agent_id: id, model, front: { interface: { input: { schema: { type: 'object' }, examples: [{ task: 'x' }] }, output: { schema: { type: 'string' } } } } })];
}

const byInput = (contains: string, reply: string, otherwise: string): ScriptedModelConfig => ({ rules: [{ when: { input_contains: contains }, reply: { content: reply } }], turns: [{ content: otherwise }] });

function pipeline(id: string, research: FrontMatter, members: Definition[], extraNodes: FrontMatter[] = [], extraEdges: FrontMatter[] = []) {
  const { bundle, defs } = compileAgent({
    agent_id: id, model: scripted({ turns: [{ content: 'start the quarterly review' }] }, `model-${id}`), others: members,
    front: { orchestration: { pattern: {
      type: 'graph', max_node_executions: 10,
      nodes: [{ id: 'research', agent_ref: research }, { id: 'report', agent_ref: 'report-agent' }, ...extraNodes],
      edges: [{ from: '$self', to: 'research' }, { from: 'research', to: 'report' }, ...extraEdges],
    } } },
  });
  defs.remove();
  return bundle;
}

const REPORT = memberAgent('report-agent', byInput('ANALYSIS-OK', 'final report on ANALYSIS-OK', 'report without the analysis'));

test('an inline workflow at a graph node runs its tasks as the node; its output reaches the next node', async () => {
  const b = pipeline('review', {
    type: 'workflow',
    tasks: [
      { task_id: 'extract', agent_ref: 'extract-agent', description: 'Extract the figures.' },
      { task_id: 'analyze', agent_ref: 'analyze-agent', description: 'Analyze the figures.', dependencies: ['extract'] },
    ],
  }, [
    ...memberAgent('extract-agent', { turns: [{ content: 'FIGURES-42' }] }),
    ...memberAgent('analyze-agent', byInput('FIGURES-42', 'ANALYSIS-OK of FIGURES-42', 'analysis without figures')),
    ...REPORT,
  ]);
  expect(b.agents['review.research']).toBeDefined();
  const wf = await h.start(b, 'quarterly review');
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toBe('final report on ANALYSIS-OK');
  const st = await wf.query<RunStatus>('status');
  expect(st.progress).toMatchObject({ total_executions: 3, nodes: { research: { executions: 1 }, report: { executions: 1 } } });
  // The node ran the nested pattern's own workflow, and its tasks ran under it.
  const node = `${wf.workflowId}/node-research-1`;
  expect(await childIds(h, wf.workflowId)).toEqual(expect.arrayContaining([node, `${wf.workflowId}/node-report-1`, `${wf.workflowId}/node-self-1`]));
  expect((await h.t.client.workflow.getHandle(node).describe()).type).toBe(WORKFLOW_TYPES.workflow);
  expect(await childIds(h, node)).toEqual([`${node}/task-analyze-1`, `${node}/task-extract-1`]);
}, 120_000);

test('a failure inside the nested pattern is the node\'s failure: the graph\'s error edge takes it', async () => {
  // A nested graph (its `$self` is the owner agent again) whose node fails: the nested graph fails, so the node does.
  const b = pipeline('review-fails', {
    type: 'graph',
    nodes: [{ id: 'extract', agent_ref: 'broken-agent' }],
    edges: [{ from: '$self', to: 'extract' }],
  }, [
    ...memberAgent('broken-agent', { turns: [{ error: { status: 400, message: 'the figures source is down' } }] }),
    ...memberAgent('fallback-agent', { turns: [{ content: 'fallback: research failed' }] }),
    ...REPORT,
  ], [{ id: 'fallback', agent_ref: 'fallback-agent' }], [{ from: 'research', to: 'fallback', on: 'error' }]);
  const wf = await h.start(b, 'quarterly review');
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toBe('fallback: research failed');
  expect(res.warnings.join('\n')).toMatch(/graph node 'research' failed: .*followed its error edge\(s\) to 'fallback'/);
  const st = await wf.query<RunStatus>('status');
  expect(st.progress).toMatchObject({ nodes: { report: { executions: 0 }, fallback: { executions: 1 } } });
  const node = `${wf.workflowId}/node-research-1`;
  expect((await h.t.client.workflow.getHandle(node).describe()).type).toBe(WORKFLOW_TYPES.graph);
  expect(await childIds(h, node)).toEqual([`${node}/node-extract-1`, `${node}/node-self-1`]);
}, 120_000);
