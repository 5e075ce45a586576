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
 * Messages are answered one at a time, in the order they arrive. The session continues-as-new
 * when Temporal suggests it (or every `continue_as_new_every` messages), carrying refs and
 * counters, and ends after `idle_timeout_seconds` without a message (a durable timer).
 */
import { allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler, workflowInfo, ApplicationFailure } from '@temporalio/workflow';
import type { AgentRunResult, RunStatus, TokenUsage } from '../shared/contract';
import { statusQuery } from '../shared/handlers';
import { DEFAULT_IDLE_TIMEOUT_SECONDS, sessionMessageUpdate } from '../shared/session';
import type { SessionCarry, SessionInput, SessionMessage, SessionReply } from '../shared/session';
import type { Activities } from '../activities';
import type { SessionPlan } from '../activities/session-turns';
import { runChildAgent } from './child';

const acts = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } });

/** Messages over all executions are bounded only by time; one execution's history by this many events. */
const HISTORY_EVENTS_LIMIT = 4000;

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

  const status = (): RunStatus => ({
    state: ending ? 'completed' : 'running',
    agent_id: input.agent_id,
    version: '',
    pattern: 'session',
    step: carry.messages,
    turn: carry.messages,
    pending_approvals: [],
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
      const turn = await acts.sessionTurnInput({ bundle: input.bundle, agent_id: input.agent_id, head: carry.head, scratchpad: carry.scratchpad, text: msg.text });
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
      return { output: result.output, message: n, ...last, execution: carry.executions, workflow_id: `${workflowInfo().workflowId}/${role}` };
    } finally {
      busy = false;
    }
  }

  setHandler(sessionMessageUpdate, answer, {
    validator: (msg: SessionMessage) => {
      if (ending) throw new Error(`session ${workflowInfo().workflowId} has ended (${ending}); start a new one with loom chat ${input.agent_id}`);
      if (typeof msg?.text !== 'string' || !msg.text.trim()) throw new Error('a session message needs non-empty text, e.g. { "text": "hello" }');
    },
  });

  plan = await acts.sessionPlan({ bundle: input.bundle, agent_id: input.agent_id });

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
      await condition(allHandlersFinished);
      return continueAsNew<typeof sessionWorkflow>({ ...input, carried: carry });
    }
  }
  await condition(allHandlersFinished);
  return {
    agent_id: input.agent_id,
    output: { session_id: workflowInfo().workflowId, messages: carry.messages, ended: ending },
    usage: carry.usage,
    warnings,
  };
}
