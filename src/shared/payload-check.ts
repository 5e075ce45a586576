/**
 * Whatever a client sends a run — a missing payload, `null`, wrong types, unknown fields, a payload
 * the worker could not decode — is checked against the payload's schema (./contract) and, when it
 * does not fit, described in one short line: what was wrong and the shape expected. A workflow's
 * signal handler turns that line into a run warning, an update validator into its refusal, a query
 * into its error; the CLI into a usage error before anything is sent. Pure: no Temporal import.
 */
import type { z } from 'zod';

/**
 * What the worker's decoding guard (src/codec/decode-guard.ts) hands a workflow in place of a
 * signal, update or query argument it could not decode (an unknown encoding, an encrypted payload
 * without its key): a plain JSON object no payload schema accepts.
 */
export const UNDECODABLE = '__loom_undecodable';
export interface UndecodablePayload {
  [UNDECODABLE]: { encoding: string; error: string };
}

export function undecodable(encoding: string, error: string): UndecodablePayload {
  return { [UNDECODABLE]: { encoding, error: clip(error, 200) } };
}

export function isUndecodable(v: unknown): v is UndecodablePayload {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && UNDECODABLE in v;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

/** Longest description of a mismatch (a warning or refusal never quotes a whole hostile payload). */
const MAX_PROBLEM = 400;

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** What was wrong with `value` for `schema`, in at most three issues, each with its path. */
function describeIssues(issues: readonly z.ZodIssue[]): string {
  const shown = issues.slice(0, 3).map((i) => {
    const at = i.path.length ? i.path.map(String).join('.') : '';
    return clip(at ? `${at}: ${i.message}` : i.message, 120);
  });
  return `${shown.join('; ')}${issues.length > 3 ? ` (and ${issues.length - 3} more)` : ''}`;
}

/** The JSON type of `v` in a word (what arrived instead of the expected shape). */
export function kindOf(v: unknown): string {
  if (v === undefined) return 'no payload';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/**
 * Check `value` against `schema`; `expected` is the shape in words, given with every problem.
 * Never throws (a schema that throws on a hostile value is reported as a problem too).
 */
export function checkPayload<T>(schema: z.ZodType<T>, value: unknown, expected: string): Checked<T> {
  if (isUndecodable(value)) {
    const u = value[UNDECODABLE];
    return { ok: false, problem: clip(`the payload could not be decoded (encoding '${clip(String(u.encoding), 60)}': ${u.error}); expected ${expected}`, MAX_PROBLEM) };
  }
  let r: ReturnType<z.ZodType<T>['safeParse']>;
  try {
    r = schema.safeParse(value);
  } catch (e) {
    return { ok: false, problem: clip(`the payload could not be read (${e instanceof Error ? e.message : String(e)}); expected ${expected}`, MAX_PROBLEM) };
  }
  if (r.success) return { ok: true, value: r.data };
  const what = value === undefined || value === null || typeof value !== 'object' || Array.isArray(value) ? `got ${kindOf(value)}` : describeIssues(r.error.issues);
  return { ok: false, problem: clip(`${what}; expected ${expected}`, MAX_PROBLEM) };
}
