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
 *
 * The timer carries a summary the Temporal Web UI shows on its Timer Started event and in the
 * timeline ("run deadline (runtime.timeout_seconds, 600 s left)") instead of an unlabelled timer;
 * patched, since the timers of runs recorded before had none.
 */
import { ApplicationFailure, CancellationScope, condition, isCancellation, patched, sleep } from '@temporalio/workflow';
import { PATCHES } from '../patches';

export type DeadlineOutcome<T> = { timedOut: false; value: T } | { timedOut: true };

/** Seconds from now to `deadlineMs`, rounded up (workflow time). */
function secondsLeft(deadlineMs: number): number {
  return Math.max(0, Math.ceil((deadlineMs - Date.now()) / 1000));
}

/**
 * The summary of a deadline timer: which limit it enforces and how long it has to run. A react run
 * is bounded by runtime.timeout_seconds; an orchestrator by its run timeout (runtime.timeout_seconds,
 * or a swarm's execution_timeout) around the member it waits on.
 */
export function deadlineTimerSummary(shape: 'loop' | 'member', secondsLeftNow: number): string {
  return shape === 'loop' ? `run deadline (runtime.timeout_seconds, ${secondsLeftNow} s left)` : `run deadline while a member runs (${secondsLeftNow} s left)`;
}

/** The TimerOptions of a deadline timer, or undefined on the old branch of patch wait-timer-summary. */
function timerOptions(shape: 'loop' | 'member', deadlineMs: number, summary: string | undefined): { summary: string } | undefined {
  if (!patched(PATCHES.waitTimerSummary.id)) return undefined;
  return { summary: summary ?? deadlineTimerSummary(shape, secondsLeft(deadlineMs)) };
}

/** `summary` names the timer in the Web UI; without it, one built from the shape and time left. */
export async function withDeadline<T>(deadlineMs: number | undefined, fn: () => Promise<T>, shape: 'loop' | 'member', summary?: string): Promise<DeadlineOutcome<T>> {
  if (deadlineMs === undefined) return { timedOut: false, value: await fn() };
  return shape === 'loop' ? loopDeadline(deadlineMs, fn, summary) : memberDeadline(deadlineMs, fn, summary);
}

/** `withDeadline` for a deadline that fails the run: a nonRetryable 'Timeout' failure with `message`. */
export async function failAfterDeadline<T>(deadlineMs: number | undefined, fn: () => Promise<T>, message: () => string, summary?: string): Promise<T> {
  const r = await withDeadline(deadlineMs, fn, 'loop', summary);
  if (r.timedOut) throw ApplicationFailure.nonRetryable(message(), 'Timeout');
  return r.value;
}

async function loopDeadline<T>(deadlineMs: number, fn: () => Promise<T>, summary: string | undefined): Promise<DeadlineOutcome<T>> {
  let timedOut = false;
  const scope = new CancellationScope();
  const timer = timerOptions('loop', deadlineMs, summary);
  (timer ? sleep(Math.max(1, deadlineMs - Date.now()), timer) : sleep(Math.max(1, deadlineMs - Date.now())))
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

async function memberDeadline<T>(deadlineMs: number, fn: () => Promise<T>, summary: string | undefined): Promise<DeadlineOutcome<T>> {
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
  let inTime = settled;
  if (remaining > 0) {
    const timer = timerOptions('member', deadlineMs, summary);
    inTime = timer ? await condition(() => settled, remaining, timer) : await condition(() => settled, remaining);
  }
  if (!inTime) {
    scope.cancel();
    await p;
    return { timedOut: true };
  }
  if (failed) throw error;
  return { timedOut: false, value: value as T };
}
