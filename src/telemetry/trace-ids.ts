/**
 * Deterministic trace and span ids for an agent run: the trace id and the
 * `agent.run` span id are hashes of the workflow id and run id, so every activity of the run can
 * parent its span to `agent.run` from its own activity info, and the workflow needs no command,
 * marker or header to carry them (recorded histories replay unchanged). Also the W3C `traceparent`
 * header an agent sends with its outbound calls (`propagate_context`). Pure: no Temporal import.
 */
import { createHash } from 'crypto';

function hex(kind: string, workflowId: string, runId: string, chars: number): string {
  const h = createHash('sha256').update(`agentloom:${kind}:${workflowId}\n${runId}`).digest('hex').slice(0, chars);
  // An all-zero id is invalid in W3C Trace Context; a sha256 prefix of zeros is practically impossible, but stay valid.
  return /^0+$/.test(h) ? `${h.slice(0, -1)}1` : h;
}

/** The 32-hex-digit trace id of one workflow run (each continue-as-new segment is its own trace). */
export function runTraceId(workflowId: string, runId: string): string {
  return hex('trace', workflowId, runId, 32);
}

/** The 16-hex-digit span id of the run's `agent.run` span. */
export function runSpanId(workflowId: string, runId: string): string {
  return hex('run-span', workflowId, runId, 16);
}

/** A W3C Trace Context `traceparent` (version 00): which trace and which span a call belongs to, and whether it is sampled. */
export interface TraceParent {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/**
 * The `traceparent` header value `00-<trace id>-<span id>-<flags>` (W3C Trace Context), flags 01
 * when sampled and 00 when not. Throws on an id that is not lowercase hex of the right length or is all zeros.
 */
export function formatTraceparent(p: TraceParent): string {
  if (!TRACE_ID.test(p.traceId) || /^0+$/.test(p.traceId)) throw new Error(`traceparent: trace id '${p.traceId}' is not 32 lowercase hex digits (not all zero)`);
  if (!SPAN_ID.test(p.spanId) || /^0+$/.test(p.spanId)) throw new Error(`traceparent: span id '${p.spanId}' is not 16 lowercase hex digits (not all zero)`);
  return `00-${p.traceId}-${p.spanId}-${p.sampled ? '01' : '00'}`;
}

/**
 * Read a `traceparent` header as W3C Trace Context level 1 says a receiver does: undefined for a
 * malformed value, version ff, or an all-zero trace or span id; a later version is read by its
 * first four fields.
 */
export function parseTraceparent(value: string | undefined): TraceParent | undefined {
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec((value ?? '').trim());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 };
}
