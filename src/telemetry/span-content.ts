/**
 * What content an agent's `observability.tracing` section lets into a span (the Agent Definition Specification,
 * observability): tool arguments per `include_tool_args` (full | redacted | none), model inputs
 * only when `include_model_inputs` is true, and whether a run is sampled per `sampling_rate`.
 * Pure: no Temporal import, no I/O; the span-emitting activities call it. Redaction is the one in
 * src/governance/sensitive.ts (sensitive: true tool fields).
 */
import type { JsonObject } from '../compiled/types';
import { redactArgs } from '../governance/sensitive';

export type IncludeMode = 'full' | 'redacted' | 'none';

/** The tracing fields this module reads (names as in the Agent Definition Specification). */
export interface TracingContentConfig {
  sampling_rate?: number;
  include_model_inputs?: boolean;
  include_tool_args?: IncludeMode;
}

/**
 * The `agent.tool_call` span's arguments attribute (JSON text), or undefined when none may be
 * recorded. Off unless switched on (chosen over the specification's "redacted" default);
 * "redacted" replaces the sensitive fields and keeps the rest, "full" keeps everything.
 */
export function toolArgsAttribute(args: JsonObject, sensitiveFields: readonly string[], cfg: TracingContentConfig): string | undefined {
  const mode = cfg.include_tool_args ?? 'none';
  if (mode === 'none') return undefined;
  return JSON.stringify(mode === 'full' ? args : redactArgs(args, sensitiveFields));
}

/** The model input messages attribute, only when include_model_inputs is true (the Agent Definition Specification's default false: PII risk). */
export function modelInputsAttribute(messages: readonly unknown[], cfg: TracingContentConfig): string | undefined {
  return cfg.include_model_inputs === true ? JSON.stringify(messages) : undefined;
}

/**
 * Whether a run is traced: the same run id always gets the same answer (so every activity of a
 * run, and a retried activity, agrees without coordination), and about `sampling_rate` of all runs
 * are traced. Rate missing means 1.0 (the Agent Definition Specification's default: every run).
 */
export function isRunSampled(runId: string, samplingRate: number | undefined): boolean {
  const rate = samplingRate ?? 1;
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  return fnv1a(runId) / 0x1_0000_0000 < rate;
}

/** 32-bit FNV-1a: a stable, well-spread hash of the run id. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
