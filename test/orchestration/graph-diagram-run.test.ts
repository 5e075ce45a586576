/**
 * `loom diagram AGENT --run ID` marks (issue 13): real runs on the dev server, stopped while a member
 * waits for a tool approval, then finished; the status query's answer marked on the diagram is
 * compared with golden files in test/fixtures/diagrams/ (run-*.mmd; LOOM_UPDATE_GOLDEN=1 rewrites them).
 */
import * as fs from 'fs';
import * as path from 'path';
import type { CompiledAgent, CompiledBundle, GraphPattern } from '../../src/compiled/types';
import type { RunStatus } from '../../src/shared/contract';
import { agentDiagram, renderDiagram, runMarks } from '../../src/compiler/diagram';
import { agent, answers, bundle, locals } from './builders';
import { Harness, startHarness, waitFor } from './harness';
import { approvingWriter } from '../compat/scenarios-graph';

jest.setTimeout(180_000);

let h: Harness;
beforeAll(async () => { h = await startHarness('diagram-run'); });
afterAll(async () => { await h?.close(); });

const DIR = path.join(__dirname, '..', 'fixtures', 'diagrams');

function golden(name: string, text: string): void {
  const file = path.join(DIR, `${name}.mmd`);
  if (process.env.LOOM_UPDATE_GOLDEN === '1') fs.writeFileSync(file, text);
  expect(text).toBe(fs.readFileSync(file, 'utf8'));
}

const marked = (a: CompiledAgent, st: RunStatus): string => renderDiagram(agentDiagram(a), 'mermaid', runMarks(a, st));

/** Start `b`, wait until a run of the tree waits for approval, return the root's status then; approve and finish. */
async function midAndEnd(b: CompiledBundle): Promise<{ mid: RunStatus; end: RunStatus }> {
  const wf = await h.start(b, 'go');
  const waiting = await waitFor(async () => {
    for await (const x of h.t.client.workflow.list({ query: `WorkflowId STARTS_WITH '${wf.workflowId}/' AND ExecutionStatus = 'Running'` })) {
      const st = await h.t.client.workflow.getHandle(x.workflowId).query<RunStatus>('status');
      if (st.pending_approvals.length) return { id: x.workflowId, call: st.pending_approvals[0].call_id };
    }
    return undefined;
  }, 'a member waiting for approval', 60_000);
  const mid = await wf.query<RunStatus>('status');
  await h.t.client.workflow.getHandle(waiting.id).executeUpdate('approveCall', { args: [{ call_id: waiting.call }] });
  await wf.result();
  return { mid, end: await wf.query<RunStatus>('status') };
}

test('a graph run: $self done and the writer current while it waits; every node done at the end', async () => {
  const pattern: GraphPattern = {
    type: 'graph', execution_timeout: 120, node_timeout: 60, reset_on_revisit: false,
    nodes: [{ id: 'writer', agent_ref: 'dr-writer' }, { id: 'reviewer', agent_ref: 'dr-reviewer' }],
    edges: [{ from: '$self', to: 'writer' }, { from: 'writer', to: 'reviewer' }],
  };
  const root = agent({ id: 'dr-graph', model: answers('start'), pattern });
  const { mid, end } = await midAndEnd(bundle('dr-graph', [root, approvingWriter('dr-writer'), agent({ id: 'dr-reviewer', model: answers('fine') })]));
  expect(runMarks(root, mid)).toEqual({ current: ['n_writer'], done: ['n_self', 'input'], failed: [] });
  golden('run-graph-waiting', marked(root, mid));
  golden('run-graph-completed', marked(root, end));
});

test('a sequential pipeline run: step 1 done and step 2 current while it waits', async () => {
  const root = agent({
    id: 'dr-seq',
    policy: { id: 'agf.sequential', config: { steps: [{ agent: 'dr-first' }, { agent: 'dr-second' }, { agent: 'dr-third' }] } },
    local_agents: locals('dr-first', 'dr-second', 'dr-third'),
  });
  const { mid, end } = await midAndEnd(bundle('dr-seq', [
    root, agent({ id: 'dr-first', model: answers('one') }), approvingWriter('dr-second'), agent({ id: 'dr-third', model: answers('three') }),
  ]));
  expect(runMarks(root, mid)).toEqual({ current: ['s2'], done: ['s1', 'input'], failed: [] });
  golden('run-sequential-waiting', marked(root, mid));
  expect(runMarks(root, end).done).toEqual(expect.arrayContaining(['s1', 's2', 's3', 'output']));
  golden('run-sequential-completed', marked(root, end));
});
