/** `--run` marks from a status query (pure; the dev-server golden runs are test/orchestration/graph-diagram-run.test.ts). */
import type { SwarmPattern, WorkflowPattern } from '../../src/compiled/types';
import { runMarks, toDot, agentDiagram } from '../../src/compiler/diagram';
import { agent } from '../orchestration/builders';

test('a failed graph marks the node it failed at; cancelled runs mark where they were as failed', () => {
  const a = agent({ id: 'g', pattern: { type: 'graph', execution_timeout: 60, node_timeout: 30, reset_on_revisit: false, nodes: [{ id: 'pay', agent_ref: 'p' }], edges: [{ from: '$self', to: 'pay' }] } });
  const progress = { nodes: { $self: { status: 'completed', executions: 1 }, pay: { status: 'failed', executions: 1 } } };
  expect(runMarks(a, { state: 'failed', pattern: 'graph', progress })).toEqual({ current: [], done: ['n_self', 'input'], failed: ['n_pay'] });
  const running = { nodes: { $self: { status: 'completed', executions: 1 }, pay: { status: 'running', executions: 1 } } };
  expect(runMarks(a, { state: 'cancelled', pattern: 'graph', progress: running })).toEqual({ current: [], done: ['n_self', 'input'], failed: ['n_pay'] });
});

test('task DAG tasks by status, the swarm current agent, the conditional route', () => {
  const wf: WorkflowPattern = { type: 'workflow', max_workers: 2, retry_failed_tasks: false, tasks: [
    { task_id: 'a', agent_ref: 'x', description: '', priority: 1, dependencies: [] },
    { task_id: 'b', agent_ref: 'y', description: '', priority: 1, dependencies: ['a'] },
  ] } as unknown as WorkflowPattern;
  const dag = agent({ id: 'w', pattern: wf });
  expect(runMarks(dag, { state: 'running', pattern: 'workflow', progress: { tasks: [{ task_id: 'a', status: 'completed' }, { task_id: 'b', status: 'running' }] } }))
    .toEqual({ current: ['t_b'], done: ['t_a', 'input'], failed: [] });
  const sw: SwarmPattern = { type: 'swarm', max_handoffs: 3, max_iterations: 5, execution_timeout: 60, node_timeout: 30, repetitive_handoff_detection_window: 0, repetitive_handoff_min_unique_agents: 0, agents: [{ ref: 'r1' }, { ref: 'r2' }] };
  const s = agent({ id: 's', pattern: sw });
  expect(runMarks(s, { state: 'running', pattern: 'swarm', progress: { current_agent: 'r2', history: [{ agent: 'r1', handoff_to: 'r2' }] } }))
    .toEqual({ current: ['a2'], done: ['a1', 'input'], failed: [] });
  const c = agent({ id: 'c', policy: { id: 'agf.conditional', config: { routes: [{ when: { args_match: { k: 'v' } }, agent: 'one' }], default_agent: 'two' } } as never });
  expect(runMarks(c, { state: 'running', pattern: 'agf.conditional', progress: { route: 'default', agent: 'two' } }))
    .toEqual({ current: ['default'], done: ['route', 'input'], failed: [] });
});

test('dot output fills marked nodes (a rounded node stays rounded)', () => {
  const a = agent({ id: 'g', pattern: { type: 'graph', execution_timeout: 60, node_timeout: 30, reset_on_revisit: false, nodes: [{ id: 'pay', agent_ref: 'p' }], edges: [{ from: '$self', to: 'pay' }] } });
  const dot = toDot(agentDiagram(a), { current: ['n_pay'], done: ['n_self'], failed: [] });
  expect(dot).toContain('"n_self" [label="$self: g", shape=box, style="rounded,filled", fillcolor="#c8e6c9"];');
  expect(dot).toContain('"n_pay" [label="pay: p", shape=box, style=filled, fillcolor="#ffe082", penwidth=3];');
});
