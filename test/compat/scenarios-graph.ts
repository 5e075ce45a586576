/**
 * Compat scenario for patches `graph-transcript` and `graph-revisit-conversation`
 * (src/workflows/graph.ts): a graph with a cycle and `reset_on_revisit: false`, stopped while the
 * writer's first visit waits for a tool approval. Recorded before the patches, the run keeps inline
 * node inputs (`previous_outputs` on the writer's revisit); after them, node messages are stored by
 * reference and the revisit continues the writer's conversation. Both finish with the same output
 * (the back-edge is taken once, by `executions`, whatever the messages say).
 */
import type { CompiledAgent, GraphPattern } from '../../src/compiled/types';
import { agent as member, answers, bundle } from '../orchestration/builders';
import { builtinTool } from '../runtime/builders';
import type { Scenario } from './scenarios';

/** A member that calls `arithmetic` (approval required), then answers with the result. */
export function approvingWriter(id: string): CompiledAgent {
  const m = member({ id, model: { turns: [{ tool_calls: [{ id: `${id}-c1`, name: 'arithmetic', arguments: { a: 2, b: 3, op: 'add' } }] }, { content: `${id}={{last_tool_result}}` }] } });
  m.tools = { ...m.tools, refs: [builtinTool('arithmetic', { approval_required: true })] };
  // Waiting on a person may outlast the builders' 60 s run timeout (recording, replay, upgrade).
  m.runtime = { ...m.runtime, timeout_seconds: 3600 };
  return m;
}

export function graphScenarios(): Scenario[] {
  return [{
    name: 'graph-revisit-mid-node',
    waitsAt: 'mid-graph (reset_on_revisit false): the writer\'s first visit waits for approval; the back-edge revisits it once',
    patches: ['graph-transcript', 'graph-revisit-conversation'],
    workflowType: 'graphWorkflow',
    bundle: () => {
      const pattern: GraphPattern = {
        type: 'graph', execution_timeout: 600, node_timeout: 300, reset_on_revisit: false, max_node_executions: 10,
        nodes: [{ id: 'writer', agent_ref: 'gr-writer' }, { id: 'reviewer', agent_ref: 'gr-reviewer' }],
        edges: [
          { from: '$self', to: 'writer' },
          { from: 'writer', to: 'reviewer' },
          { from: 'reviewer', to: 'writer', condition: 'executions.writer < 2' },
        ],
      };
      return bundle('c-graph-revisit', [
        member({ id: 'c-graph-revisit', model: answers('start'), pattern }),
        approvingWriter('gr-writer'),
        member({ id: 'gr-reviewer', model: answers('reviewed') }),
      ]);
    },
    input: 'write',
    ready: (t) => t.some((m) => m.open && (m.status?.pending_approvals.length ?? 0) === 1),
    expected: 'reviewed',
  }];
}
