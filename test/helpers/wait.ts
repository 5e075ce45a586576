/** Bounded waits on an observable state: they poll, and fail naming what they waited for. */

/** Poll until `fn` returns a value (not undefined), or fail with `what` after `ms`. */
export async function until<T>(fn: () => T | undefined | Promise<T | undefined>, what: string, ms = 30000, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
