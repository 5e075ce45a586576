/**
 * Graph pattern (the Agent Definition Specification) as a Temporal workflow. `$self` (the orchestrator agent, run as an
 * agfReactWorkflow child) is the entry node; after a node completes, its outgoing edges are
 * evaluated against the graph state (safe expression language, src/shared/expr.ts) and
 * ready nodes start in parallel; a fan-in node joins when its live upstream branches completed.
 * A run where activated nodes are left that can never start (they wait on each other) fails
 * (`GraphStalled`, naming them) instead of completing with a partial output.
 * `max_node_executions` stops cycles, `node_timeout` is each child's execution timeout (the whole
 * continue-as-new chain of the member, not reset by it),
 * `execution_timeout` is a durable timer. A failed or timed-out node follows its error edges
 * (`on: error`) when it has any whose condition holds; otherwise it goes through the
 * orchestrator's escalation rules.
 * Node messages (patch `graph-transcript`): each node's completion is appended to the graph
 * transcript in the content-addressed store, and a react node starts from a stored first message
 * (its input, then the transcript's recent window) read by reference. `reset_on_revisit: false`
 * (patch `graph-revisit-conversation`): a revisited react node continues its own conversation
 * (earlier first messages and answers); nested-pattern nodes get `previous_outputs` instead.
 * `reset_on_revisit: true` starts every visit fresh. Runs from before the patches keep their
 * inline inputs (and `previous_outputs` for every revisited node).
 */
import type { GraphPattern } from '../compiled/types';
import type { AgentRunResult, RunAgentInput } from '../shared/contract';
import { SELF } from '../orchestration/graph';
import { OrchestratorRun } from './orchestrator';
import { GraphRun } from './graph-run';

export async function graphWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const run = new OrchestratorRun(input, 'graph');
  const agent = await run.init();
  const graph = GraphRun.open(run, input, agent.orchestration?.pattern as GraphPattern | undefined, agent.agent_id);
  for (;;) {
    await run.checkpoint();
    graph.startReady();
    if (graph.hasLaunches) await graph.launchByRef();
    if (graph.idle) break;
    const remaining = graph.remainingMs();
    const got = remaining > 0 ? await graph.doneWithin(remaining) : graph.done.length > 0;
    if (!got) return graph.onExecutionTimeout();
    while (graph.done.length) {
      const failure = graph.handleDone(graph.done.shift()!);
      if (!failure) continue;
      const esc = failure.d.id === SELF ? { handled: false as const } : await graph.escalateFailure(failure);
      const end = graph.afterEscalation(failure, esc);
      if (end) return end;
    }
    graph.report();
  }
  return graph.finish();
}
