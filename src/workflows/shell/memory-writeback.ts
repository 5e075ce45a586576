/**
 * A memory writeback waiting for a human (a collection with `writeback.approval_required: true`),
 * shared by the single agf.react run (react/memory.ts) and the orchestrator run
 * (orchestrator-memory.ts): the request joins the run's approval book (status, `loom inbox`,
 * approve/reject as for a tool call), the run waits durably up to its approval timeout, an approved
 * entry is written, and a writeback not written is a warning (returned, and warned on the run).
 */
import type { ApprovalBook } from '../../runtime/approvals';
import { approvalTimerSummary, approvalWait } from './approval-wait';
import { writebackApproval, writebackNotWritten, WritebackRequest } from '../../runtime/memory';

/** How the decision ended, for the caller's audit trail. */
export type WritebackOutcome = { decision: 'approved'; by?: string } | { decision: 'rejected'; reason: string; by?: string } | { decision: 'timed_out'; reason: string };

export interface WritebackHost {
  book: ApprovalBook;
  shell: { sync(): void; details(what: string): void; warn(message: string): void };
  approvalTimeoutS: number;
  /** Write the approved entry (the caller's memoryWrite activity). */
  write(w: WritebackRequest): Promise<void>;
  /** Told as the wait starts (true) and ends (false), e.g. to publish AgentStatus. */
  waiting?(on: boolean): void;
  /** Told how it ended (after the write, when approved). */
  decided?(w: WritebackRequest, outcome: WritebackOutcome): void;
}

/** Wait for approve/reject of one writeback; the warning when it was not written. */
export async function awaitWritebackDecision(host: WritebackHost, w: WritebackRequest): Promise<string | undefined> {
  const { book, shell, approvalTimeoutS } = host;
  book.add(writebackApproval(w));
  shell.sync();
  host.waiting?.(true);
  shell.details(`waiting for approval of memory writeback ${w.call_id}`);
  const decided = await approvalWait(() => book.decision(w.call_id) !== undefined, approvalTimeoutS, approvalTimerSummary(`memory writeback to ${w.collection_id}`, w.call_id));
  const d = book.decision(w.call_id);
  book.remove(w.call_id);
  shell.sync();
  if (!book.pending.length) host.waiting?.(false);
  if (decided && d?.kind === 'approve') {
    await host.write(w);
    host.decided?.(w, { decision: 'approved', ...(d.by !== undefined ? { by: d.by } : {}) });
    shell.details(`memory written: ${w.collection_id} (approved)`);
    return undefined;
  }
  const rejected = decided && d?.kind === 'reject';
  const warning = writebackNotWritten(w.call_id, w.collection_id, rejected ? { rejected: true, by: d.by, reason: d.reason } : { timeoutSeconds: approvalTimeoutS });
  shell.warn(warning);
  host.decided?.(w, rejected ? { decision: 'rejected', reason: d.reason, ...(d.by !== undefined ? { by: d.by } : {}) } : { decision: 'timed_out', reason: `no decision within ${approvalTimeoutS}s` });
  return warning;
}
