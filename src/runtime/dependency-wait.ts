/**
 * Waiting out a dependency's outage (the store, the model endpoint), pure: which failures mean
 * "down for now, wait" rather than "wrong, stop", how long to wait between attempts, how long to
 * wait at most, and the sentence an operator reads while a run waits (`loom status`, `loom run`'s
 * progress, `loom inbox`). No Temporal import: the activity side (src/activities/outages.ts) and
 * the CLI both use it. Every sentence goes through `redactSecrets`: no password or key leaves here.
 */

/** The failure types of a dependency that is down or busy: retried for as long as the run may wait. */
const OUTAGE_TYPE = /^(StoreUnavailable|Model(Timeout|ConnectionError|RateLimited|Http(5\d\d|408|409|425|Unknown)))$/;

/** Is a failure of this type (ApplicationFailure type / Error name) an outage to wait out? */
export function isOutageType(type: string | undefined | null): boolean {
  return typeof type === 'string' && OUTAGE_TYPE.test(type);
}

/** Attempts a failure that is NOT an outage gets when the activity's retry policy is unlimited (the old default). */
export const NON_OUTAGE_ATTEMPTS = 5;

/** How long a run waits for a dependency at most, when LOOM_DEPENDENCY_MAX_WAIT is not set: 24 hours. */
export const DEFAULT_MAX_WAIT_MS = 24 * 3600 * 1000;

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * LOOM_DEPENDENCY_MAX_WAIT: `90s`, `30m`, `6h`, `2d` or plain seconds; unset = 24 h. A value that
 * is not one of these throws (a worker refuses to start with a setting it cannot read).
 */
export function parseMaxWait(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_MAX_WAIT_MS;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$/i.exec(raw);
  if (!m || Number(m[1]) <= 0) throw new Error(`LOOM_DEPENDENCY_MAX_WAIT must be a positive duration such as 90s, 30m, 6h or 2d (plain number: seconds), got '${raw}'`);
  return Math.round(Number(m[1]) * UNIT_MS[(m[2] || 's').toLowerCase()]);
}

export interface Backoff {
  initialMs: number;
  coefficient: number;
  maxMs: number;
}

/** The backoff of every wait, in an activity's own loop and in the activity presets' retry policy alike. */
export const OUTAGE_BACKOFF: Backoff = { initialMs: 1000, coefficient: 2, maxMs: 30_000 };

/** Delay before attempt `attempt + 1` after attempt `attempt` (1-based) failed: exponential, capped. */
export function backoffMs(attempt: number, b: Backoff = OUTAGE_BACKOFF): number {
  const n = Math.max(1, Math.floor(attempt));
  return Math.min(b.maxMs, b.initialMs * Math.pow(b.coefficient, n - 1));
}

/** Has a wait that began at `sinceMs` used up the ceiling by `nowMs`? */
export function waitExhausted(sinceMs: number, nowMs: number, maxWaitMs: number): boolean {
  return nowMs - sinceMs >= maxWaitMs;
}

/** `2h`, `25m`, `40s`: a duration for a sentence. */
export function humanDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s % 86_400 === 0 && s >= 86_400) return `${s / 86_400}d`;
  if (s % 3600 === 0 && s >= 3600) return `${s / 3600}h`;
  if (s % 60 === 0 && s >= 60) return `${s / 60}m`;
  return `${s}s`;
}

/**
 * Passwords in URLs (`scheme://user:pw@` → `scheme://user:***@`), OpenAI-style keys, bearer
 * tokens and `password=`/`key=`-like parameters, removed from text meant for a human.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]*@/gi, '$1:***@')
    .replace(/\b(sk|rk|pk)-[A-Za-z0-9_*.-]{6,}/g, '[redacted]')
    .replace(/(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, '$1[redacted]')
    .replace(/([?&;\s](?:password|passwd|pwd|secret|token|api[_-]?key|key)=)[^&\s;]*/gi, '$1***');
}

/**
 * What an activity waiting inside itself heartbeats (runTool finishing its bookkeeping): the
 * Web UI shows it as the pending activity's heartbeat details, the CLI turns it into a sentence.
 */
export interface WaitingDetails {
  waiting: {
    /** `the store postgres://loom@db:5432/loomstore` (never a password). */
    what: string;
    /** ISO time of the first failed attempt of this wait. */
    since: string;
    attempt: number;
    /** The last error, redacted. */
    error: string;
    /** ISO time of the next attempt. */
    next?: string;
  };
}

export function isWaitingDetails(v: unknown): v is WaitingDetails {
  const w = (v as WaitingDetails | undefined)?.waiting;
  return !!w && typeof w === 'object' && typeof w.what === 'string' && typeof w.since === 'string' && typeof w.attempt === 'number';
}

/** A pending activity as the CLI reads it from `describe()` (decoded, times in ms). */
export interface PendingActivityView {
  activityType?: string;
  attempt?: number;
  lastFailure?: { type?: string; message?: string };
  lastFailureAtMs?: number;
  nextAttemptAtMs?: number;
  heartbeat?: unknown;
}

/** Local `HH:MM:SS` (the operator's clock). */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

const STORE_MESSAGE = /^the store (\S+) is unreachable(?::\s*(.*))?$/s;

/**
 * The sentence for one pending activity that waits on a dependency, or undefined when it does not
 * (running normally, or failing for another reason). E.g.
 * `waiting for the store postgres://loom@db:5432/loomstore (unreachable since 12:01:07, attempt 6)`,
 * `model endpoint answered 429, retrying at 12:03:10 (attempt 4)`.
 */
export function waitingReason(p: PendingActivityView, time: (ms: number) => string = clockTime): string | undefined {
  if (isWaitingDetails(p.heartbeat)) {
    const w = p.heartbeat.waiting;
    const since = Date.parse(w.since);
    const next = w.next ? Date.parse(w.next) : NaN;
    const tail = Number.isNaN(next) ? '' : `, next at ${time(next)}`;
    return redactSecrets(`waiting for ${w.what} (unreachable since ${Number.isNaN(since) ? w.since : time(since)}, attempt ${w.attempt}${tail}): ${w.error}`);
  }
  const f = p.lastFailure;
  if (!f || !isOutageType(f.type)) return undefined;
  const attempt = p.attempt ?? 1;
  const retry = p.nextAttemptAtMs !== undefined ? `retrying at ${time(p.nextAttemptAtMs)}` : 'retrying';
  const msg = f.message ?? '';
  if (f.type === 'StoreUnavailable') {
    const m = STORE_MESSAGE.exec(msg);
    const failed = p.lastFailureAtMs !== undefined ? `, attempt ${attempt - 1} failed at ${time(p.lastFailureAtMs)}` : `, attempt ${attempt}`;
    return redactSecrets(`waiting for the store ${m ? m[1] : '(unknown)'} (unreachable${failed}; ${retry})${m?.[2] ? `: ${m[2]}` : ''}`);
  }
  const status = /^ModelHttp(\d+)$/.exec(f.type ?? '')?.[1] ?? (f.type === 'ModelRateLimited' ? '429' : undefined);
  const what = status ? `model endpoint answered ${status}` : f.type === 'ModelTimeout' ? 'model endpoint did not answer in time' : 'model endpoint is unreachable';
  return redactSecrets(`${what}, ${retry} (attempt ${attempt}): ${msg}`);
}

/** Every waiting sentence of a run's pending activities (one per activity that waits). */
export function waitingReasons(pending: readonly PendingActivityView[], time?: (ms: number) => string): string[] {
  return pending.map((p) => waitingReason(p, time)).filter((s): s is string => s !== undefined);
}
