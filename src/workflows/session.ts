/**
 * A chat session (seed 001 "state"; issue 12): a long-lived workflow that takes user messages
 * through the `sessionMessage` update and returns each reply. Every message runs the agent's own
 * workflow (agf.react or its pattern) as a child, so tools, approvals, guardrails and limits are
 * the agent's usual ones; the session adds what lives between messages:
 *
 *   session_history   the exchanges, in the store's message chain (only the head ref is here)
 *   working_state     the scratchpad of each turn's notes (run State, warnings), stored by ref
 *   max_state_tokens  both trimmed, oldest first, when the next turn's first message is built
 *
 *   memory            read collections searched for each message (a `# Memory` block first),
 *                     write collections written back after each turn; a writeback whose
 *                     collection says `approval_required` waits durably for approve/reject
 *                     (in `loom inbox`, AgentStatus waiting_for_approval) while the chat goes on
 *
 * Messages are answered one at a time, in the order they arrive. The session continues-as-new
 * when Temporal suggests it (or every `continue_as_new_every` messages), carrying refs, counters
 * and undecided writebacks, and ends after `idle_timeout_seconds` without a message (a durable
 * timer) once no writeback waits; then session-scoped memory is deleted.
 */
import { allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler, upsertSearchAttributes, workflowInfo, ApplicationFailure } from '@temporalio/workflow';
import type { AgentRunResult, ApproveArgs, PendingApproval, PendingDecision, RejectArgs, RunStatus, TokenUsage } from '../shared/contract';
import { SEARCH_ATTRIBUTES } from '../shared/contract';
import { approveUpdate, rejectUpdate, statusQuery } from '../shared/handlers';
import { DEFAULT_IDLE_TIMEOUT_SECONDS, sessionMessageUpdate } from '../shared/session';
import type { PendingMemoryWrite, SessionCarry, SessionInput, SessionMessage, SessionReply } from '../shared/session';
import type { Activities } from '../activities';
import type { SessionPlan } from '../activities/session-turns';
import { writebackApproval, writebackCallId, writebackNotWritten, WRITEBACK_AS_EXTRACTED } from '../runtime/memory';
import { runChildAgent } from './child';

const acts = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } });

/** Messages over all executions are bounded only by time; one execution's history by this many events. */
const HISTORY_EVENTS_LIMIT = 4000;
/** A writeback approval nobody answers is rejected after this long unless the session's options say otherwise. */
const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 7 * 24 * 3600;

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

export async function sessionWorkflow(input: SessionInput): Promise<AgentRunResult> {
  const carry = freshCarry(input.carried);
  const idleSeconds = input.idle_timeout_seconds ?? DEFAULT_IDLE_TIMEOUT_SECONDS;
  // Handlers are registered before the first await: a message sent with the start is not refused.
  let plan: SessionPlan | undefined;
  let inThisExecution = 0;
  let busy = false;
  let ending: string | undefined;
  let last: Pick<SessionReply, 'kept' | 'dropped' | 'notes_kept' | 'notes_dropped'> | undefined;
  const warnings: string[] = [];
  const actorId = input.actor_id ?? 'anonymous';
  const sessionId = workflowInfo().workflowId;
  const scope = () => ({ bundle: input.bundle, agent_id: input.agent_id, actor_id: actorId, session_id: sessionId });
  // Memory writebacks waiting for a human, and the answers given (call id -> approved?).
  const waiting = new Map<string, PendingMemoryWrite>((carry.writebacks ?? []).map((w) => [w.call_id, w]));
  const answers = new Map<string, { approved: boolean; reason?: string; by?: string }>();
  let published = 'running';
  const publish = () => {
    const s = waiting.size ? 'waiting_for_approval' : ending ? 'completed' : 'running';
    if (s !== published) { published = s; upsertSearchAttributes({ [SEARCH_ATTRIBUTES.status]: [s] }); }
  };
  const approvals = (): PendingApproval[] => [...waiting.values()].map(writebackApproval);

  const status = (): RunStatus => ({
    state: ending ? 'completed' : waiting.size && !busy ? 'waiting_for_approval' : 'running',
    agent_id: input.agent_id,
    version: '',
    pattern: 'session',
    step: carry.messages,
    turn: carry.messages,
    pending_approvals: approvals(),
    pending_decisions: approvals().map((a): PendingDecision => ({ kind: 'approval', workflow_id: sessionId, path: [], agent_id: input.agent_id, call_id: a.call_id, tool: a.tool, arguments: a.arguments, reason: a.reason, requested_at: a.requested_at })),
    tool_calls_made: 0,
    token_usage: carry.usage,
    warnings,
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
      idle_timeout_seconds: idleSeconds,
      ...(last ? { last_turn: { ...last } } : {}),
      ...(ending ? { ended: ending } : {}),
    },
  });
  setHandler(statusQuery, status);

  async function answer(msg: SessionMessage): Promise<SessionReply> {
    // One message at a time (a second message waits for the first one's reply), once the plan is read.
    await condition(() => !busy && plan !== undefined);
    busy = true;
    const { workflow_type } = plan!;
    try {
      const n = carry.messages + 1;
      const read = plan!.memory_reads ? await acts.memoryRead({ ...scope(), query: msg.text }) : undefined;
      const turn = await acts.sessionTurnInput({ bundle: input.bundle, agent_id: input.agent_id, head: carry.head, scratchpad: carry.scratchpad, text: msg.text, ...(read?.block ? { memory: read.block } : {}) });
      const role = `message-${n}`;
      let result: AgentRunResult;
      try {
        result = await runChildAgent({
          bundle: input.bundle, agent_id: input.agent_id, workflowType: workflow_type, input: msg.text, role,
          options: { ...input.options, input_ref: turn.input_ref }, summary: `session message ${n}`,
        });
      } catch (e) {
        // The session goes on; the sender learns why this message got no reply.
        throw ApplicationFailure.nonRetryable(`message ${n} was not answered: ${(e as { cause?: Error }).cause?.message ?? (e as Error).message}`, 'SessionTurnFailed');
      }
      const rec = await acts.sessionRecordTurn({
        bundle: input.bundle, agent_id: input.agent_id, head: carry.head, scratchpad: carry.scratchpad,
        message: n, text: msg.text, answer: answerText(result.output), note: turnNote(result),
      });
      carry.head = rec.head;
      carry.scratchpad = rec.scratchpad;
      carry.messages = n;
      carry.usage = addUsage(carry.usage, result.usage);
      inThisExecution++;
      last = { kept: turn.kept, dropped: turn.dropped, notes_kept: turn.notes_kept, notes_dropped: turn.notes_dropped };
      const memory = plan!.memory_reads || plan!.memory_writes ? await writeBack(n, msg.text, answerText(result.output), read?.found ?? {}) : undefined;
      return { output: result.output, message: n, ...last, execution: carry.executions, workflow_id: `${sessionId}/${role}`, ...(memory ? { memory } : {}) };
    } finally {
      busy = false;
    }
  }

  /** Writeback after a turn: collections without approval are written now, the others wait for a human. */
  async function writeBack(n: number, text: string, answer: string, read: Record<string, number>): Promise<NonNullable<SessionReply['memory']>> {
    if (!plan!.memory_writes) return { read, written: [], pending: [] };
    const at = new Date(Date.now()).toISOString();
    const wb = await acts.memoryWriteback({ ...scope(), message: n, text, answer, at });
    const pending: string[] = [];
    for (const p of wb.pending) {
      const w: PendingMemoryWrite = { call_id: writebackCallId(n, p.collection_id), collection_id: p.collection_id, namespace: p.namespace, entry: p.entry, requested_at: at };
      waiting.set(w.call_id, w);
      pending.push(w.call_id);
      void decideWriteback(w);
    }
    publish();
    return { read, written: wb.written, pending };
  }

  /** Waits (durably) for approve/reject of one writeback; an unanswered one is rejected at the approval timeout. */
  async function decideWriteback(w: PendingMemoryWrite): Promise<void> {
    const timeoutS = input.options?.approval_timeout_seconds ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS;
    const elapsed = Date.now() - Date.parse(w.requested_at);
    const answered = await condition(() => answers.has(w.call_id), Math.max(1, timeoutS * 1000 - elapsed));
    const a = answers.get(w.call_id);
    if (answered && a?.approved) await acts.memoryWrite({ collection_id: w.collection_id, namespace: w.namespace, entry: w.entry });
    else warnings.push(writebackNotWritten(w.call_id, w.collection_id, answered ? { rejected: true, by: a?.by, reason: a?.reason } : { timeoutSeconds: timeoutS }));
    waiting.delete(w.call_id);
    answers.delete(w.call_id);
    publish();
  }

  const knownCall = (callId: string) => {
    if (!waiting.has(callId) || answers.has(callId)) {
      throw new Error(`no memory writeback ${callId} waits in session ${sessionId}${waiting.size ? `; waiting: ${[...waiting.keys()].filter((k) => !answers.has(k)).join(', ')}` : ' (nothing waits)'}`);
    }
  };
  setHandler(approveUpdate, (a: ApproveArgs) => {
    answers.set(a.call_id, { approved: true, by: a.by });
    return `approved memory writeback ${a.call_id}`;
  }, {
    validator: (a: ApproveArgs) => {
      knownCall(a?.call_id);
      if (a.args || a.tool) throw new Error(WRITEBACK_AS_EXTRACTED);
    },
  });
  setHandler(rejectUpdate, (r: RejectArgs) => {
    answers.set(r.call_id, { approved: false, reason: r.reason, by: r.by });
    return `rejected memory writeback ${r.call_id}`;
  }, { validator: (r: RejectArgs) => knownCall(r?.call_id) });

  setHandler(sessionMessageUpdate, answer, {
    validator: (msg: SessionMessage) => {
      if (ending) throw new Error(`session ${workflowInfo().workflowId} has ended (${ending}); start a new one with loom chat ${input.agent_id}`);
      if (typeof msg?.text !== 'string' || !msg.text.trim()) throw new Error('a session message needs non-empty text, e.g. { "text": "hello" }');
    },
  });

  plan = await acts.sessionPlan({ bundle: input.bundle, agent_id: input.agent_id });
  for (const w of waiting.values()) void decideWriteback(w); // carried from the previous execution

  const timeToContinue = (): boolean =>
    workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > HISTORY_EVENTS_LIMIT ||
    (input.continue_as_new_every !== undefined && inThisExecution >= input.continue_as_new_every);

  for (;;) {
    // Woken by a message, or the idle timer fires (re-armed after every reply).
    const active = await condition(() => busy, idleSeconds * 1000);
    if (!active) {
      ending = `no message for ${idleSeconds} s (idle timeout)`;
      break;
    }
    await condition(() => !busy);
    if (timeToContinue()) {
      // An answered writeback is written before the next execution (it carries only undecided ones).
      await condition(() => allHandlersFinished() && [...waiting.keys()].every((k) => !answers.has(k)));
      return continueAsNew<typeof sessionWorkflow>({ ...input, carried: { ...carry, writebacks: [...waiting.values()] } });
    }
  }
  // Undecided writebacks are answered (or time out) before the session closes.
  await condition(() => waiting.size === 0);
  if (plan.session_memory) await acts.memoryEndSession(scope());
  publish();
  await condition(allHandlersFinished);
  return {
    agent_id: input.agent_id,
    output: { session_id: workflowInfo().workflowId, messages: carry.messages, ended: ending },
    usage: carry.usage,
    warnings,
  };
}
