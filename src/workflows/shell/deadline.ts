/**
 * A durable deadline around part of a run: `fn` runs in a cancellable scope racing a timer to
 * `deadlineMs` (epoch ms, workflow time); when the timer wins the scope is cancelled and the
 * caller learns it timed out. Used by the react loop (runtime.timeout_seconds) and by orchestrators
 * around members (execution_timeout).
 *
 * The two shapes are the timer commands each caller's running workflows recorded, so replay
 * depends on them (they must not be merged without a patch):
 *  - 'loop'   the timer starts before `fn` even for a deadline already past (1 ms), is left
 *             scheduled when `fn` wins, and `fn`'s own outcome wins unless it is the cancellation;
 *  - 'member' no timer for a deadline already past (times out at once), the timer is cancelled
 *             when `fn` wins (a `condition` with a timeout), and a fired timer always means timed out.
 */
import { ApplicationFailure, CancellationScope, condition, isCancellation, sleep } from '@temporalio/workflow';

export type DeadlineOutcome<T> = { timedOut: false; value: T } | { timedOut: true };

export async function withDeadline<T>(deadlineMs: number | undefined, fn: () => Promise<T>, shape: 'loop' | 'member'): Promise<DeadlineOutcome<T>> {
  if (deadlineMs === undefined) return { timedOut: false, value: await fn() };
  return shape === 'loop' ? loopDeadline(deadlineMs, fn) : memberDeadline(deadlineMs, fn);
}

/** `withDeadline` for a deadline that fails the run: a nonRetryable 'Timeout' failure with `message`. */
export async function failAfterDeadline<T>(deadlineMs: number | undefined, fn: () => Promise<T>, message: () => string): Promise<T> {
  const r = await withDeadline(deadlineMs, fn, 'loop');
  if (r.timedOut) throw ApplicationFailure.nonRetryable(message(), 'Timeout');
  return r.value;
}

async function loopDeadline<T>(deadlineMs: number, fn: () => Promise<T>): Promise<DeadlineOutcome<T>> {
  let timedOut = false;
  const scope = new CancellationScope();
  sleep(Math.max(1, deadlineMs - Date.now()))
    .then(() => {
      timedOut = true;
      scope.cancel();
    })
    .catch(() => undefined);
  try {
    return { timedOut: false, value: await scope.run(fn) };
  } catch (e) {
    if (timedOut && isCancellation(e)) return { timedOut: true };
    throw e;
  }
}

async function memberDeadline<T>(deadlineMs: number, fn: () => Promise<T>): Promise<DeadlineOutcome<T>> {
  const scope = new CancellationScope();
  let settled = false;
  let value: T | undefined;
  let error: unknown;
  let failed = false;
  const p = scope.run(fn).then(
    (v) => { value = v; settled = true; },
    (e) => { error = e; failed = true; settled = true; },
  );
  const remaining = deadlineMs - Date.now();
  const inTime = remaining > 0 ? await condition(() => settled, remaining) : settled;
  if (!inTime) {
    scope.cancel();
    await p;
    return { timedOut: true };
  }
  if (failed) throw error;
  return { timedOut: false, value: value as T };
}
