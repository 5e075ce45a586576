/**
 * Graph pattern (seed 001) as a Temporal workflow. `$self` (the orchestrator agent, run as an
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
import { CancellationScope, condition, patched, proxyActivities } from '@temporalio/workflow';
import type { GraphPattern, JsonObject, JsonValue } from '../compiler/types';
import type { AgentRunResult, BlobRef, RunAgentInput, RunOptions } from '../shared/contract';
import { WORKFLOW_TYPES, workflowTypeFor } from '../shared/dispatch';
import type { Activities } from '../activities';
import { GraphScheduler, SELF } from '../orchestration/graph';
import { OrchestratorRun } from './orchestrator';
import { failureMessage, isTimeout } from './shell/failures';

const acts = proxyActivities<Activities>({ startToCloseTimeout: '60s', retry: { maximumAttempts: 5, initialInterval: '1s' } });

type Done = { id: string; ok: true; output: JsonValue } | { id: string; ok: false; error: string; timeout: boolean; input: JsonValue };

export async function graphWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const run = new OrchestratorRun(input, 'graph');
  const agent = await run.init();
  const pattern = agent.orchestration?.pattern as GraphPattern | undefined;
  if (!pattern || pattern.type !== 'graph') throw run.fail(`agent '${agent.agent_id}' declares no graph pattern`, 'WrongPattern');
  let g: GraphScheduler;
  try {
    g = new GraphScheduler(pattern);
  } catch (e) {
    throw run.fail(`invalid graph: ${(e as Error).message}`, 'InvalidGraph');
  }
  // Runs recorded before the patch waited on back-edge sources too (which could deadlock a join in a cycle).
  if (g.backEdges.size) g.ignoreBackEdges = patched('graph-back-edges');
  const agentOf = (id: string): string => (id === SELF ? input.agent_id : pattern.nodes.find((n) => n.id === id)!.agent_ref);
  const deadline = Date.now() + (pattern.execution_timeout ?? 900) * 1000;
  const nodeTimeout = pattern.node_timeout ?? 300;
  const scope = new CancellationScope();
  const done: Done[] = [];
  let running = 0;
  const report = () => { run.status.progress = g.progress(); run.status.step = g.state.total_executions; };

  // New runs: node messages by reference (graph transcript, and conversations for reset_on_revisit: false).
  const byRef = patched('graph-transcript');
  const carryConversation = byRef && !pattern.reset_on_revisit && patched('graph-revisit-conversation');
  const stored: { transcript: { head: BlobRef | null; size: number }; appended: number } = { transcript: { head: null, size: 0 }, appended: 0 };
  /**
   * Per react node (reset_on_revisit: false): its conversation before its last visit, that visit's
   * first message and, once it completed, its answer (a failed visit adds nothing).
   */
  const conversations = new Map<string, { head: BlobRef | null; first: BlobRef; output?: JsonValue }>();
  const launches: { id: string; input: JsonValue; role: string; options?: RunOptions }[] = [];

  const launch = (id: string, nodeInput: JsonValue, role: string, options?: RunOptions) => {
    void scope
      .run(() =>
        run.runMember({
          agent_id: agentOf(id),
          input: nodeInput,
          role,
          timeoutSeconds: nodeTimeout,
          ...(options ? { options } : {}),
          ...(id === SELF ? { workflowType: WORKFLOW_TYPES['agf.react'] } : {}),
        }),
      )
      .then(
        (res) => {
          running--;
          const c = conversations.get(id);
          if (c && id !== SELF) c.output = res.output;
          done.push({ id, ok: true, output: res.output });
        },
        (err) => { running--; done.push({ id, ok: false, error: failureMessage(err), timeout: isTimeout(err), input: nodeInput }); },
      );
  };

  const start = (id: string) => {
    const revisit = g.node(id).executions > 0;
    const nodeInput: JsonValue =
      id === SELF
        ? input.input
        : ({
            task: input.input,
            inputs: g.inputsFor(id),
            ...(revisit && !pattern.reset_on_revisit && !carryConversation ? { previous_outputs: [...g.node(id).outputs] } : {}),
          } as JsonObject);
    const n = g.markRunning(id);
    running++;
    report();
    const role = `node-${id === SELF ? 'self' : id}-${n}`;
    if (byRef && id !== SELF) launches.push({ id, input: nodeInput, role });
    else launch(id, nodeInput, role);
  };

  /** Store the started nodes' messages (one activity for all of them), then start them. */
  const launchByRef = async () => {
    const batch = launches.splice(0);
    const react: typeof batch = [];
    for (const l of batch) {
      if (workflowTypeFor(await run.load(agentOf(l.id))) === WORKFLOW_TYPES['agf.react']) react.push(l);
      else if (carryConversation && g.node(l.id).executions > 1) {
        // A nested pattern keeps no conversation of its own: it gets its earlier outputs.
        l.input = { ...(l.input as JsonObject), previous_outputs: [...g.node(l.id).outputs] };
      }
    }
    if (react.length) {
      const transcript = g.state.transcript ?? [];
      const out = await acts.graphNodeMessages({
        bundle: input.bundle,
        transcript: stored.transcript,
        append: transcript.slice(stored.appended),
        nodes: react.map((l) => {
          const prev = carryConversation ? conversations.get(l.id) : undefined;
          return { agent_id: agentOf(l.id), input: l.input, ...(prev ? { carry: prev } : {}) };
        }),
      });
      stored.transcript = out.transcript;
      stored.appended = transcript.length;
      react.forEach((l, i) => {
        const m = out.nodes[i];
        if (carryConversation) conversations.set(l.id, { head: m.conversation ?? null, first: m.input_ref });
        l.options = { input_ref: m.input_ref, ...(m.conversation ? { conversation_ref: m.conversation } : {}) };
      });
    }
    for (const l of batch) launch(l.id, l.input, l.role, l.options);
  };

  for (;;) {
    await run.checkpoint();
    for (const id of g.readyNodes()) {
      if (g.limitReached()) {
        scope.cancel();
        report();
        throw run.fail(
          `graph stopped: max_node_executions (${pattern.max_node_executions}) reached with '${id}' still to run`,
          'MaxNodeExecutions',
          g.progress(),
        );
      }
      start(id);
    }
    if (launches.length) await launchByRef();
    if (running === 0 && done.length === 0) break;
    const remaining = deadline - Date.now();
    const got = remaining > 0 ? await condition(() => done.length > 0, remaining) : done.length > 0;
    if (!got) {
      scope.cancel();
      const esc = await run.escalate({ on: 'timeout' }, { error: `execution_timeout (${pattern.execution_timeout}s) exceeded` });
      if (esc.handled && 'final' in esc) return run.complete(esc.final.output);
      if (esc.handled && 'output' in esc) return run.complete(esc.output);
      throw run.fail(`graph execution_timeout (${pattern.execution_timeout}s) exceeded`, 'ExecutionTimeout', g.progress());
    }
    while (done.length) {
      const d = done.shift()!;
      if (d.ok) {
        g.complete(d.id, d.output, input.input);
        continue;
      }
      const what = d.timeout ? `timed out after node_timeout (${nodeTimeout}s)` : `failed: ${d.error}`;
      // Explicit error edges route the failure before any escalation rule (graphs without them: unchanged).
      if (g.hasErrorEdges(d.id)) {
        const to = g.failInto(d.id, what, input.input);
        if (to.length) {
          run.warn(`graph node '${d.id}' ${what}; followed its error edge(s) to ${to.map((t) => `'${t}'`).join(', ')}`);
          continue;
        }
      }
      g.fail(d.id);
      const esc = d.id === SELF ? { handled: false as const } : await run.escalate({ on: 'node_failure', node: d.id }, { error: what, input: d.input });
      if (esc.handled && 'output' in esc) {
        g.complete(d.id, esc.output, input.input);
        continue;
      }
      scope.cancel();
      if (esc.handled && 'final' in esc) return run.complete(esc.final.output);
      report();
      throw run.fail(`graph node '${d.id}' ${what}`, d.timeout ? 'NodeTimeout' : 'NodeFailed', g.progress());
    }
    report();
  }
  report();
  const stuck = g.stalled();
  // Nodes still activated that can never start: a stall is a failure, not a partial output.
  if (stuck.length && patched('graph-stall-fails')) {
    throw run.fail(
      `graph stalled: node(s) ${stuck.map((id) => `'${id}'`).join(', ')} were activated but can never run (each waits on another; nothing is running)`,
      'GraphStalled',
      g.progress(),
    );
  }
  return run.complete(g.output());
}
