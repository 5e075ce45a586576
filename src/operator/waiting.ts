/**
 * What a run waits on besides a human: the pending activities of `describe()` whose last failure
 * is a dependency outage (Temporal retries them) or that heartbeat a waiting reason (an activity
 * waiting inside itself, e.g. runTool recording a result while the store is down). The sentences
 * come from src/runtime/dependency-wait.ts, redacted there. Heartbeat details are read when they
 * are plain JSON; an encrypting deployment's details and failures stay sealed (the Web UI with the
 * codec server shows them), so its runs show no waiting reason here.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { PendingActivityView, waitingReasons } from '../runtime/dependency-wait';

interface Ts {
  seconds?: { toNumber?: () => number } | number | string | null;
  nanos?: number | null;
}
interface RawPending {
  activityType?: { name?: string | null } | null;
  attempt?: number | null;
  lastFailure?: { message?: string | null; applicationFailureInfo?: { type?: string | null } | null } | null;
  lastAttemptCompleteTime?: Ts | null;
  nextAttemptScheduleTime?: Ts | null;
  heartbeatDetails?: { payloads?: { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null }[] | null } | null;
}

function ms(t: Ts | null | undefined): number | undefined {
  if (!t || t.seconds == null) return undefined;
  const s = typeof t.seconds === 'object' ? (t.seconds.toNumber?.() ?? Number(t.seconds)) : Number(t.seconds);
  return Number.isFinite(s) ? s * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : undefined;
}

function plainJson(p: { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null } | undefined): unknown {
  const enc = p?.metadata?.encoding ? Buffer.from(p.metadata.encoding).toString('utf8') : '';
  if (enc !== 'json/plain' || !p?.data) return undefined;
  try {
    return JSON.parse(Buffer.from(p.data).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** One pending activity of `describe().raw` as the waiting rules read it. */
export function pendingView(a: RawPending): PendingActivityView {
  return {
    activityType: a.activityType?.name ?? undefined,
    attempt: a.attempt ?? undefined,
    ...(a.lastFailure ? { lastFailure: { type: a.lastFailure.applicationFailureInfo?.type ?? undefined, message: a.lastFailure.message ?? undefined } } : {}),
    lastFailureAtMs: ms(a.lastAttemptCompleteTime),
    nextAttemptAtMs: ms(a.nextAttemptScheduleTime),
    heartbeat: plainJson(a.heartbeatDetails?.payloads?.[0]),
  };
}

/** The run's waiting sentences from a description it already has. */
export function waitingFromDescription(desc: { raw?: { pendingActivities?: RawPending[] | null } }): string[] {
  return waitingReasons((desc.raw?.pendingActivities ?? []).map(pendingView));
}

/** The run's waiting sentences ([] when it waits on nothing, or cannot be described right now). */
export async function waitingFor(handle: WorkflowHandle): Promise<string[]> {
  try {
    return waitingFromDescription((await handle.describe()) as { raw?: { pendingActivities?: RawPending[] | null } });
  } catch {
    return [];
  }
}
