/**
 * Provider failures as Temporal retry semantics, for the native providers. The HTTP status goes
 * through `classifyFailure` (errors.ts) like the `openai` provider's; what a vendor says in its own
 * shape is mapped here first:
 *  - Anthropic's 529 `overloaded_error` (as a status or as an error event inside a stream) is
 *    retryable `ModelOverloaded`, honouring `retry-after`;
 *  - Gemini's 429 `RESOURCE_EXHAUSTED` carries its hint in the body (`RetryInfo.retryDelay`,
 *    "30s"), used as the retry delay when no `retry-after` header came;
 *  - Bedrock's `ThrottlingException` / `ServiceUnavailableException` / `ModelNotReadyException`
 *    (named in `x-amzn-errortype`) are retryable whatever the status;
 *  - a request longer than the context window (each vendor words it its own way) is non-retryable
 *    `ModelContextLengthExceeded`, and a request or reply stopped by the vendor's content filter
 *    (Azure `content_filter`, Gemini `SAFETY`, a `content-filter` finish) is non-retryable
 *    `ModelContentFiltered`, each with what an operator can change.
 * Messages are redacted of every credential the call used; the vendor's error object is never
 * attached as the failure's cause.
 */
import { ApplicationFailure } from '@temporalio/common';
import { classifyFailure, toApplicationFailure, type FailureInput } from '../errors';
import { redact } from '../openai';

export interface FailureContext {
  /** e.g. `anthropic http://127.0.0.1:4000/v1 (model claude-x)`: no credentials. */
  endpoint: string;
  credentialEnv?: string;
  /** Every credential value the call used, removed from any text that leaves the activity. */
  secrets: string[];
  /** The activity's own cancellation signal. */
  outer?: AbortSignal;
  timedOut: boolean;
  timeoutS: number;
}

/** The parts of an HTTP failure a vendor client exposes (the AI SDK's APICallError, ollama's ResponseError). */
export interface HttpFailure {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  message: string;
}

const CONTEXT_LENGTH = /context[ _-]?length|context window|prompt is too long|input is too long|too many (input )?tokens|maximum context|exceeds the (maximum|max) (number of )?(input )?tokens|input token count|context_length_exceeded/i;
const CONTENT_FILTER = /content[ _-]?filter|content management policy|ResponsibleAIPolicyViolation|\bSAFETY\b|blocked by (the )?(safety|content)|prohibited content/i;
const RETRYABLE_AWS = /^(ThrottlingException|ServiceUnavailableException|ModelNotReadyException|InternalServerException|ModelTimeoutException)\b/;

function scrub(text: string, secrets: string[]): string {
  return secrets.reduce((t, s) => redact(t, s), text);
}

/** The vendor's own message from an error body (`error.message`, `message`, `Message`). */
export function bodyMessage(body: string | undefined): string | undefined {
  if (!body) return undefined;
  try {
    const j = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown; Message?: unknown };
    const m = typeof j.error === 'object' ? j.error?.message : j.error ?? j.message ?? j.Message;
    return typeof m === 'string' ? m : undefined;
  } catch {
    return body.length > 300 ? `${body.slice(0, 300)}…` : body;
  }
}

/** Gemini's retry hint: `error.details[] { @type: …RetryInfo, retryDelay: "30s" }`, in ms. */
export function googleRetryDelayMs(body: string | undefined): number | undefined {
  if (!body) return undefined;
  try {
    const j = JSON.parse(body) as { error?: { details?: { '@type'?: string; retryDelay?: string }[] } };
    for (const d of j.error?.details ?? []) {
      const m = typeof d.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(d.retryDelay.trim()) : null;
      if (m) return Math.round(Number(m[1]) * 1000);
    }
  } catch {
    // not JSON: no hint
  }
  return undefined;
}

function header(headers: Record<string, string> | undefined, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** An HTTP failure of a provider call as an ApplicationFailure (pure but for the failure object). */
export function httpFailure(f: HttpFailure, ctx: FailureContext): ApplicationFailure {
  const detail = scrub(bodyMessage(f.body) ?? f.message, ctx.secrets);
  const all = `${f.body ?? ''} ${f.message}`;
  const status = f.status ?? 0;
  const base: FailureInput = { kind: 'http', status, headers: f.headers, message: detail, endpoint: ctx.endpoint, credentialEnv: ctx.credentialEnv, subject: 'model' };
  // A 2xx whose body the client could not read (not the vendor's shape): retried, as the openai provider does.
  if (status >= 200 && status < 300) {
    return ApplicationFailure.create({ message: `model call to ${ctx.endpoint} returned a reply that could not be read (${detail})`, type: 'ModelCallFailed', nonRetryable: false });
  }
  if (status !== 429 && status < 500 && CONTEXT_LENGTH.test(all)) {
    return ApplicationFailure.create({
      message: `${status} from ${ctx.endpoint}: the conversation no longer fits the model's context window; shorten the input or instructions, lower the turn limit, or use a model with a larger context window (${detail})`,
      type: 'ModelContextLengthExceeded',
      nonRetryable: true,
    });
  }
  if (status !== 429 && status < 500 && CONTENT_FILTER.test(all)) return contentFiltered(ctx.endpoint, detail);
  const awsType = header(f.headers, 'x-amzn-errortype');
  const overloaded = status === 529 || /overloaded_error/.test(all);
  if (overloaded || (awsType && RETRYABLE_AWS.test(awsType) && status < 500 && status !== 429)) {
    const v = classifyFailure({ ...base, status: status === 429 || status >= 500 ? status : 503 });
    return toApplicationFailure({ ...v, retryable: true, type: overloaded ? 'ModelOverloaded' : v.type, message: `${overloaded ? 'overloaded' : awsType}: ${v.message}` });
  }
  if (status === 429 && !header(f.headers, 'retry-after') && !header(f.headers, 'retry-after-ms')) {
    const ms = googleRetryDelayMs(f.body);
    if (ms !== undefined) return toApplicationFailure(classifyFailure({ ...base, headers: { ...(f.headers ?? {}), 'retry-after-ms': String(ms) } }));
  }
  return toApplicationFailure(classifyFailure(base));
}

export function contentFiltered(endpoint: string, detail: string): ApplicationFailure {
  return ApplicationFailure.create({
    message: `${endpoint}: the provider's content filter stopped the request or its reply; change the input or instructions, or the provider's content filter settings (${detail})`,
    type: 'ModelContentFiltered',
    nonRetryable: true,
  });
}

/** A failure that is not an HTTP status: cancellation, timeout, connection, anything else. */
export function callFailure(e: unknown, ctx: FailureContext, http?: HttpFailure): Error {
  if (ctx.outer?.aborted) return (ctx.outer.reason as Error) ?? (e as Error);
  if (ctx.timedOut) return toApplicationFailure(classifyFailure({ kind: 'timeout', endpoint: ctx.endpoint, message: `no reply within ${ctx.timeoutS} s`, subject: 'model' }));
  if (e instanceof ApplicationFailure) return e;
  if (http && (http.status !== undefined || http.body !== undefined)) return httpFailure(http, ctx);
  const err = e as { message?: string; cause?: { code?: string; message?: string } } | undefined;
  const cause = err?.cause;
  if (http || cause?.code || /fetch failed|ECONNREFUSED|ECONNRESET|ENOTFOUND|socket/i.test(err?.message ?? '')) {
    return toApplicationFailure(classifyFailure({ kind: 'connection', endpoint: ctx.endpoint, message: scrub(cause?.code ?? cause?.message ?? err?.message ?? 'connection failed', ctx.secrets), subject: 'model' }));
  }
  const msg = scrub(e instanceof Error ? e.message : String(e), ctx.secrets);
  return ApplicationFailure.create({ message: `model call to ${ctx.endpoint} failed: ${msg}`, type: 'ModelCallFailed', nonRetryable: false });
}
