/**
 * An agent's compiled `observability.tracing` section read as the worker uses it (the Agent Definition Specification's field
 * reference, tracing), with the Agent Definition Specification's defaults (`enabled` false, `exporter` otlp, `sampling_rate`
 * 1.0, model inputs off, model outputs on, tool results `redacted`, KB chunks off, context
 * propagated, auth none)
 * except tool args, which are off unless switched on (chosen over the specification's `include_tool_args` default `redacted`). Pure: no Temporal import, no I/O.
 */
import type { CompiledAgent, JsonObject } from '../compiled/types';
import { withinResidency } from '../governance/residency';
import type { IncludeMode } from './span-content';
import { agentEndpoint, withSignalPath, type OtelEnv, type OtlpProtocol, type Signal } from './otel-env';

/** What the worker adds to an agent's own section: its OTEL_* variables and the tenant's `telemetry` (either alone turns telemetry on). */
export interface Platform {
  env: OtelEnv;
  tenant?: JsonObject;
  /** The agent's policies.data_residency: a destination declared in another region is refused. */
  residency?: string;
}

/** What the worker adds to `agent`'s own section: these OTEL_* variables, its tenant's telemetry, its residency. */
export function platformOf(agent: CompiledAgent, env: OtelEnv): Platform {
  const residency = agent.policies?.data_residency;
  return { env, ...(agent.tenant?.telemetry ? { tenant: agent.tenant.telemetry } : {}), ...(residency ? { residency } : {}) };
}

/**
 * Telemetry under policies.data_residency (the Agent Format: telemetry data is subject to the same
 * residency as all other agent data): a destination whose declared `region` (the tenant's
 * `telemetry.region`, or the agent's signal section `region`) lies outside the residency is refused
 * and nothing of that signal is sent; a destination that declares no region is not refused, as a
 * model or tool without a `region` is not.
 */
function residencyProblem(d: Destination, region: string | undefined, residency: string | undefined, signal: Signal): Destination {
  if (!residency || !region || d.exporter !== 'otlp' || withinResidency(region, residency)) return d;
  const { protocol: _p, ...rest } = d;
  return { ...rest, problem: `the ${signal} collector is in region '${region}', outside policies.data_residency '${residency}': nothing is sent there (declare a collector in '${residency}')` };
}

/** Where one signal of one agent goes, resolved (tenant, then agent, then OTEL_*; agents narrow, never redirect). */
export interface Destination {
  exporter: 'otlp' | 'console';
  endpoint?: string;
  /** Static headers from OTEL_EXPORTER_OTLP_(SIGNAL_)HEADERS (never logged). */
  headers: Record<string, string>;
  /** Undefined: the variables named a protocol this worker cannot speak (`problem` says which). */
  protocol?: OtlpProtocol;
  auth: { type: 'none' | 'bearer' | 'mtls'; credentials_ref?: string };
  /** Why part of the agent's section is not followed, or why nothing is sent (for the worker log). */
  problem?: string;
  sampling_rate?: number;
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const authOf = (a: unknown): Destination['auth'] => {
  const o = asObj(a) ?? {};
  return { type: o.type === 'bearer' || o.type === 'mtls' ? o.type : 'none', ...(typeof o.credentials_ref === 'string' ? { credentials_ref: o.credentials_ref } : {}) };
};
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/**
 * Whether a signal is on for an agent and where it goes. Off when
 * OTEL_SDK_DISABLED=true or the agent's section says `enabled: false` / `exporter: none`. On when
 * the section says `enabled: true`, or, with no such switch, when the platform configured a
 * destination (the tenant's `telemetry`, or an OTEL_* endpoint for the signal). Destination: the
 * agent's `exporter: console`; else the tenant's collector (an agent endpoint that differs is not
 * followed: agents narrow the tenant's telemetry, never redirect it); else the agent's endpoint;
 * else the OTEL_* one. `sampling_rate` is the lower of the tenant's and the agent's.
 */
export function destinationOf(section: unknown, signal: Signal, platform: Platform | undefined): Destination | undefined {
  const d = resolvedDestination(section, signal, platform);
  if (!d) return d;
  const sec = asObj(section);
  const ten = asObj(platform?.tenant);
  const fromTenant = !!ten && ten.exporter !== 'none' && !!str(ten.endpoint) && d.endpoint === withSignalPath(str(ten.endpoint) as string, signal, platform?.env.signals[signal]?.protocol);
  return residencyProblem(d, str(fromTenant ? ten?.region : sec?.region), platform?.residency, signal);
}

function resolvedDestination(section: unknown, signal: Signal, platform: Platform | undefined): Destination | undefined {
  const sec = asObj(section);
  const env = platform?.env;
  if (env?.disabled) return undefined;
  if (sec && (sec.enabled === false || sec.exporter === 'none')) return undefined;
  const ten = asObj(platform?.tenant);
  const tenOn = !!ten && ten.exporter !== 'none' && (ten.exporter === 'console' || !!str(ten.endpoint));
  const envT = env?.signals[signal];
  const envOn = !!envT && !envT.off && !!envT.endpoint;
  if (sec?.enabled !== true && !tenOn && !envOn) return undefined;
  const headers = envT?.headers ?? {};
  const unsupported = envT?.unsupported;
  const own = str(sec?.endpoint);
  const tenantRate = typeof ten?.sampling_rate === 'number' ? ten.sampling_rate : undefined;
  const rate = typeof sec?.sampling_rate === 'number' ? sec.sampling_rate : undefined;
  const sampling = tenOn && tenantRate !== undefined ? Math.min(tenantRate, rate ?? 1) : rate;
  const base = { headers, auth: { type: 'none' as const }, ...(sampling !== undefined ? { sampling_rate: sampling } : {}) };
  const proto = (): { protocol?: OtlpProtocol; problem?: string } => (unsupported ? { problem: unsupported } : { protocol: envT?.protocol ?? 'http/json' });
  if (sec?.exporter === 'console') return { ...base, exporter: 'console', auth: authOf(sec.auth) };
  if (tenOn && ten) {
    if (ten.exporter === 'console') return { ...base, exporter: 'console' };
    const endpoint = withSignalPath(str(ten.endpoint) as string, signal, envT?.protocol);
    const ignored = own && agentEndpoint(own, signal, envT?.protocol) !== endpoint
      ? `its own ${signal} endpoint is not followed: the tenant's telemetry sends to ${endpoint} (an agent may narrow the tenant's telemetry, not redirect it)`
      : undefined;
    const p = proto();
    return {
      ...base,
      exporter: 'otlp',
      endpoint,
      auth: str(ten.credentials_ref) ? { type: 'bearer', credentials_ref: str(ten.credentials_ref) } : { type: 'none' },
      ...(p.protocol ? { protocol: p.protocol } : {}),
      ...(p.problem ?? ignored ? { problem: p.problem ?? ignored } : {}),
    };
  }
  if (own) return { ...base, exporter: 'otlp', endpoint: agentEndpoint(own, signal, envT?.protocol), auth: authOf(sec?.auth), ...proto() };
  if (envOn && envT) return { ...base, exporter: 'otlp', endpoint: envT.endpoint, ...proto() };
  return { ...base, exporter: 'otlp', protocol: 'http/json' };
}

export interface TracingConfig extends Destination {
  sampling_rate: number;
  include_model_inputs: boolean;
  include_model_outputs: boolean;
  include_tool_args: IncludeMode;
  include_tool_results: IncludeMode;
  include_kb_chunks: boolean;
  /** W3C trace context to tools (a `traceparent` header) and sub-agent runs (they join the trace); the specification's default: true. */
  propagate_context: boolean;
}

const mode = (v: unknown, dflt: IncludeMode): IncludeMode => (v === 'full' || v === 'redacted' || v === 'none' ? v : dflt);

/**
 * The tracing settings, or undefined when the agent emits no spans: no section, `enabled` not
 * true (the Agent Definition Specification's master switch defaults to false), or `exporter: none`.
 */
export function tracingConfigOf(observability: JsonObject | undefined, platform?: Platform): TracingConfig | undefined {
  const dest = destinationOf(observability?.tracing, 'traces', platform);
  if (!dest) return undefined;
  const t = asObj(observability?.tracing) ?? {};
  return {
    ...dest,
    sampling_rate: dest.sampling_rate ?? 1,
    include_model_inputs: t.include_model_inputs === true,
    include_model_outputs: t.include_model_outputs !== false,
    include_tool_args: mode(t.include_tool_args, 'none'),
    include_tool_results: mode(t.include_tool_results, 'redacted'),
    include_kb_chunks: t.include_kb_chunks === true,
    propagate_context: t.propagate_context !== false,
  };
}

export interface MetricsConfig extends Destination {
  export_interval_ms: number;
  custom_dimensions: string[];
}

/**
 * An agent's `observability.metrics` (the Agent Definition Specification's field reference, metrics), or undefined when it
 * records none: no section, `enabled` not true (default false) or `exporter: none`.
 */
export function metricsConfigOf(observability: JsonObject | undefined, platform?: Platform): MetricsConfig | undefined {
  const dest = destinationOf(observability?.metrics, 'metrics', platform);
  if (!dest) return undefined;
  const m = asObj(observability?.metrics) ?? {};
  const interval = typeof m.export_interval_seconds === 'number' && m.export_interval_seconds > 0 ? m.export_interval_seconds : 60;
  return {
    ...dest,
    export_interval_ms: interval * 1000,
    custom_dimensions: Array.isArray(m.custom_dimensions) ? m.custom_dimensions.filter((d): d is string => typeof d === 'string') : [],
  };
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogsConfig extends Destination {
  level: LogLevel;
  structured: boolean;
  include_trace_context: boolean;
}

/**
 * An agent's `observability.logs` (the Agent Definition Specification's field reference, logs), or undefined when it emits
 * none: no section, `enabled` not true (default false) or `exporter: none`.
 */
export function logsConfigOf(observability: JsonObject | undefined, platform?: Platform): LogsConfig | undefined {
  const dest = destinationOf(observability?.logs, 'logs', platform);
  if (!dest) return undefined;
  const l = asObj(observability?.logs) ?? {};
  return {
    ...dest,
    level: l.level === 'debug' || l.level === 'warn' || l.level === 'error' ? l.level : 'info',
    structured: l.structured !== false,
    include_trace_context: l.include_trace_context !== false,
  };
}
