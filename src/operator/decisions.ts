/**
 * Answering a decision from the root of a run tree: `loom approve ROOT REF` / `loom reject
 * ROOT REF` / `loom respond ROOT REF` read the root's tree-wide `pending_decisions` (status query) and send the update to the
 * member run that holds the call. REF is a call id pending in exactly one run of the tree, or
 * `PATH:CALL_ID` with PATH the member's role chain as `loom status` prints it. Roots started
 * before patch `tree-pending-decisions` list no tree: the update goes to the root as before.
 */
import type { LoomSession } from './connect';
import type { PendingDecision, RunStatus } from '../shared/contract';
import { decisionRef, resolveCall, resolveEscalation } from '../runtime/decisions';

export class RefusedError extends Error {}

/** The run and call id `ref` designates in the tree of `rootId` (a RefusedError names the candidates otherwise). */
export async function callTarget(s: Pick<LoomSession, 'client'>, rootId: string, ref: string): Promise<{ workflowId: string; callId: string; decision?: PendingDecision }> {
  const { statusQuery } = await import('../shared/definitions');
  const status: RunStatus = await s.client.workflow.getHandle(rootId).query(statusQuery);
  if (!status.pending_decisions) return { workflowId: rootId, callId: ref };
  const r = resolveCall(status.pending_decisions, ref);
  if (r.ok) return { workflowId: r.decision.workflow_id, callId: r.decision.call_id!, decision: r.decision };
  const refs = r.candidates.map(decisionRef);
  if (r.reason === 'ambiguous') {
    throw new RefusedError(`call id '${ref}' is pending in ${refs.length} runs of ${rootId}; name one as PATH:CALL_ID: ${refs.join(', ')}`);
  }
  throw new RefusedError(
    refs.length ? `no pending approval '${ref}' in the tree of ${rootId}; pending: ${refs.join(', ')}` : `no pending approval '${ref}' in the tree of ${rootId}; nothing is waiting for approval`,
  );
}

/**
 * The run and queue of the human-queue escalation `ref` designates in the tree of `rootId`: a queue
 * waited on in exactly one run of the tree, `PATH:QUEUE`, or the member's PATH alone. A root from
 * before the patch lists no tree: the root itself, with `ref` as the queue.
 */
export async function escalationTarget(s: Pick<LoomSession, 'client'>, rootId: string, ref: string): Promise<{ workflowId: string; queue: string }> {
  const { statusQuery } = await import('../shared/definitions');
  const status: RunStatus = await s.client.workflow.getHandle(rootId).query(statusQuery);
  if (!status.pending_decisions) return { workflowId: rootId, queue: ref };
  const r = resolveEscalation(status.pending_decisions, ref);
  if (r.ok) return { workflowId: r.decision.workflow_id, queue: r.decision.queue! };
  const refs = r.candidates.map(decisionRef);
  if (r.reason === 'ambiguous') throw new RefusedError(`'${ref}' names ${refs.length} escalations waiting in ${rootId}; name one as PATH:QUEUE: ${refs.join(', ')}`);
  throw new RefusedError(
    refs.length ? `no escalation waiting on '${ref}' in the tree of ${rootId}; waiting: ${refs.join(', ')}` : `no escalation waiting on '${ref}' in the tree of ${rootId}; nothing waits on a human queue there`,
  );
}

/** ` (in ROOT/step-2-charge)` when the call is held by a member, '' at the root. */
export function heldBy(t: { workflowId: string }, rootId: string): string {
  return t.workflowId === rootId ? '' : ` (in ${t.workflowId})`;
}
