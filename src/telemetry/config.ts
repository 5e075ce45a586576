/**
 * An agent's compiled `observability.tracing` section read as the worker uses it (seed 001 field
 * reference, tracing), with the seed's defaults (`enabled` false, `exporter` otlp, `sampling_rate`
 * 1.0, model inputs off, model outputs on, tool results `redacted`, KB chunks off, context
 * propagated, auth none)
 * except tool args, which are off unless switched on (issue 11.8, decision 248). Pure: no Temporal import, no I/O.
 */
import type { JsonObject } from '../compiler/types';
import type { IncludeMode } from './span-content';

export interface TracingConfig {
  exporter: 'otlp' | 'console';
  endpoint?: string;
  sampling_rate: number;
  include_model_inputs: boolean;
  include_model_outputs: boolean;
  include_tool_args: IncludeMode;
  include_tool_results: IncludeMode;
  include_kb_chunks: boolean;
  /** W3C trace context to tools (a `traceparent` header) and sub-agent runs (they join the trace); seed default true (decision 287). */
  propagate_context: boolean;
  auth: { type: 'none' | 'bearer' | 'mtls'; credentials_ref?: string };
}

const mode = (v: unknown, dflt: IncludeMode): IncludeMode => (v === 'full' || v === 'redacted' || v === 'none' ? v : dflt);

/**
 * The tracing settings, or undefined when the agent emits no spans: no section, `enabled` not
 * true (the seed's master switch defaults to false), or `exporter: none`.
 */
export function tracingConfigOf(observability: JsonObject | undefined): TracingConfig | undefined {
  const t = observability?.tracing;
  if (!t || typeof t !== 'object' || Array.isArray(t)) return undefined;
  if (t.enabled !== true || t.exporter === 'none') return undefined;
  const auth = t.auth && typeof t.auth === 'object' && !Array.isArray(t.auth) ? t.auth : {};
  const authType = auth.type === 'bearer' || auth.type === 'mtls' ? auth.type : 'none';
  return {
    exporter: t.exporter === 'console' ? 'console' : 'otlp',
    ...(typeof t.endpoint === 'string' && t.endpoint.trim() ? { endpoint: t.endpoint.trim() } : {}),
    sampling_rate: typeof t.sampling_rate === 'number' ? t.sampling_rate : 1,
    include_model_inputs: t.include_model_inputs === true,
    include_model_outputs: t.include_model_outputs !== false,
    include_tool_args: mode(t.include_tool_args, 'none'),
    include_tool_results: mode(t.include_tool_results, 'redacted'),
    include_kb_chunks: t.include_kb_chunks === true,
    propagate_context: t.propagate_context !== false,
    auth: { type: authType, ...(typeof auth.credentials_ref === 'string' ? { credentials_ref: auth.credentials_ref } : {}) },
  };
}

export interface MetricsConfig {
  exporter: 'otlp' | 'console';
  endpoint?: string;
  export_interval_ms: number;
  custom_dimensions: string[];
  auth: { type: 'none' | 'bearer' | 'mtls'; credentials_ref?: string };
}

/**
 * An agent's `observability.metrics` (seed 001 field reference, metrics), or undefined when it
 * records none: no section, `enabled` not true (default false) or `exporter: none`.
 */
export function metricsConfigOf(observability: JsonObject | undefined): MetricsConfig | undefined {
  const m = observability?.metrics;
  if (!m || typeof m !== 'object' || Array.isArray(m)) return undefined;
  if (m.enabled !== true || m.exporter === 'none') return undefined;
  const auth = m.auth && typeof m.auth === 'object' && !Array.isArray(m.auth) ? m.auth : {};
  const interval = typeof m.export_interval_seconds === 'number' && m.export_interval_seconds > 0 ? m.export_interval_seconds : 60;
  return {
    exporter: m.exporter === 'console' ? 'console' : 'otlp',
    ...(typeof m.endpoint === 'string' && m.endpoint.trim() ? { endpoint: m.endpoint.trim() } : {}),
    export_interval_ms: interval * 1000,
    custom_dimensions: Array.isArray(m.custom_dimensions) ? m.custom_dimensions.filter((d): d is string => typeof d === 'string') : [],
    auth: { type: auth.type === 'bearer' || auth.type === 'mtls' ? auth.type : 'none', ...(typeof auth.credentials_ref === 'string' ? { credentials_ref: auth.credentials_ref } : {}) },
  };
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogsConfig {
  exporter: 'otlp' | 'console';
  endpoint?: string;
  level: LogLevel;
  structured: boolean;
  include_trace_context: boolean;
  auth: { type: 'none' | 'bearer' | 'mtls'; credentials_ref?: string };
}

/**
 * An agent's `observability.logs` (seed 001 field reference, logs), or undefined when it emits
 * none: no section, `enabled` not true (default false) or `exporter: none`.
 */
export function logsConfigOf(observability: JsonObject | undefined): LogsConfig | undefined {
  const l = observability?.logs;
  if (!l || typeof l !== 'object' || Array.isArray(l)) return undefined;
  if (l.enabled !== true || l.exporter === 'none') return undefined;
  const auth = l.auth && typeof l.auth === 'object' && !Array.isArray(l.auth) ? l.auth : {};
  return {
    exporter: l.exporter === 'console' ? 'console' : 'otlp',
    ...(typeof l.endpoint === 'string' && l.endpoint.trim() ? { endpoint: l.endpoint.trim() } : {}),
    level: l.level === 'debug' || l.level === 'warn' || l.level === 'error' ? l.level : 'info',
    structured: l.structured !== false,
    include_trace_context: l.include_trace_context !== false,
    auth: { type: auth.type === 'bearer' || auth.type === 'mtls' ? auth.type : 'none', ...(typeof auth.credentials_ref === 'string' ? { credentials_ref: auth.credentials_ref } : {}) },
  };
}
