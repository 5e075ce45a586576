/**
 * The run shell every agent workflow runs inside (the react loop and every orchestrator): the
 * `status` query, `pause`/`resume`, the AgentId/AgentVersion/AgentPattern/AgentStatus/
 * EscalationQueue search attributes, token usage, warnings, waiting for a human on a queue
 * (`respond` / `respondEscalation`) and the state carried across continue-as-new.
 * Construct it first thing in the workflow (it registers the handlers), then `begin(agent)`.
 *
 * AgentStatus reaches the search attributes on one of two schedules, the ones running workflows
 * recorded (each upsert is a command, so replay depends on them):
 *                    react ('every-change')                 orchestrators ('milestones')
 *   begin            every run, the current state           first run only, 'running'
 *   pause/resume,    each state change                      never
 *   approvals
 *   human wait ends  EscalationQueue cleared, then the      'running' + queue cleared, once answered
 *                    state if it changed (also on cancel)
 *   end              the final state if it changed          the final state, every time fail/complete is called
 *
 * Pending decisions (issue 9): every run keeps the decisions waiting on a human in its whole
 * subtree — its own pending approvals and human wait, plus what each member last reported with the
 * `descendantDecisions` signal — shows them in status (`pending_decisions`) and in its Current
 * Details, and on every change signals the whole list to its parent (behind patch
 * `tree-pending-decisions`; a parent that has closed is ignored). A member's entry is dropped when
 * its run closes (memberClosed). A continue-as-new carries the entries of members still open
 * (`pending_members`; none at today's continue-as-new points, which wait for their members).
 *
 * The `decide` update (issue 9, for operators with only the Temporal CLI or Web UI): sent to any run
 * (the root), it names a decision of that tree as `loom inbox` prints it; the validator refuses one
 * that is not pending there (with what is), and the handler checks corrected arguments against the
 * holder's tool, sends the holder its approve / reject / respond signal (an update cannot be sent
 * from a workflow, nor a signal to itself: this run's own decisions are recorded directly) and returns once the decision has left this run's list (the holder reported it
 * answered) or after a minute. New commands only when a `decide` arrives: no patch.
 */
import { allHandlersFinished, ApplicationFailure, CancellationScope, condition, continueAsNew, getExternalWorkflowHandle, log, patched, proxyActivities, setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { patient } from '../activity-options';
import type { JsonObject } from '../../compiled/types';
import type { Decision } from '../../runtime/approvals';
import type { Activities } from '../../activities';
import type { AgentRunResult, DecideArgs, PendingApproval, PendingDecision, RunAgentInput, RunState, RunStatus, TokenUsage } from '../../shared/contract';
import { DecideArgsSchema, DescendantDecisionsReportSchema, PAYLOAD_SHAPES, SEARCH_ATTRIBUTES } from '../../shared/contract';
import { approveSignal, decideUpdate, descendantDecisionsSignal, pauseSignal, rejectSignal, respondSignal, resumeSignal, statusQuery } from '../../shared/definitions';
import { approvalsAsDecisions, CarriedMemberDecisions, decisionsDetails, decisionsKey, DescendantDecisions, replacementProblem, resolveDecide } from '../../runtime/decisions';
import { addUsage, emptyUsage } from '../../runtime/usage';
import { redactToolArgs } from '../../governance/sensitive';
import { lifecycleWarning, memberWarning } from '../../governance/lifecycle';
import { HumanQueue, HumanResponse } from './human-queue';
import { isObject, refuseUndecodableInput, signalPayload, validatedPayload } from './payloads';
import { PATCHES } from '../patches';

// Checks for `decide` (corrected arguments against the holder's tool schema), as react's approveCall does.
/** The descendantDecisions handler before the check acted on any object with a `decisions` list of objects. */
const reportBefore = (raw: unknown): boolean => isObject(raw) && Array.isArray(raw.decisions) && raw.decisions.every(isObject);

const checks = proxyActivities<Activities>(patient('1 minute'));

export type StatusPublishing = 'every-change' | 'milestones';

/** The fields of RunStatus a workflow reports itself (pattern progress, counters). */
export interface RunProgress {
  pattern: string;
  version: string;
  step: number;
  turn: number;
  tool_calls_made: number;
  progress?: JsonObject;
  error?: string;
}

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
  /** Pause: no new model call, tool call or member starts (running ones finish). */
  paused: boolean;
  readonly status: RunProgress;
  private final: RunState | undefined;
  private humanWait: { queue: string; reason: string; since: string } | undefined;
  private published: RunState | undefined;
  private begun = false;
  private label = '';
  private readonly human = new HumanQueue((m) => this.warn(m));
  private readonly descendants = new DescendantDecisions();
  private decisionsSeen = decisionsKey([]);
  private reportSeq = 0;
  private reportQueued = false;
  private sensitive: Record<string, readonly string[]> = {};
  private what: string | undefined;
  private decisionsShown = false;

  constructor(readonly input: RunAgentInput, private readonly opts: ShellOptions) {
    refuseUndecodableInput(input);
    // usage, warnings and paused are carried at the top level of `carried` (see carry()).
    const carried = (input.carried ?? {}) as { usage?: TokenUsage; warnings?: string[]; paused?: boolean; pending_members?: CarriedMemberDecisions[] };
    this.usage = carried.usage ?? emptyUsage();
    this.warnings = [...(carried.warnings ?? [])];
    this.paused = carried.paused === true;
    // Members still open when the previous run continued-as-new keep their entries until they report again or close.
    this.descendants.restore(carried.pending_members ?? []);
    this.status = { pattern: opts.pattern, version: '', step: 0, turn: 0, tool_calls_made: 0 };
    setHandler(statusQuery, () => this.snapshot());
    setHandler(pauseSignal, () => {
      this.paused = true;
      this.sync();
    });
    setHandler(resumeSignal, () => {
      this.paused = false;
      this.sync();
    });
    // Sent by a member; a payload that does not fit (sent by anything else) is a run warning.
    setHandler(descendantDecisionsSignal, (raw) => {
      const r = signalPayload(DescendantDecisionsReportSchema, raw, PAYLOAD_SHAPES.descendantDecisions, 'descendantDecisions', (m) => this.warn(m), reportBefore);
      if (r && this.descendants.accept(r)) this.decisionsChanged();
    });
    setHandler(decideUpdate, (a) => this.decide(a), {
      validator: (raw) => {
        const a = validatedPayload(DecideArgsSchema, raw, PAYLOAD_SHAPES.decide, 'decide');
        const r = resolveDecide(this.decisions(), a, `the tree of ${workflowInfo().workflowId}`);
        if (!r.ok) throw new Error(r.message);
        if (r.decision.workflow_id === workflowInfo().workflowId && r.decision.kind !== 'escalation' && !this.opts.decideOwn) {
          throw new Error(`${r.decision.call_id} is held by this run itself: answer it with the approveCall / rejectCall update on this run`);
        }
      },
    });
  }

  /** The `decide` update: forward the answer to the run holding the decision, then wait until it is no longer listed. */
  private async decide(a: DecideArgs): Promise<string> {
    const r = resolveDecide(this.decisions(), a, `the tree of ${workflowInfo().workflowId}`);
    if (!r.ok) throw ApplicationFailure.nonRetryable(r.message, 'UnknownDecision');
    const d = r.decision;
    const id = d.call_id ?? d.queue ?? '';
    // `tool` (seed 003 call replacement): checked against the holder's registry tools and the replacement's schema.
    const replace = a.decision === 'approve' && a.tool !== undefined ? { tool: a.tool } : {};
    if (replace.tool !== undefined) {
      const holder = await checks.loadAgent({ bundle: this.input.bundle, agent_id: d.agent_id });
      const problem = replacementProblem(d, replace.tool, holder.tools.refs.map((t) => t.tool_id));
      if (problem) throw ApplicationFailure.nonRetryable(problem, 'InvalidReplacement');
    }
    if (a.decision === 'approve' && (a.args || replace.tool !== undefined) && d.kind === 'approval') {
      const chk = await checks.checkToolArgs({ bundle: this.input.bundle, agent_id: d.agent_id, tool: replace.tool ?? d.tool ?? '', args: a.args ?? {} });
      if (!chk.ok) throw ApplicationFailure.nonRetryable(`${replace.tool !== undefined ? `replacement ${replace.tool}` : 'corrected arguments'} refused for ${id}: ${chk.error}`, 'InvalidArguments');
    }
    const by = a.by ? { by: a.by } : {};
    const respond = { queue: id, ...(a.close ? { close: true, ...(a.reason ? { reason: a.reason } : {}) } : { output: a.output ?? null }), ...by };
    if (d.workflow_id === workflowInfo().workflowId) {
      const taken = a.decision === 'respond' ? this.human.answer(respond) : this.opts.decideOwn?.(id, a.decision === 'approve' ? { kind: 'approve', args: a.args, ...replace, ...by } : { kind: 'reject', reason: a.reason ?? '', ...by });
      if (!taken) throw ApplicationFailure.nonRetryable(`${id} was answered meanwhile`, 'UnknownDecision');
    } else {
      const holder = getExternalWorkflowHandle(d.workflow_id);
      if (a.decision === 'approve') await holder.signal(approveSignal, { call_id: id, ...(a.args ? { args: a.args } : {}), ...replace, ...by });
      else if (a.decision === 'reject') await holder.signal(rejectSignal, { call_id: id, reason: a.reason ?? '', ...by });
      else await holder.signal(respondSignal, respond);
    }
    const same = (x: PendingDecision) => x.workflow_id === d.workflow_id && x.kind === d.kind && (x.call_id ?? x.queue) === id && x.requested_at === d.requested_at;
    const gone = await condition(() => !this.decisions().some(same), '1 minute');
    const done = a.decision === 'approve' ? `approved ${id}${replace.tool !== undefined ? ` replaced by ${replace.tool}` : a.args ? ' with corrected arguments' : ''}` : a.decision === 'reject' ? `rejected ${id}` : a.close ? `closed the escalation on '${id}'` : `responded on '${id}'`;
    const where = d.workflow_id === workflowInfo().workflowId ? '' : ` in ${d.workflow_id}`;
    return `${done}${where}${gone ? '' : ' (sent; still listed as pending after a minute: see its status)'}`;
  }

  state(): RunState {
    if (this.final) return this.final;
    if (this.humanWait) return 'waiting_for_human';
    if (this.paused) return 'paused';
    return this.opts.pendingApprovals?.().length ? 'waiting_for_approval' : 'running';
  }

  snapshot(): RunStatus {
    const c = this.opts.counters?.();
    return {
      state: this.state(),
      agent_id: this.input.agent_id,
      version: this.status.version,
      pattern: this.status.pattern,
      step: c ? c.step : this.status.step,
      turn: c ? c.turn : this.status.turn,
      // A finished run (completed, failed, cancelled) has nothing left to approve.
      // Sensitive tool fields redacted: status is read by operators and CLIs (a query: no history change).
      pending_approvals: this.final ? [] : (this.opts.pendingApprovals?.() ?? []).map((p) => ({ ...p, arguments: redactToolArgs(p.tool, p.arguments, this.sensitive) })),
      // A call waiting for approval has not run yet: counted once it runs (the limits count it when asked).
      tool_calls_made: c ? Math.max(0, c.tool_calls - (this.opts.pendingApprovals?.().length ?? 0)) : this.status.tool_calls_made,
      token_usage: { ...this.usage },
      warnings: [...this.warnings],
      ...(this.humanWait ? { escalation: { ...this.humanWait } } : {}),
      ...(this.status.progress !== undefined ? { progress: this.status.progress } : {}),
      ...(this.status.error ? { error: this.status.error } : {}),
      pending_decisions: this.decisions(),
    };
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
    const wait = this.humanWait;
    if (wait) own.push({ kind: 'escalation', ...who, path: [], queue: wait.queue, reason: wait.reason, requested_at: wait.since });
    return [...own, ...this.descendants.list()];
  }

  /** The tools' sensitive_fields (redacted in the arguments this run reports). */
  redactWith(fields: Record<string, readonly string[]>): void {
    this.sensitive = fields;
  }

  /**
   * Call after anything that may change the pending decisions (an approval asked or answered, a
   * human wait, a member's report): when the list changed, refresh Current Details and tell the
   * parent (once per workflow activation).
   */
  decisionsChanged(): void {
    const key = decisionsKey(this.decisions());
    if (key === this.decisionsSeen) return;
    this.decisionsSeen = key;
    this.renderDetails();
    if (!this.input.options?.parent || this.reportQueued) return;
    this.reportQueued = true;
    void Promise.resolve().then(() => this.reportToParent());
  }

  /** A member's run closed (result or failure): what it last reported is no longer pending. */
  memberClosed(role: string): void {
    if (this.descendants.closed(`${workflowInfo().workflowId}/${role}`, Date.now())) this.decisionsChanged();
  }

  private reportToParent(): void {
    this.reportQueued = false;
    const parent = this.input.options?.parent;
    // Runs recorded before the patch sent nothing to their parent.
    if (!parent || !patched(PATCHES.treePendingDecisions.id)) return;
    const report = { workflow_id: workflowInfo().workflowId, role: parent.role, at: Date.now(), seq: ++this.reportSeq, decisions: this.decisions() };
    CancellationScope.nonCancellable(() => getExternalWorkflowHandle(parent.workflow_id).signal(descendantDecisionsSignal, report)).catch((err: unknown) => {
      // The parent has closed (failed, cancelled, or finished while this member was being torn down): nobody to tell.
      if (/not found/i.test(String((err as Error)?.message ?? err))) return;
      this.warn(`could not report pending decisions to ${parent.workflow_id}: ${String((err as Error)?.message ?? err)}`);
    });
  }

  private renderDetails(): void {
    const block = decisionsDetails(this.decisions());
    if (this.what === undefined && !block && !this.decisionsShown) return;
    this.decisionsShown = block !== '';
    setCurrentDetails(`${this.label}${this.what !== undefined ? `: ${this.what}` : ''}${block}`);
  }

  /** The agent is loaded: publish who runs (and the state), and label the run's current details. */
  begin(agent: { agent_id: string; version: string; status?: string }, pattern: string): void {
    this.status.version = agent.version;
    // A run of a deprecated agent (or a root run of an allowed draft) says so in its warnings (no command: replay-safe).
    const stale = this.input.options?.parent ? memberWarning(agent) : lifecycleWarning(agent);
    if (stale) this.warn(stale);
    this.label = `${agent.agent_id} (${pattern})`;
    this.begun = true;
    if (this.opts.publishing === 'milestones' && this.input.carried) return;
    const state = this.opts.publishing === 'every-change' ? this.state() : 'running';
    this.upsert({
      [SEARCH_ATTRIBUTES.agentId]: [agent.agent_id],
      [SEARCH_ATTRIBUTES.agentVersion]: [agent.version],
      [SEARCH_ATTRIBUTES.pattern]: [pattern],
      // 'paused' when a pause arrived with the start (signalWithStart).
      [SEARCH_ATTRIBUTES.status]: [state],
    });
    this.published = state;
  }

  /** Publish AgentStatus if it changed (react's schedule; orchestrators publish only milestones). */
  sync(): void {
    this.decisionsChanged();
    if (this.opts.publishing !== 'every-change' || !this.begun) return;
    const s = this.state();
    if (s === this.published) return;
    this.published = s;
    this.upsert({ [SEARCH_ATTRIBUTES.status]: [s] });
  }

  /** The run ended (completed, failed or cancelled). */
  end(state: 'completed' | 'failed' | 'cancelled', error?: string): void {
    this.final = state;
    if (error !== undefined) this.status.error = error;
    if (this.opts.publishing === 'every-change') this.sync();
    else this.upsert({ [SEARCH_ATTRIBUTES.status]: [state] });
  }

  /** Block while paused. */
  async checkpoint(): Promise<void> {
    if (this.paused) await condition(() => !this.paused);
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
    this.what = what;
    setCurrentDetails(`${this.label}: ${what}${decisionsDetails(this.decisions())}`);
  }

  /** AgentStatus=waiting_for_human and EscalationQueue=queue: the run shows up in `loom escalations`. */
  enterHumanQueue(queue: string): void {
    this.upsert({ [SEARCH_ATTRIBUTES.status]: ['waiting_for_human'], [SEARCH_ATTRIBUTES.escalationQueue]: [queue] });
    this.published = 'waiting_for_human';
  }

  /** The human acted: clear EscalationQueue (and publish the state again). */
  leaveHumanQueue(): void {
    if (this.opts.publishing === 'every-change') {
      this.upsert({ [SEARCH_ATTRIBUTES.escalationQueue]: [] });
      this.sync();
    } else {
      this.upsert({ [SEARCH_ATTRIBUTES.status]: ['running'], [SEARCH_ATTRIBUTES.escalationQueue]: [] });
      this.published = 'running';
    }
  }

  /** Wait for an operator's `respond` on `queue` (an escalation with a human_queue target). */
  async waitForHuman(queue: string, reason: string): Promise<HumanResponse> {
    this.humanWait = { queue, reason, since: new Date().toISOString() };
    this.enterHumanQueue(queue);
    this.details(`escalated to human queue '${queue}': ${reason}`);
    this.decisionsChanged();
    log.info('waiting for a human response', { queue, reason });
    let answered = false;
    try {
      const r = await this.human.wait(queue);
      answered = true;
      return r;
    } finally {
      this.humanWait = undefined;
      this.decisionsChanged();
      // Orchestrators recorded nothing when the wait was cancelled; react cleared the queue.
      if (answered || this.opts.publishing === 'every-change') this.leaveHumanQueue();
    }
  }

  result(output: AgentRunResult['output'], extra: Partial<AgentRunResult> = {}): AgentRunResult {
    return { agent_id: this.input.agent_id, output, usage: { ...this.usage }, warnings: [...this.warnings], ...extra };
  }

  /** `extra` plus what the shell carries: usage, warnings, a pause that holds in the next run, and the pending decisions of members still open. */
  carry(extra: JsonObject): JsonObject {
    const members = this.descendants.snapshot();
    return {
      ...extra,
      usage: { ...this.usage } as unknown as JsonObject,
      warnings: [...this.warnings],
      ...(this.paused ? { paused: true } : {}),
      ...(members.length ? { pending_members: members as unknown as JsonObject } : {}),
    };
  }

  /** Continue-as-new with `extra` carried (once every update handler has finished). */
  async continueAsNew(extra: JsonObject): Promise<never> {
    await condition(allHandlersFinished);
    return continueAsNew<(i: RunAgentInput) => Promise<AgentRunResult>>({ ...this.input, carried: this.carry(extra) });
  }

  /** Search attributes are best effort: a server without them registered must not break runs. */
  private upsert(attrs: Record<string, string[]>): void {
    try {
      upsertSearchAttributes(attrs);
    } catch (err) {
      log.warn('search attribute update failed', { error: String(err) });
    }
  }
}
