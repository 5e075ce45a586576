/**
 * Bounded waits on an observable state: they poll, and fail naming what they waited for.
 *
 * A test never sleeps a fixed time to let something happen: it waits for the state that shows it
 * happened. The two exceptions are named below (`quietWindow`, `letTimePass`): a window in which
 * something must NOT happen, and a duration that is itself the thing under test. Nothing else in
 * test/ calls setTimeout to wait.
 */

/** What a wait names when it gives up: a fixed text, or one built from what was last seen. */
export type What = string | (() => string);

const named = (what: What): string => (typeof what === 'function' ? what() : what);

/** The poll interval: the only fixed pause a condition wait makes, between two looks at the state. */
const nextLook = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Poll until `fn` returns a value (not undefined), or fail with `what` after `ms`. A throw from `fn` fails the wait at once. */
export async function until<T>(fn: () => T | undefined | Promise<T | undefined>, what: What, ms = 30000, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${named(what)}`);
    await nextLook(everyMs);
  }
}

/**
 * Like `until`, but a throw from `fn` means "not yet" (a query before the run's first workflow task,
 * a run not yet in visibility, a port not yet listening); the last error is named if the wait gives up.
 */
export async function untilOk<T>(fn: () => T | undefined | Promise<T | undefined>, what: What, ms = 30000, everyMs = 100): Promise<T> {
  let lastErr: unknown;
  return until(async () => {
    try {
      return await fn();
    } catch (e) {
      lastErr = e;
      return undefined;
    }
  }, () => `${named(what)}${lastErr === undefined ? '' : ` (last error: ${String(lastErr)})`}`, ms, everyMs);
}

/** Poll until `pred` holds; `true` then, `false` if it never did within `ms` (for a caller that asserts on what it saw instead). */
export async function eventually(pred: () => boolean | Promise<boolean>, ms = 30000, everyMs = 100): Promise<boolean> {
  try {
    await untilOk(async () => ((await pred()) ? true : undefined), 'a condition', ms, everyMs);
    return true;
  } catch {
    return false;
  }
}

/**
 * A fixed window in which something must NOT happen (a span after a replay, a record from a run that
 * is not sampled). No state can show that nothing more will come, so this waits the window out; `why`
 * names what the window is for, so a reader can tell it from a forgotten sleep.
 */
export async function quietWindow(ms: number, why: string): Promise<void> {
  void why;
  await nextLook(ms);
}

/**
 * Let a duration pass that is itself what the test controls (an outage's length, how long an approval
 * is held, an expiry window to run out). `why` names that duration.
 */
export async function letTimePass(ms: number, why: string): Promise<void> {
  void why;
  if (ms > 0) await nextLook(ms);
}

/** Let other tasks and I/O callbacks run once (crosses a macrotask boundary without waiting any time). */
export function nextTurn(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}
