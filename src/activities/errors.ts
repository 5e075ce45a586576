/**
 * Classification of provider / HTTP failures into Temporal retry semantics. `classifyFailure` is
 * pure (unit-tested); `toApplicationFailure` turns its verdict into an ApplicationFailure.
 *
 * - 408, 409, 425, 429, 5xx, timeouts, connection errors: retryable; `Retry-After` (seconds or an
 *   HTTP date) / `retry-after-ms` become `nextRetryDelay`.
 * - 400, 401, 403, 404, 422 (and other 4xx): non-retryable, with a message an operator can act on.
 */
import { ApplicationFailure } from '@temporalio/common';

export type FailureKind = 'http' | 'timeout' | 'connection';

export interface FailureInput {
  kind: FailureKind;
  /** HTTP status for kind 'http'. */
  status?: number;
  /** Response headers (lower- or mixed-case names). */
  headers?: Record<string, string | null | undefined>;
  /** The server's / client's own message. */
  message?: string;
  /** What was called, e.g. `http://127.0.0.1:8080/v1` or `tool weather-lookup (GET https://…)`. */
  endpoint: string;
  /** Env var that holds the credential, named in 401/403 messages. */
  credentialEnv?: string;
  /** What failed: 'model' or 'tool', used in the failure type. */
  subject?: 'model' | 'tool';
  /** Clock for HTTP-date Retry-After (tests). */
  now?: number;
}

export interface FailureVerdict {
  retryable: boolean;
  /** ApplicationFailure type, e.g. `ModelRateLimited`, `ModelAuthFailed`, `ToolHttp503`. */
  type: string;
  message: string;
  /** Milliseconds from Retry-After, when the server gave one. */
  retryAfterMs?: number;
}

function header(headers: FailureInput['headers'], name: string): string | undefined {
  if (!headers) return undefined;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name && v != null) return String(v);
  return undefined;
}

/** Retry-After: delay-seconds or an HTTP-date; `retry-after-ms` (OpenAI) wins when present. */
export function parseRetryAfter(headers: FailureInput['headers'], now: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  const ra = header(headers, 'retry-after');
  if (ra === undefined) return undefined;
  const t = ra.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const date = Date.parse(t);
  if (!Number.isNaN(date)) return Math.max(0, date - now);
  return undefined;
}

const RETRYABLE_4XX = new Set([408, 409, 425, 429]);

function short(msg: string | undefined): string {
  if (!msg) return '';
  const m = msg.replace(/\s+/g, ' ').trim();
  return m.length > 300 ? `${m.slice(0, 300)}…` : m;
}

export function classifyFailure(f: FailureInput): FailureVerdict {
  const subj = f.subject ?? 'model';
  const Subj = subj === 'model' ? 'Model' : 'Tool';
  const detail = short(f.message);
  const tail = detail ? ` (${detail})` : '';
  if (f.kind === 'timeout') {
    return { retryable: true, type: `${Subj}Timeout`, message: `timeout calling ${f.endpoint}${tail}` };
  }
  if (f.kind === 'connection') {
    return { retryable: true, type: `${Subj}ConnectionError`, message: `cannot connect to ${f.endpoint}${tail}` };
  }
  const status = f.status ?? 0;
  const retryAfterMs = parseRetryAfter(f.headers, f.now);
  const cred = f.credentialEnv ? `env ${f.credentialEnv}` : 'the configured credential';
  if (status === 429) {
    return {
      retryable: true,
      type: `${Subj}RateLimited`,
      message: `429 rate limited by ${f.endpoint}${retryAfterMs !== undefined ? `, retry after ${retryAfterMs} ms` : ''}${tail}`,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
  if (status >= 500 || RETRYABLE_4XX.has(status) || status === 0) {
    return {
      retryable: true,
      type: `${Subj}Http${status || 'Unknown'}`,
      message: `${status || 'unknown status'} from ${f.endpoint}: transient server error, will retry${tail}`,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
  let hint: string;
  switch (status) {
    case 400:
      hint = subj === 'model' ? 'the request was rejected; check the model name, tools and parameters the model accepts' : 'the request was rejected; check the arguments and the tool definition';
      break;
    case 401:
      hint = `check the key in ${cred}`;
      break;
    case 403:
      hint = `the credential in ${cred} is not allowed to do this (permissions, organization or project)`;
      break;
    case 404:
      hint = subj === 'model' ? 'check base_url and the model name' : 'check the tool URL';
      break;
    case 422:
      hint = 'the request was well-formed but refused as unprocessable; check the parameters';
      break;
    default:
      hint = 'client error; not retried';
  }
  return { retryable: false, type: `${Subj}Http${status}`, message: `${status} from ${f.endpoint}: ${hint}${tail}` };
}

export function toApplicationFailure(v: FailureVerdict, cause?: Error): ApplicationFailure {
  return ApplicationFailure.create({
    message: v.message,
    type: v.type,
    nonRetryable: !v.retryable,
    ...(v.retryable && v.retryAfterMs !== undefined ? { nextRetryDelay: v.retryAfterMs } : {}),
    ...(cause ? { cause } : {}),
  });
}

/** Store error names (src/store/types.ts) and whether retrying can fix them. */
const STORE_FAILURES: Record<string, boolean> = { StoreUnavailable: true, BlobNotFound: false, StoreCorrupt: false, StoreRefused: false };

/**
 * A store failure classified like a provider's: an unreachable store (StoreUnavailable) is
 * retryable, a missing blob, a corrupt record or refused access is not; undefined for an error
 * that is not the store's. Pure; the outage interceptor (outages.ts) applies it to every activity.
 */
export function classifyStoreFailure(err: unknown): FailureVerdict | undefined {
  const e = err as { name?: string; type?: string; message?: string } | undefined;
  const type = typeof e?.type === 'string' && e.type in STORE_FAILURES ? e.type : typeof e?.name === 'string' && e.name in STORE_FAILURES ? e.name : undefined;
  if (!type) return undefined;
  const message = short(e?.message) || type;
  return { retryable: STORE_FAILURES[type], type, message: STORE_FAILURES[type] ? message : `${message} (not retried: retrying cannot fix it)` };
}
