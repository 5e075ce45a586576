/**
 * A chat session (the Agent Definition Specification's "state"): a long-lived workflow that takes user messages
 * through the `sessionMessage` update and returns each reply. A message whose turn is one model call
 * runs inside the session (the inline fan-out members' runInlineMember, patch `session-turns-inline`);
 * any other runs the agent's own workflow (agf.react or its pattern) as a child, so tools, approvals,
 * guardrails and limits are the agent's usual ones; the session adds what lives between messages:
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
import { continueAsNew, setHandler } from '@temporalio/workflow';
import type { AgentRunResult, ApproveArgs, RejectArgs } from '../shared/contract';
import { approveUpdate, rejectUpdate, statusQuery } from '../shared/definitions';
import { sessionMessageUpdate } from '../shared/session';
import type { SessionInput, SessionMessage } from '../shared/session';
import { SessionRun } from './session-run';

export async function sessionWorkflow(input: SessionInput): Promise<AgentRunResult> {
  const session = new SessionRun(input);
  // Handlers are registered before the first await: a message sent with the start is not refused.
  setHandler(statusQuery, () => session.status());
  setHandler(approveUpdate, (a: ApproveArgs) => session.approve(a), { validator: (a: ApproveArgs) => session.validateApprove(a) });
  setHandler(rejectUpdate, (r: RejectArgs) => session.reject(r), { validator: (r: RejectArgs) => session.validateReject(r) });
  setHandler(sessionMessageUpdate, (msg: SessionMessage) => session.answer(msg), { validator: (msg: SessionMessage) => session.validateMessage(msg) });

  session.planned(await session.readPlan());
  for (;;) {
    // Woken by a message, or the idle timer fires (re-armed after every reply).
    const active = await session.messageOrIdle();
    if (!active) {
      session.idleTimeout();
      break;
    }
    await session.turnDone();
    if (session.timeToContinue()) {
      // An answered writeback is written before the next execution (it carries only undecided ones).
      await session.answeredWritebacksWritten();
      return continueAsNew<typeof sessionWorkflow>(session.carryOver());
    }
  }
  return session.close();
}
