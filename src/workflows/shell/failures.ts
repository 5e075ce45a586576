/**
 * What went wrong, from a failure chain (activity/child-workflow failures wrap the real cause):
 * the one place workflow code turns a caught failure into text for warnings, tool results and
 * its own failure messages.
 */
import { ActivityFailure, ChildWorkflowFailure, TimeoutFailure, rootCause } from '@temporalio/workflow';

/** A member (child workflow) that ran out of its execution/run timeout. */
export function isTimeout(err: unknown): boolean {
  return err instanceof ChildWorkflowFailure && err.cause instanceof TimeoutFailure;
}

/**
 * The messages of the chain, outermost first, without the wrappers' generic text ("Activity task
 * failed", "Child Workflow execution failed"): e.g. "step 2 (writer) failed: 401 from http://…".
 * A member that timed out reads "timed out".
 */
export function failureMessage(err: unknown): string {
  if (isTimeout(err)) return 'timed out';
  const parts: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 8; depth++) {
    const e = cur as { message?: string; cause?: unknown };
    const m = (e.message ?? '').trim();
    const wrapper = cur instanceof ActivityFailure || cur instanceof ChildWorkflowFailure;
    if (m && !wrapper && !parts.some((p) => p.includes(m))) parts.push(m);
    cur = e.cause;
  }
  return parts.length ? parts.join(': ') : (rootCause(err) ?? String(err));
}
