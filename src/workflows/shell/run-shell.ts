/**
 * The run shell every agent workflow runs inside (the react loop and every orchestrator): the
 * `status` query (run-status.ts) and the run's state, token usage and warnings, composed with the jobs it shares
 * out: the pause/resume gate (pause-gate.ts), AgentStatus and the other search attributes on their
 * recorded schedules (status-publication.ts), the Web UI's current details (current-details.ts),
 * the pending decisions of the run's tree (decision-tree.ts), the `decide` update
 * (decide-update.ts), waiting for a human on a queue (human-wait.ts, human-queue.ts) and what continue-as-new
 * carries (continue-as-new.ts). Construct it first thing in the workflow (it registers the
 * handlers), then `begin(agent)`. The handlers are registered, and every command issued, in the
 * order running workflows recorded.
 */
import { log, setHandler, workflowInfo } from '@temporalio/workflow';
import type { JsonObject } from '../../compiled/types';
import type { Decision } from '../../runtime/approvals';
import type { AgentRunResult, PendingApproval, PendingDecision, RunAgentInput, RunState, RunStatus, TokenUsage } from '../../shared/contract';
import { statusQuery } from '../../shared/definitions';
import { approvalsAsDecisions } from '../../runtime/decisions';
import { addUsage, emptyUsage } from '../../runtime/usage';
import { lifecycleWarning, memberWarning } from '../../governance/lifecycle';
import { HumanQueue, type HumanResponse } from './human-queue';
import { HumanWait } from './human-wait';
import { refuseUndecodableInput } from './payloads';
import { PauseGate } from './pause-gate';
import { runStatus, type RunProgress } from './run-status';
import { StatusPublication, type StatusPublishing } from './status-publication';
import { CurrentDetails } from './current-details';
import { DecisionTree } from './decision-tree';
import { registerDecideUpdate } from './decide-update';
import { continueRun, shellCarried, withShellCarried } from './continue-as-new';

export type { RunProgress, StatusPublishing };


export interface ShellOptions {
  pattern: string;
  publishing: StatusPublishing;
  /** Calls waiting for approval (react): shown in status, and the state is waiting_for_approval while any. */
  pendingApprovals?: () => PendingApproval[];
  /** Record an operator's answer to one of this run's own pending calls (react's book), for `decide` sent to this run. */
  decideOwn?: (callId: string, d: Decision) => boolean;
  /** Live step/turn/tool-call counters (react); orchestrators set `status.step` themselves. */
  counters?: () => { step: number; turn: number; tool_calls: number };
}

export class RunShell {
  readonly usage: TokenUsage;
  readonly warnings: string[];
  readonly status: RunProgress;
  private final: RunState | undefined;
  private readonly human = new HumanQueue((m) => this.warn(m));
  private sensitive: Record<string, readonly string[]> = {};
  private readonly gate: PauseGate;
  private readonly tree: DecisionTree;
  private readonly shown: CurrentDetails;
  private readonly publication: StatusPublication;
  private readonly waiting: HumanWait;

  constructor(readonly input: RunAgentInput, private readonly opts: ShellOptions) {
    refuseUndecodableInput(input);
    const carried = shellCarried(input);
    this.usage = carried.usage ?? emptyUsage();
    this.warnings = [...(carried.warnings ?? [])];
    this.gate = new PauseGate(carried.paused === true);
    this.shown = new CurrentDetails(() => this.decisions());
    // Members still open when the previous run continued-as-new keep their entries until they report again or close.
    this.tree = new DecisionTree({ input, decisions: () => this.decisions(), shown: () => this.shown.refresh(), warn: (m) => this.warn(m) }, carried.pending_members ?? []);
    this.publication = new StatusPublication(opts.publishing, () => this.state(), () => this.decisionsChanged());
    const host = { enterHumanQueue: (q: string) => this.enterHumanQueue(q), details: (w: string) => this.details(w), decisionsChanged: () => this.decisionsChanged() };
    this.waiting = new HumanWait(this.human, { ...host, waitEnded: (answered) => this.publication.humanWaitEnded(answered) });
    this.status = { pattern: opts.pattern, version: '', step: 0, turn: 0, tool_calls_made: 0 };
    setHandler(statusQuery, () => this.snapshot());
    this.gate.register(() => this.sync());
    this.tree.register();
    registerDecideUpdate({ input, decisions: () => this.decisions(), answerHuman: (a) => this.human.answer(a), ...(opts.decideOwn ? { decideOwn: opts.decideOwn } : {}) });
  }

  /** Pause: no new model call, tool call or member starts (running ones finish). */
  get paused(): boolean {
    return this.gate.paused;
  }

  state(): RunState {
    if (this.final) return this.final;
    if (this.waiting.current) return 'waiting_for_human';
    if (this.paused) return 'paused';
    return this.opts.pendingApprovals?.().length ? 'waiting_for_approval' : 'running';
  }

  snapshot(): RunStatus {
    const parts = { state: this.state(), agentId: this.input.agent_id, status: this.status, counters: this.opts.counters?.(), ended: this.final !== undefined, sensitive: this.sensitive };
    const rest = { usage: this.usage, warnings: this.warnings, humanWait: this.waiting.current };
    return runStatus({ ...parts, pendingApprovals: this.opts.pendingApprovals?.() ?? [], ...rest, decisions: this.decisions() });
  }

  /** This run's own pending approvals (react's book; strategies override it with the route waiting for approval). */
  protected ownApprovals(): PendingApproval[] {
    return this.opts.pendingApprovals?.() ?? [];
  }

  /** Every decision waiting on a human in this run and below it (none once the run has ended). */
  decisions(): PendingDecision[] {
    if (this.final) return [];
    const who = { workflow_id: workflowInfo().workflowId, agent_id: this.input.agent_id };
    const own = approvalsAsDecisions(this.ownApprovals(), who, { sensitive: (tool) => this.sensitive[tool] ?? [] });
    const wait = this.waiting.current;
    if (wait) own.push({ kind: 'escalation', ...who, path: [], queue: wait.queue, reason: wait.reason, requested_at: wait.since });
    return [...own, ...this.tree.members()];
  }

  /** The tools' sensitive_fields (redacted in the arguments this run reports). */
  redactWith(fields: Record<string, readonly string[]>): void {
    this.sensitive = fields;
  }

  /** Call after anything that may change the pending decisions (an approval asked or answered, a human wait, a member's report). */
  decisionsChanged(): void {
    this.tree.changed();
  }

  /** A member's run closed (result or failure): what it last reported is no longer pending. */
  memberClosed(role: string): void {
    this.tree.memberClosed(role);
  }

  /** The agent is loaded: publish who runs (and the state), and label the run's current details. */
  begin(agent: { agent_id: string; version: string; status?: string }, pattern: string): void {
    this.status.version = agent.version;
    // A run of a deprecated agent (or a root run of an allowed draft) says so in its warnings (no command: replay-safe).
    const stale = this.input.options?.parent ? memberWarning(agent) : lifecycleWarning(agent);
    if (stale) this.warn(stale);
    this.shown.labelRun(agent.agent_id, pattern);
    this.publication.begin(agent, pattern, Boolean(this.input.carried));
  }

  /** Publish AgentStatus if it changed (react's schedule; orchestrators publish only milestones). */
  sync(): void {
    this.publication.sync();
  }

  /** The run ended (completed, failed or cancelled). */
  end(state: 'completed' | 'failed' | 'cancelled', error?: string): void {
    this.final = state;
    if (error !== undefined) this.status.error = error;
    this.publication.end(state);
  }

  /** Block while paused. */
  checkpoint(): Promise<void> {
    return this.gate.checkpoint();
  }

  warn(message: string): void {
    if (this.warnings.includes(message)) return;
    this.warnings.push(message);
    log.warn(message, { workflowId: workflowInfo().workflowId });
  }

  addUsage(u: Partial<TokenUsage> | undefined): void {
    addUsage(this.usage, u);
  }

  /** What the run is doing now, shown in the Web UI (workflow metadata, not a command). */
  details(what: string): void {
    this.shown.show(what);
  }

  /** AgentStatus=waiting_for_human and EscalationQueue=queue: the run shows up in `loom escalations`. */
  enterHumanQueue(queue: string): void {
    this.publication.enterHumanQueue(queue);
  }

  /** The human acted: clear EscalationQueue (and publish the state again). */
  leaveHumanQueue(): void {
    this.publication.leaveHumanQueue();
  }

  /** Wait for an operator's `respond` on `queue` (an escalation with a human_queue target). */
  waitForHuman(queue: string, reason: string): Promise<HumanResponse> {
    return this.waiting.wait(queue, reason);
  }

  result(output: AgentRunResult['output'], extra: Partial<AgentRunResult> = {}): AgentRunResult {
    return { agent_id: this.input.agent_id, output, usage: { ...this.usage }, warnings: [...this.warnings], ...extra };
  }

  /** `extra` plus what the shell carries: usage, warnings, a pause that holds in the next run, and the pending decisions of members still open. */
  carry(extra: JsonObject): JsonObject {
    return withShellCarried(extra, { usage: this.usage, warnings: this.warnings, paused: this.paused, members: this.tree.carried() });
  }

  /** Continue-as-new with `extra` carried (once every update handler has finished). */
  continueAsNew(extra: JsonObject): Promise<never> {
    return continueRun(this.input, () => this.carry(extra));
  }
}
