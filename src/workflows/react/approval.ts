/**
 * Human approval of tool calls and delegations (seed 003 "Human-in-the-Loop"): the approve/reject
 * updates and signals, and the wait just before a call runs — approve (optionally with corrected
 * arguments, which pass checkToolArgs and the tool_input guardrails), reject (the model sees the
 * reason), or the approval timeout: reject, or escalate to a human queue and keep waiting.
 */
import { ApplicationFailure, condition, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { JsonObject } from '../../compiler/types';
import type { RunAgentInput } from '../../shared/contract';
import { approveSignal, approveUpdate, rejectSignal, rejectUpdate } from '../../shared/handlers';
import type { Activities } from '../../activities';
import type { ApprovalBook } from '../../runtime/approvals';
import type { AppendItem, ToolCall } from '../../runtime/messages';
import type { RunShell } from '../shell/run-shell';
import type { ReactRun } from './context';
import { errorResult } from './tool-result';
import { guardToolInput } from './guardrails';

/** Register the approve/reject handlers (first thing in the workflow, before any await). */
export function registerApprovalHandlers(input: RunAgentInput, shell: RunShell, book: ApprovalBook): void {
  const acts = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } });
  setHandler(approveSignal, (a) => {
    if (book.decide(a.call_id, { kind: 'approve', args: a.args, by: a.by })) return;
    shell.warn(`approve signal ignored: ${book.unknownMessage(a.call_id)}`);
  });
  setHandler(rejectSignal, (a) => {
    if (book.decide(a.call_id, { kind: 'reject', reason: a.reason, by: a.by })) return;
    shell.warn(`reject signal ignored: ${book.unknownMessage(a.call_id)}`);
  });
  const validateKnown = (callId: string): void => {
    if (!book.has(callId) || book.decision(callId)) throw new Error(book.unknownMessage(callId));
  };
  setHandler(
    approveUpdate,
    async (a) => {
      if (a.args) {
        const pending = book.pending.find((p) => p.call_id === a.call_id);
        const chk = await acts.checkToolArgs({ bundle: input.bundle, agent_id: input.agent_id, tool: pending?.tool ?? '', args: a.args });
        if (!chk.ok) throw ApplicationFailure.nonRetryable(`corrected arguments refused for ${a.call_id}: ${chk.error}`, 'InvalidArguments');
      }
      if (!book.decide(a.call_id, { kind: 'approve', args: a.args, by: a.by })) throw ApplicationFailure.nonRetryable(book.unknownMessage(a.call_id), 'UnknownCall');
      return `approved ${a.call_id}${a.args ? ' with corrected arguments' : ''}`;
    },
    { validator: (a) => validateKnown(a.call_id) },
  );
  setHandler(
    rejectUpdate,
    (a) => {
      if (!book.decide(a.call_id, { kind: 'reject', reason: a.reason, by: a.by })) throw ApplicationFailure.nonRetryable(book.unknownMessage(a.call_id), 'UnknownCall');
      return `rejected ${a.call_id}`;
    },
    {
      validator: (a) => {
        validateKnown(a.call_id);
        if (!a.reason || !a.reason.trim()) throw new Error('reject needs a reason (the model sees it as the tool result)');
      },
    },
  );
}

type Approved = { args: JsonObject } | { error: AppendItem };

/**
 * Human approval of one call that is ready to run: present it, wait for approve/reject (or the
 * approval timeout: reject, or escalate to a human queue), and return the arguments to run with
 * (an approver's corrections pass the tool_input guardrails too).
 */
export async function awaitApproval(rx: ReactRun, call: ToolCall, initialArgs: JsonObject, reason: string): Promise<Approved> {
  const { book, shell, approvalTimeoutS } = rx;
  // Only calls that are ready to run (valid arguments) are presented for approval; a delegation
  // has no registry schema to check.
  if (rx.toolsById.has(call.name)) {
    const chk = await rx.checkArgs(call, initialArgs);
    if (!chk.ok) return { error: errorResult(call, chk.error ?? 'invalid arguments') };
  }
  await shell.checkpoint();
  book.add({ call_id: call.id, tool: call.name, arguments: initialArgs, reason, requested_at: new Date().toISOString() });
  shell.sync();
  shell.details(`waiting for approval of ${call.name} (${call.id})`);
  const decided = await condition(() => book.decision(call.id) !== undefined, approvalTimeoutS * 1000);
  const escalate = !decided && rx.input.options?.on_approval_timeout === 'escalate' && patched('approval-timeout-escalate');
  let d = book.decision(call.id);
  if (escalate) {
    escalateApproval(rx, call);
    await condition(() => book.decision(call.id) !== undefined);
    d = book.decision(call.id)!;
    book.remove(call.id);
    shell.leaveHumanQueue();
  } else {
    book.remove(call.id);
    shell.sync();
    if (!decided || !d) {
      shell.warn(`approval of ${call.name} (${call.id}) timed out after ${approvalTimeoutS}s: rejected`);
      return { error: errorResult(call, `call rejected: approval timed out after ${approvalTimeoutS} seconds`) };
    }
  }
  if (d.kind === 'reject') return { error: errorResult(call, `call rejected by ${d.by ?? 'a human reviewer'}: ${d.reason}`) };
  if (!d.args) return { args: initialArgs };
  // An approver's corrected arguments pass the tool_input guardrails too (patched: older runs did not re-check).
  if (rx.guarded('tool_input') && patched('guard-corrected-args')) {
    const g = await guardToolInput(rx, call, d.args);
    if ('error' in g) return g;
    return { args: g.args };
  }
  return { args: d.args };
}

/**
 * The approval timed out with on_approval_timeout 'escalate': the call stays pending, and the run
 * shows up in `loom escalations` under the queue of the agent's first `on: timeout` human_queue
 * rule (else `approvals`) until an operator approves or rejects it.
 */
function escalateApproval(rx: ReactRun, call: ToolCall): void {
  const rule = rx.agent.orchestration.escalation.find((r) => r.on === 'timeout' && r.target.type === 'human_queue');
  const queue = rule?.target.id ?? 'approvals';
  rx.shell.warn(`approval of ${call.name} (${call.id}) timed out after ${rx.approvalTimeoutS}s: escalated to human queue '${queue}'`);
  rx.shell.enterHumanQueue(queue);
  rx.shell.details(`approval of ${call.name} (${call.id}) escalated to '${queue}'`);
}
