/**
 * The steps of one graph run (src/workflows/graph.ts): the scheduler, the cancellation scope of its
 * nodes, the queue of finished nodes, and the stored graph transcript and conversations of node
 * messages (patches `graph-transcript`, `graph-revisit-conversation`). graphWorkflow is the loop that
 * calls these steps. Every await of the run stays in graphWorkflow or in the same place of the step
 * it was in: a step that has no await is synchronous and one that only waits returns the promise it
 * waits on, so the commands (and their order) are those the one-function workflow issued.
 */
import { CancellationScope, condition, patched, proxyActivities } from '@temporalio/workflow';
import { STORE_ACTIVITY } from './activity-options';
import type { GraphPattern, JsonObject, JsonValue } from '../compiled/types';
import type { AgentRunResult, BlobRef, RunAgentInput, RunOptions } from '../shared/contract';
import { WORKFLOW_TYPES, workflowTypeFor } from '../shared/dispatch';
import type { Activities } from '../activities';
import { GraphScheduler, SELF } from '../orchestration/graph';
import type { OrchestratorRun } from './orchestrator';
import { failureMessage, isTimeout } from './shell/failures';
import { PATCHES } from './patches';

const acts = proxyActivities<Activities>(STORE_ACTIVITY);

/** A node run that ended: its output, or why it failed (with the input it had, for escalation). */
export type Done = { id: string; ok: true; output: JsonValue } | { id: string; ok: false; error: string; timeout: boolean; input: JsonValue };
/** A failed node (or the run's execution_timeout) after the orchestrator's escalation rules. */
export type Escalation = Awaited<ReturnType<OrchestratorRun['escalate']>>;
/** A node that failed, did not follow an error edge and is marked failed: what happened, for escalation. */
export type Failure = { d: Extract<Done, { ok: false }>; what: string };
/** A node launch waiting for its stored messages (launchByRef). */
type Launch = { id: string; input: JsonValue; role: string; options?: RunOptions };

/**
 * The summary of the graph's wait for its next node to end: the execution_timeout it enforces, the
 * time left, and the running nodes with their node_timeout (each node's own limit is its child
 * run's execution timeout, which the server enforces without a timer of ours).
 */
export function graphTimerSummary(executionTimeoutS: number, secondsLeft: number, running: string[], nodeTimeoutS: number): string {
  const nodes = running.length ? ` while node${running.length === 1 ? '' : 's'} ${running.join(', ')} run${running.length === 1 ? 's' : ''} (node_timeout ${nodeTimeoutS} s)` : '';
  return `graph execution_timeout (${executionTimeoutS} s, ${secondsLeft} s left)${nodes}`;
}

export class GraphRun {
  /** Nodes that ended and are not handled yet, in the order they ended. */
  readonly done: Done[] = [];
  readonly nodeTimeout: number;
  private readonly deadline: number;
  private readonly scope: CancellationScope;
  private running = 0;
  // New runs: node messages by reference (graph transcript, and conversations for reset_on_revisit: false).
  private readonly byRef: boolean;
  private readonly carryConversation: boolean;
  private readonly stored: { transcript: { head: BlobRef | null; size: number }; appended: number } = { transcript: { head: null, size: 0 }, appended: 0 };
  /**
   * Per react node (reset_on_revisit: false): its conversation before its last visit, that visit's
   * first message and, once it completed, its answer (a failed visit adds nothing).
   */
  private readonly conversations = new Map<string, { head: BlobRef | null; first: BlobRef; output?: JsonValue }>();
  private readonly launches: Launch[] = [];

  /** The graph of the orchestrator agent `run` loaded, or the run fails (WrongPattern, InvalidGraph). */
  static open(run: OrchestratorRun, input: RunAgentInput, pattern: GraphPattern | undefined, agentId: string): GraphRun {
    if (!pattern || pattern.type !== 'graph') throw run.fail(`agent '${agentId}' declares no graph pattern`, 'WrongPattern');
    let g: GraphScheduler;
    try {
      g = new GraphScheduler(pattern);
    } catch (e) {
      throw run.fail(`invalid graph: ${(e as Error).message}`, 'InvalidGraph');
    }
    return new GraphRun(run, input, pattern, g);
  }

  private constructor(
    private readonly run: OrchestratorRun,
    private readonly input: RunAgentInput,
    private readonly pattern: GraphPattern,
    private readonly g: GraphScheduler,
  ) {
    // Runs recorded before the patch waited on back-edge sources too (which could deadlock a join in a cycle).
    if (g.backEdges.size) g.ignoreBackEdges = patched(PATCHES.graphBackEdges.id);
    this.deadline = Date.now() + (pattern.execution_timeout ?? 900) * 1000;
    this.nodeTimeout = pattern.node_timeout ?? 300;
    this.scope = new CancellationScope();
    this.byRef = patched(PATCHES.graphTranscript.id);
    this.carryConversation = this.byRef && !pattern.reset_on_revisit && patched(PATCHES.graphRevisitConversation.id);
  }

  report(): void {
    this.run.status.progress = this.g.progress();
    this.run.status.step = this.g.state.total_executions;
  }

  /** Nothing runs and nothing is left to handle: the graph is done (or stalled). */
  get idle(): boolean {
    return this.running === 0 && this.done.length === 0;
  }

  /** Started nodes whose messages are still to be stored (launchByRef). */
  get hasLaunches(): boolean {
    return this.launches.length > 0;
  }

  /** Milliseconds left before execution_timeout. */
  remainingMs(): number {
    return this.deadline - Date.now();
  }

  /**
   * True once a node ended, false when `ms` passed first (the condition's durable timer). The timer
   * carries a summary for the Web UI naming the graph's execution_timeout and the nodes it waits on
   * (patched: the timers of graphs recorded before had none).
   */
  doneWithin(ms: number): Promise<boolean> {
    const until = () => this.done.length > 0;
    if (!patched(PATCHES.waitTimerSummary.id)) return condition(until, ms);
    return condition(until, ms, { summary: graphTimerSummary(this.pattern.execution_timeout ?? 900, Math.ceil(ms / 1000), this.g.running(), this.nodeTimeout) });
  }

  /** Start every ready node, or stop the run when max_node_executions is reached. */
  startReady(): void {
    for (const id of this.g.readyNodes()) {
      if (this.g.limitReached()) {
        this.scope.cancel();
        this.report();
        throw this.run.fail(
          `graph stopped: max_node_executions (${this.pattern.max_node_executions}) reached with '${id}' still to run`,
          'MaxNodeExecutions',
          this.g.progress(),
        );
      }
      this.start(id);
    }
  }

  private agentOf(id: string): string {
    return id === SELF ? this.input.agent_id : this.pattern.nodes.find((n) => n.id === id)!.agent_ref;
  }

  private start(id: string): void {
    const { g, pattern, input } = this;
    const revisit = g.node(id).executions > 0;
    const nodeInput: JsonValue =
      id === SELF
        ? input.input
        : ({
            task: input.input,
            inputs: g.inputsFor(id),
            ...(revisit && !pattern.reset_on_revisit && !this.carryConversation ? { previous_outputs: [...g.node(id).outputs] } : {}),
          } as JsonObject);
    const n = g.markRunning(id);
    this.running++;
    this.report();
    const role = `node-${id === SELF ? 'self' : id}-${n}`;
    if (this.byRef && id !== SELF) this.launches.push({ id, input: nodeInput, role });
    else this.launch(id, nodeInput, role);
  }

  private launch(id: string, nodeInput: JsonValue, role: string, options?: RunOptions): void {
    void this.scope
      .run(() =>
        this.run.runMember({
          agent_id: this.agentOf(id),
          input: nodeInput,
          role,
          timeoutSeconds: this.nodeTimeout,
          ...(options ? { options } : {}),
          ...(id === SELF ? { workflowType: WORKFLOW_TYPES['agf.react'] } : {}),
        }),
      )
      .then(
        (res) => {
          this.running--;
          const c = this.conversations.get(id);
          if (c && id !== SELF) c.output = res.output;
          this.done.push({ id, ok: true, output: res.output });
        },
        (err) => { this.running--; this.done.push({ id, ok: false, error: failureMessage(err), timeout: isTimeout(err), input: nodeInput }); },
      );
  }

  /** Store the started nodes' messages (one activity for all of them), then start them. */
  async launchByRef(): Promise<void> {
    const { g } = this;
    const batch = this.launches.splice(0);
    const react: typeof batch = [];
    for (const l of batch) {
      if (workflowTypeFor(await this.run.load(this.agentOf(l.id))) === WORKFLOW_TYPES['agf.react']) react.push(l);
      else if (this.carryConversation && g.node(l.id).executions > 1) {
        // A nested pattern keeps no conversation of its own: it gets its earlier outputs.
        l.input = { ...(l.input as JsonObject), previous_outputs: [...g.node(l.id).outputs] };
      }
    }
    if (react.length) {
      const transcript = g.state.transcript ?? [];
      const out = await acts.graphNodeMessages({
        bundle: this.input.bundle,
        transcript: this.stored.transcript,
        append: transcript.slice(this.stored.appended),
        nodes: react.map((l) => {
          const prev = this.carryConversation ? this.conversations.get(l.id) : undefined;
          return { agent_id: this.agentOf(l.id), input: l.input, ...(prev ? { carry: prev } : {}) };
        }),
      });
      this.stored.transcript = out.transcript;
      this.stored.appended = transcript.length;
      react.forEach((l, i) => {
        const m = out.nodes[i];
        if (this.carryConversation) this.conversations.set(l.id, { head: m.conversation ?? null, first: m.input_ref });
        l.options = { input_ref: m.input_ref, ...(m.conversation ? { conversation_ref: m.conversation } : {}) };
      });
    }
    for (const l of batch) this.launch(l.id, l.input, l.role, l.options);
  }

  /** execution_timeout passed with nodes still running: cancel them, then escalate or fail. */
  async onExecutionTimeout(): Promise<AgentRunResult> {
    this.scope.cancel();
    const esc = await this.run.escalate({ on: 'timeout' }, { error: `execution_timeout (${this.pattern.execution_timeout}s) exceeded` });
    if (esc.handled && 'final' in esc) return this.run.complete(esc.final.output);
    if (esc.handled && 'output' in esc) return this.run.complete(esc.output);
    throw this.run.fail(`graph execution_timeout (${this.pattern.execution_timeout}s) exceeded`, 'ExecutionTimeout', this.g.progress());
  }

  /**
   * A node ended. Success completes it; a failure follows the node's error edges when one holds.
   * Returns the failure (the node is then marked failed) when neither applies: the caller escalates it.
   */
  handleDone(d: Done): Failure | undefined {
    const { g } = this;
    if (d.ok) {
      g.complete(d.id, d.output, this.input.input);
      return undefined;
    }
    const what = d.timeout ? `timed out after node_timeout (${this.nodeTimeout}s)` : `failed: ${d.error}`;
    // Explicit error edges route the failure before any escalation rule (graphs without them: unchanged).
    if (g.hasErrorEdges(d.id)) {
      const to = g.failInto(d.id, what, this.input.input);
      if (to.length) {
        this.run.warn(`graph node '${d.id}' ${what}; followed its error edge(s) to ${to.map((t) => `'${t}'`).join(', ')}`);
        return undefined;
      }
    }
    g.fail(d.id);
    return { d, what };
  }

  /** The orchestrator's escalation rules for a failed node (not `$self`: its failure is not escalated). */
  escalateFailure({ d, what }: Failure): Promise<Escalation> {
    return this.run.escalate({ on: 'node_failure', node: d.id }, { error: what, input: d.input });
  }

  /**
   * After escalating a failed node: an answer completes the node (undefined: the run goes on);
   * otherwise the nodes are cancelled and the escalation agent's result is the run's, or the run fails.
   */
  afterEscalation({ d, what }: Failure, esc: Escalation): Promise<AgentRunResult> | undefined {
    if (esc.handled && 'output' in esc) {
      this.g.complete(d.id, esc.output, this.input.input);
      return undefined;
    }
    this.scope.cancel();
    if (esc.handled && 'final' in esc) return this.run.complete(esc.final.output);
    this.report();
    throw this.run.fail(`graph node '${d.id}' ${what}`, d.timeout ? 'NodeTimeout' : 'NodeFailed', this.g.progress());
  }

  /** Nothing runs any more: the graph's output, unless activated nodes are left that can never run. */
  finish(): Promise<AgentRunResult> {
    const { g } = this;
    this.report();
    const stuck = g.stalled();
    // Nodes still activated that can never start: a stall is a failure, not a partial output.
    if (stuck.length && patched(PATCHES.graphStallFails.id)) {
      throw this.run.fail(
        `graph stalled: node(s) ${stuck.map((id) => `'${id}'`).join(', ')} were activated but can never run (each waits on another; nothing is running)`,
        'GraphStalled',
        g.progress(),
      );
    }
    return this.run.complete(g.output());
  }
}
