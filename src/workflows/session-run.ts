/**
 * The steps of one session execution (src/workflows/session.ts): what it holds between messages
 * (the carried refs and counters, the plan, the writebacks waiting for a human) and the named steps
 * of a message turn (memory read, the trimmed first message, the turn inline or as a child run,
 * recording it, memory writeback), the idle timeout, continue-as-new and closing. sessionWorkflow registers the
 * handlers and runs the loop. Every await stays where it was: a step without an await is
 * synchronous and one that only waits returns the promise it waits on, so the commands (and
 * their order, also between a turn and a writeback decided at the same time) are those the
 * one-function workflow issued.
 */
import { allHandlersFinished, condition, patched, proxyActivities, upsertSearchAttributes, workflowInfo, ApplicationFailure } from '@temporalio/workflow';
import { STORE_ACTIVITY } from './activity-options';
import type { AgentRunResult, ApproveArgs, PendingApproval, PendingDecision, RejectArgs, RunStatus, TokenUsage } from '../shared/contract';
import { ApproveArgsSchema, PAYLOAD_SHAPES, RejectArgsSchema, SEARCH_ATTRIBUTES } from '../shared/contract';
import { DEFAULT_IDLE_TIMEOUT_SECONDS, SESSION_MESSAGE_SHAPE, SessionMessageSchema } from '../shared/session';
import { refuseUndecodableInput, validatedPayload } from './shell/payloads';
import type { PendingMemoryWrite, SessionCarry, SessionInput, SessionMessage, SessionReply } from '../shared/session';
import type { Activities } from '../activities';
import type { SessionPlan } from '../activities/session-turns';
import { writebackApproval, writebackCallId, writebackNotWritten, WRITEBACK_AS_EXTRACTED } from '../runtime/memory';
import { runChildAgent } from './child';
import { PATCHES } from './patches';
import { NEEDS_CHILD, runInlineMember } from './shell/inline-member';
import { inlineMemberBlocker } from '../runtime/inline-member';
import type { TurnRecord } from '../activities/session-turns';
import { HISTORY_EVENTS_LIMIT, historyFull } from './shell/continue-as-new';

const acts = proxyActivities<Activities>(STORE_ACTIVITY);

/** Messages over all executions are bounded only by time; one execution's history by this many events. */
/** A writeback approval nobody answers is rejected after this long unless the session's options say otherwise. */
const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 7 * 24 * 3600;

type MemoryRead = Awaited<ReturnType<Activities['memoryRead']>>;
type TurnInput = Awaited<ReturnType<Activities['sessionTurnInput']>>;
type RecordedTurn = Awaited<ReturnType<Activities['sessionRecordTurn']>>;

function addUsage(a: TokenUsage, b: TokenUsage | undefined): TokenUsage {
  if (!b) return a;
  return { prompt_tokens: a.prompt_tokens + b.prompt_tokens, completion_tokens: a.completion_tokens + b.completion_tokens, total_tokens: a.total_tokens + b.total_tokens };
}

function answerText(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output);
}

/** The turn's intermediate notes for the scratchpad: its write-once State and warnings. */
function turnNote(r: AgentRunResult): string {
  const parts: string[] = [];
  if (r.state && Object.keys(r.state).length) parts.push(`state ${JSON.stringify(r.state)}`);
  for (const w of r.warnings ?? []) parts.push(`warning: ${w}`);
  return parts.join('; ');
}

function freshCarry(c: SessionCarry | undefined): SessionCarry {
  return c
    ? { ...c, executions: c.executions + 1 }
    : { head: null, scratchpad: null, messages: 0, executions: 1, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } };
}

export class SessionRun {
  readonly idleSeconds: number;
  private readonly carry: SessionCarry;
  private plan: SessionPlan | undefined;
  private inThisExecution = 0;
  private busy = false;
  private ending: string | undefined;
  private last: Pick<SessionReply, 'kept' | 'dropped' | 'notes_kept' | 'notes_dropped'> | undefined;
  private readonly warnings: string[] = [];
  private readonly actorId: string;
  private readonly sessionId: string;
  // Memory writebacks waiting for a human, and the answers given (call id -> approved?).
  private readonly waiting: Map<string, PendingMemoryWrite>;
  private readonly answers = new Map<string, { approved: boolean; reason?: string; by?: string }>();
  private published = 'running';
  /**
   * Patch `session-turns-inline`: the last answered exchange, recorded by the next message's
   * turn-input activity (one store round trip per message), or before continue-as-new.
   */
  private unrecorded: TurnRecord | undefined;

  constructor(private readonly input: SessionInput) {
    refuseUndecodableInput(input);
    this.carry = freshCarry(input.carried);
    this.idleSeconds = input.idle_timeout_seconds ?? DEFAULT_IDLE_TIMEOUT_SECONDS;
    this.actorId = input.actor_id ?? 'anonymous';
    this.sessionId = workflowInfo().workflowId;
    this.waiting = new Map<string, PendingMemoryWrite>((this.carry.writebacks ?? []).map((w) => [w.call_id, w]));
  }

  private memoryScope() {
    return { bundle: this.input.bundle, agent_id: this.input.agent_id, actor_id: this.actorId, session_id: this.sessionId };
  }

  private publish(): void {
    const s = this.waiting.size ? 'waiting_for_approval' : this.ending ? 'completed' : 'running';
    if (s !== this.published) { this.published = s; upsertSearchAttributes({ [SEARCH_ATTRIBUTES.status]: [s] }); }
  }

  private approvals(): PendingApproval[] {
    return [...this.waiting.values()].map(writebackApproval);
  }

  status(): RunStatus {
    const { input, carry, plan, last, ending, sessionId } = this;
    return {
      state: ending ? 'completed' : this.waiting.size && !this.busy ? 'waiting_for_approval' : 'running',
      agent_id: input.agent_id,
      version: '',
      pattern: 'session',
      step: carry.messages,
      turn: carry.messages,
      pending_approvals: this.approvals(),
      pending_decisions: this.approvals().map((a): PendingDecision => ({ kind: 'approval', workflow_id: sessionId, path: [], agent_id: input.agent_id, call_id: a.call_id, tool: a.tool, arguments: a.arguments, reason: a.reason, requested_at: a.requested_at })),
      tool_calls_made: 0,
      token_usage: carry.usage,
      warnings: this.warnings,
      progress: {
        session_id: workflowInfo().workflowId,
        messages: carry.messages,
        execution: carry.executions,
        ...(plan ? {
          agent_pattern: plan.pattern,
          session_history: plan.session_history,
          working_state: plan.working_state,
          scratchpad_visible_to_model: plan.scratchpad_visible_to_model,
          ...(plan.max_state_tokens !== undefined ? { max_state_tokens: plan.max_state_tokens } : {}),
        } : {}),
        idle_timeout_seconds: this.idleSeconds,
        ...(last ? { last_turn: { ...last } } : {}),
        ...(ending ? { ended: ending } : {}),
      },
    };
  }

  // --- a message turn -------------------------------------------------------------------------

  validateMessage(msg: SessionMessage): void {
    if (this.ending) throw new Error(`session ${workflowInfo().workflowId} has ended (${this.ending}); start a new one with loom chat ${this.input.agent_id}`);
    validatedPayload(SessionMessageSchema, msg, SESSION_MESSAGE_SHAPE, 'sessionMessage');
  }

  /** The `sessionMessage` update: one turn, answered with the reply. */
  async answer(msg: SessionMessage): Promise<SessionReply> {
    // One message at a time (a second message waits for the first one's reply), once the plan is read.
    await condition(() => !this.busy && this.plan !== undefined);
    this.busy = true;
    const { workflow_type } = this.plan!;
    try {
      const n = this.carry.messages + 1;
      const read = this.plan!.memory_reads ? await this.readMemory(msg.text) : undefined;
      // Patch `session-turns-inline`: the previous exchange is recorded by this turn's input activity, and
      // a turn that is one model call runs inside the session (no child run).
      const lean = patched(PATCHES.sessionTurnsInline.id);
      const turn = await this.firstMessage(msg.text, read, lean);
      const role = `message-${n}`;
      let result: AgentRunResult;
      let ranIn: string;
      try {
        ({ result, ranIn } = await this.runTurn(n, role, workflow_type, msg.text, turn, lean));
      } catch (e) {
        // The session goes on; the sender learns why this message got no reply.
        throw ApplicationFailure.nonRetryable(`message ${n} was not answered: ${(e as { cause?: Error }).cause?.message ?? (e as Error).message}`, 'SessionTurnFailed');
      }
      // The turn before a continue-as-new records its exchange at once: the next execution starts from a complete chain.
      const rec = lean && !this.continuesAfterThisTurn() ? this.recordLater(n, msg.text, result) : await this.recordTurn(n, msg.text, result);
      const last = this.turnRecorded(n, result, turn, rec);
      const memory = this.plan!.memory_reads || this.plan!.memory_writes ? await this.writeBack(n, msg.text, answerText(result.output), read?.found ?? {}) : undefined;
      return { output: result.output, message: n, ...last, execution: this.carry.executions, workflow_id: ranIn, ...(memory ? { memory } : {}) };
    } finally {
      this.busy = false;
    }
  }

  /** Memory: the read collections searched for the message (the `# Memory` block of the first message). */
  private readMemory(text: string): Promise<MemoryRead> {
    return acts.memoryRead({ ...this.memoryScope(), query: text });
  }

  /**
   * Trimming: the turn's first message, stored (only its ref enters history): session history and
   * scratchpad trimmed to max_state_tokens, oldest first, then the memory block and the user's text.
   */
  private async firstMessage(text: string, read: MemoryRead | undefined, lean: boolean): Promise<TurnInput> {
    const { input, carry } = this;
    const record = lean ? this.unrecorded : undefined;
    const turn = await acts.sessionTurnInput({
      bundle: input.bundle, agent_id: input.agent_id, head: carry.head, scratchpad: carry.scratchpad, text,
      ...(read?.block ? { memory: read.block } : {}), ...(record ? { record } : {}),
    });
    if (record && turn.recorded) {
      carry.head = turn.recorded.head;
      carry.scratchpad = turn.recorded.scratchpad;
      this.unrecorded = undefined;
    }
    return turn;
  }

  /**
   * The turn itself, from the stored first message: inside the session as model-turn activities
   * when `lean` and the agent's turn is one model call (the inline fan-out members' rule), else the
   * agent's own workflow as a child. Returns the result and the workflow the turn ran in.
   */
  private async runTurn(n: number, role: string, workflowType: string, text: string, turn: TurnInput, lean: boolean): Promise<{ result: AgentRunResult; ranIn: string }> {
    const { input } = this;
    const view = lean ? this.plan!.inline_agent : undefined;
    if (view && inlineMemberBlocker(view, { workflowType, options: input.options }) === undefined) {
      const res = await runInlineMember(input.bundle, view, { agent_id: input.agent_id, input: text, role, input_ref: turn.input_ref });
      if (res !== NEEDS_CHILD) return { result: res, ranIn: this.sessionId };
    }
    const result = await runChildAgent({
      bundle: input.bundle, agent_id: input.agent_id, workflowType, input: text, role,
      options: { ...input.options, input_ref: turn.input_ref }, summary: `session message ${n}`,
    });
    return { result, ranIn: `${this.sessionId}/${role}` };
  }

  /** Patch `session-turns-inline`: the exchange is kept for the next turn-input activity to record; the refs stay as they are. */
  private recordLater(n: number, text: string, result: AgentRunResult): RecordedTurn {
    this.unrecorded = { message: n, text, answer: answerText(result.output), note: turnNote(result) };
    return { head: this.carry.head, scratchpad: this.carry.scratchpad };
  }

  /** The exchange appended to the session history, the turn's notes to the scratchpad. */
  private recordTurn(n: number, text: string, result: AgentRunResult | Pick<TurnRecord, 'answer' | 'note'>): Promise<RecordedTurn> {
    const { input, carry } = this;
    const done = 'answer' in result ? result : { answer: answerText(result.output), note: turnNote(result) };
    return acts.sessionRecordTurn({
      bundle: input.bundle, agent_id: input.agent_id, head: carry.head, scratchpad: carry.scratchpad,
      message: n, text, answer: done.answer, note: done.note,
    });
  }

  /** The carried refs and counters after a recorded turn; returns what trimming kept and dropped. */
  private turnRecorded(n: number, result: AgentRunResult, turn: TurnInput, rec: RecordedTurn): NonNullable<SessionRun['last']> {
    const { carry } = this;
    carry.head = rec.head;
    carry.scratchpad = rec.scratchpad;
    carry.messages = n;
    carry.usage = addUsage(carry.usage, result.usage);
    this.inThisExecution++;
    this.last = { kept: turn.kept, dropped: turn.dropped, notes_kept: turn.notes_kept, notes_dropped: turn.notes_dropped };
    return this.last;
  }

  // --- memory writeback ------------------------------------------------------------------------

  /** Writeback after a turn: collections without approval are written now, the others wait for a human. */
  private async writeBack(n: number, text: string, answer: string, read: Record<string, number>): Promise<NonNullable<SessionReply['memory']>> {
    if (!this.plan!.memory_writes) return { read, written: [], pending: [] };
    const at = new Date(Date.now()).toISOString();
    const wb = await acts.memoryWriteback({ ...this.memoryScope(), message: n, text, answer, at });
    const pending: string[] = [];
    for (const p of wb.pending) {
      const w: PendingMemoryWrite = { call_id: writebackCallId(n, p.collection_id), collection_id: p.collection_id, namespace: p.namespace, entry: p.entry, requested_at: at };
      this.waiting.set(w.call_id, w);
      pending.push(w.call_id);
      void this.decideWriteback(w);
    }
    this.publish();
    return { read, written: wb.written, pending };
  }

  /** Waits (durably) for approve/reject of one writeback; an unanswered one is rejected at the approval timeout. */
  private async decideWriteback(w: PendingMemoryWrite): Promise<void> {
    const timeoutS = this.input.options?.approval_timeout_seconds ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS;
    const elapsed = Date.now() - Date.parse(w.requested_at);
    const answered = await condition(() => this.answers.has(w.call_id), Math.max(1, timeoutS * 1000 - elapsed));
    const a = this.answers.get(w.call_id);
    if (answered && a?.approved) await acts.memoryWrite({ collection_id: w.collection_id, namespace: w.namespace, entry: w.entry });
    else this.warnings.push(writebackNotWritten(w.call_id, w.collection_id, answered ? { rejected: true, by: a?.by, reason: a?.reason } : { timeoutSeconds: timeoutS }));
    this.waiting.delete(w.call_id);
    this.answers.delete(w.call_id);
    this.publish();
  }

  private knownCall(callId: string): void {
    const { waiting, answers } = this;
    if (!waiting.has(callId) || answers.has(callId)) {
      throw new Error(`no memory writeback ${callId} waits in session ${this.sessionId}${waiting.size ? `; waiting: ${[...waiting.keys()].filter((k) => !answers.has(k)).join(', ')}` : ' (nothing waits)'}`);
    }
  }

  validateApprove(raw: unknown): void {
    const a = validatedPayload(ApproveArgsSchema, raw, PAYLOAD_SHAPES.approve, 'approveCall');
    this.knownCall(a.call_id);
    if (a.args || a.tool) throw new Error(WRITEBACK_AS_EXTRACTED);
  }

  approve(a: ApproveArgs): string {
    this.answers.set(a.call_id, { approved: true, by: a.by });
    return `approved memory writeback ${a.call_id}`;
  }

  validateReject(raw: unknown): void {
    this.knownCall(validatedPayload(RejectArgsSchema, raw, PAYLOAD_SHAPES.reject, 'rejectCall').call_id);
  }

  reject(r: RejectArgs): string {
    this.answers.set(r.call_id, { approved: false, reason: r.reason, by: r.by });
    return `rejected memory writeback ${r.call_id}`;
  }

  // --- the session's life: plan, idle timeout, continue-as-new, close ---------------------------

  readPlan(): Promise<SessionPlan> {
    return acts.sessionPlan({ bundle: this.input.bundle, agent_id: this.input.agent_id });
  }

  /** The plan is read: turns may start, and writebacks carried from the previous execution wait again. */
  planned(plan: SessionPlan): void {
    this.plan = plan;
    for (const w of this.waiting.values()) void this.decideWriteback(w); // carried from the previous execution
  }

  /** True when a message arrived, false when the idle timer fired first (re-armed at every call). */
  messageOrIdle(): Promise<boolean> {
    return condition(() => this.busy, this.idleSeconds * 1000);
  }

  idleTimeout(): void {
    this.ending = `no message for ${this.idleSeconds} s (idle timeout)`;
  }

  turnDone(): Promise<void> {
    return condition(() => !this.busy);
  }

  /** timeToContinue as it will read once the current turn is counted. */
  private continuesAfterThisTurn(): boolean {
    return historyFull(HISTORY_EVENTS_LIMIT) ||
      (this.input.continue_as_new_every !== undefined && this.inThisExecution + 1 >= this.input.continue_as_new_every);
  }

  timeToContinue(): boolean {
    return historyFull(HISTORY_EVENTS_LIMIT) ||
      (this.input.continue_as_new_every !== undefined && this.inThisExecution >= this.input.continue_as_new_every);
  }

  /**
   * Before continuing as new: every handler finished, every answered writeback written, the last
   * exchange recorded. Patch `session-turns-inline`: the turn that makes the session continue
   * records its own exchange, so this only records one when the history filled up after that turn
   * decided (a message that arrives meanwhile waits for the record, then runs and is recorded in turn).
   */
  async answeredWritebacksWritten(): Promise<void> {
    for (;;) {
      await condition(() => (allHandlersFinished() || (this.unrecorded !== undefined && !this.busy)) && [...this.waiting.keys()].every((k) => !this.answers.has(k)));
      const r = this.unrecorded;
      if (!r) return;
      this.busy = true;
      try {
        const rec = await this.recordTurn(r.message, r.text, r);
        this.carry.head = rec.head;
        this.carry.scratchpad = rec.scratchpad;
        this.unrecorded = undefined;
      } finally {
        this.busy = false;
      }
    }
  }

  /** The next execution's input: refs, counters and the undecided writebacks. */
  carryOver(): SessionInput {
    return { ...this.input, carried: { ...this.carry, writebacks: [...this.waiting.values()] } };
  }

  /** The session ends (idle): writebacks decided, session-scoped memory deleted, handlers finished. */
  async close(): Promise<AgentRunResult> {
    // Undecided writebacks are answered (or time out) before the session closes.
    await condition(() => this.waiting.size === 0);
    if (this.plan!.session_memory) await acts.memoryEndSession(this.memoryScope());
    this.publish();
    await condition(allHandlersFinished);
    return {
      agent_id: this.input.agent_id,
      output: { session_id: workflowInfo().workflowId, messages: this.carry.messages, ended: this.ending! },
      usage: this.carry.usage,
      warnings: this.warnings,
    };
  }
}
