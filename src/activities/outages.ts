/**
 * Outages waited out, on the activity side (the pure rules are src/runtime/dependency-wait.ts).
 *
 * - `outageInterceptor`: every activity of an Agentloom worker. The activity presets
 *   (src/workflows/activity-options.ts) give activities an unlimited retry policy, so this decides
 *   when retrying ends: a dependency outage (StoreUnavailable, a model endpoint refusing, timing
 *   out, answering 5xx or 429) is retried until LOOM_DEPENDENCY_MAX_WAIT (default 24 h) after the
 *   activity was first scheduled; any other failure gets NON_OUTAGE_ATTEMPTS attempts, then fails
 *   for good with its own type and message. An activity whose workflow set its own
 *   maximumAttempts (an agent's explicit runtime.retry_policy, older runs) keeps Temporal's count.
 * - `waitOut`: a step retried INSIDE the activity (runTool's bookkeeping after the tool ran, so the
 *   tool is never run again): backoff, heartbeats that carry the waiting reason, the same ceiling.
 */
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { classifyStoreFailure, toApplicationFailure } from './errors';
import { backoffMs, humanDuration, isOutageType, NON_OUTAGE_ATTEMPTS, parseMaxWait, redactSecrets, waitExhausted, WaitingDetails } from '../runtime/dependency-wait';

/** The worker's ceiling (LOOM_DEPENDENCY_MAX_WAIT, read when the worker starts and at each wait). */
export function maxWaitMs(): number {
  return parseMaxWait(process.env.LOOM_DEPENDENCY_MAX_WAIT);
}

function failureType(e: unknown): string | undefined {
  if (e instanceof ApplicationFailure) return e.type ?? undefined;
  return (e as Error | undefined)?.name;
}

function gaveUp(e: unknown, type: string | undefined, waitedMs: number): ApplicationFailure {
  const msg = (e as Error)?.message ?? String(e);
  return ApplicationFailure.create({
    type: type ?? 'DependencyUnavailable',
    message: `${redactSecrets(msg)} (gave up after waiting ${humanDuration(waitedMs)}: LOOM_DEPENDENCY_MAX_WAIT)`,
    nonRetryable: true,
  });
}

/** Retry rules of every Agentloom activity (see the file comment). */
export function outageInterceptor(ceilingMs: number = maxWaitMs()): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      execute: async (input, next) => {
        try {
          return await next(input);
        } catch (e) {
          if (e instanceof CancelledFailure || ctx.cancellationSignal.aborted) throw e;
          if (e instanceof ApplicationFailure && e.nonRetryable) throw e;
          // A store failure retrying cannot fix (missing blob, corrupt record, refused access) stops here.
          const store = classifyStoreFailure(e);
          if (store && !store.retryable) throw toApplicationFailure(store);
          const info = ctx.info;
          const type = failureType(e);
          if (isOutageType(type)) {
            const waited = Date.now() - info.scheduledTimestampMs;
            if (waitExhausted(info.scheduledTimestampMs, Date.now(), ceilingMs)) throw gaveUp(e, type, waited);
            throw e;
          }
          // Temporal counts attempts itself when the workflow gave a maximum.
          if (info.retryPolicy?.maximumAttempts) throw e;
          if (info.attempt >= NON_OUTAGE_ATTEMPTS) {
            throw ApplicationFailure.create({ type: type ?? 'Error', message: `${(e as Error)?.message ?? String(e)} (failed ${info.attempt} attempts)`, nonRetryable: true });
          }
          throw e;
        }
      },
    },
  });
}

function inActivity(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/**
 * How long a wait inside this attempt may last: the worker's ceiling, but never past the attempt's
 * start-to-close (less a minute), where Temporal would time the attempt out and retry it.
 */
export function attemptBoundMs(ceilingMs: number = maxWaitMs()): number {
  const ctx = inActivity();
  if (!ctx) return ceilingMs;
  const info = ctx.info;
  if (!(info.startToCloseTimeoutMs > 0)) return ceilingMs;
  const left = info.startToCloseTimeoutMs - (Date.now() - info.currentAttemptScheduledTimestampMs) - 60_000;
  return Math.max(0, Math.min(ceilingMs, left));
}

/**
 * Run `fn` until it succeeds, waiting out outages of `what` (e.g. `the store postgres://…`) with
 * backoff, inside the activity: for a step after an effect that must not be repeated (a tool that
 * ran, a model that answered). Each wait heartbeats its reason (WaitingDetails) every few seconds,
 * so a dead worker is noticed within the activity's heartbeatTimeout and `loom status` / the Web
 * UI show why the activity waits. A failure that is not an outage, cancellation, or the end of the
 * wait's bound (attemptBoundMs) rethrows the error: the outage interceptor then lets Temporal retry
 * the activity or, past LOOM_DEPENDENCY_MAX_WAIT, fails it for good.
 */
export async function waitOut<T>(what: string, fn: () => Promise<T>, opts: { boundMs?: number; now?: () => number; beatMs?: number } = {}): Promise<T> {
  const now = opts.now ?? Date.now;
  const bound = opts.boundMs ?? attemptBoundMs();
  const beatMs = opts.beatMs ?? 5000;
  const ctx = inActivity();
  let since: number | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isOutageType(failureType(e))) throw e;
      since ??= now();
      const delay = backoffMs(attempt);
      if (waitExhausted(since, now() + delay, bound)) throw e;
      const details: WaitingDetails = {
        waiting: { what, since: new Date(since).toISOString(), attempt, error: redactSecrets((e as Error)?.message ?? String(e)), next: new Date(now() + delay).toISOString() },
      };
      const until = now() + delay;
      while (now() < until) {
        ctx?.heartbeat(details);
        const step = Math.min(beatMs, until - now());
        if (ctx) await ctx.sleep(step);
        else await new Promise((r) => setTimeout(r, step));
      }
    }
  }
}
