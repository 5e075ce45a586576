/**
 * Where the worker's telemetry goes, the OpenTelemetry way: the `OTEL_*` environment variables of
 * the OpenTelemetry specification (SDK environment variables and OTLP exporter configuration), the
 * tenant's `telemetry` block (tenant.md, compiled into every agent) and the agent's own
 * `observability` section, resolved per signal (traces, metrics, logs). Pure: no Temporal import,
 * no I/O; the env is a parameter.
 *
 * Endpoints follow the OTLP exporter rule: a per-signal endpoint (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
 * is used as-is; the base endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`, the tenant's `telemetry.endpoint`)
 * gets `v1/traces`, `v1/metrics` or `v1/logs` appended. An agent's per-signal endpoint that is a
 * bare base URL (no path) gets the signal path too; over `grpc` the base endpoint is used as-is (the
 * service is named by the gRPC method, not by a path). Headers are `key=value` pairs,
 * comma separated and URL-decoded, per-signal pairs overriding base ones. Protocol
 * (`OTEL_EXPORTER_OTLP_PROTOCOL`, per signal `OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL`): `http/json`,
 * `http/protobuf` and `grpc`, each sent by its own OpenTelemetry exporter (otlp-exporters.ts); any
 * other value is refused with a message naming the supported ones. Unnamed: `http/json`.
 */

export type Signal = 'traces' | 'metrics' | 'logs';
export const SIGNALS: readonly Signal[] = ['traces', 'metrics', 'logs'];
export type OtlpProtocol = 'http/json' | 'http/protobuf' | 'grpc';
/** The OTLP protocols of the specification, each with its exporter. */
export const SUPPORTED_PROTOCOLS: readonly OtlpProtocol[] = ['http/json', 'http/protobuf', 'grpc'];

/** One signal's destination as the environment names it. */
export interface EnvTarget {
  /** The full URL spans/metrics/log records are POSTed to (signal path already applied). */
  endpoint?: string;
  headers: Record<string, string>;
  /** The protocol the variables name; undefined when they name none (the caller's default applies). */
  protocol?: OtlpProtocol;
  /** The variables name a protocol this worker cannot speak (see `problems`): nothing is sent over OTLP. */
  unsupported?: string;
  /** `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER` / `OTEL_LOGS_EXPORTER` said `none`. */
  off: boolean;
}

export interface OtelEnv {
  /** `OTEL_SDK_DISABLED=true`: no signal is exported at all. */
  disabled: boolean;
  /** Resource attributes: `OTEL_RESOURCE_ATTRIBUTES`, then `service.name` from `OTEL_SERVICE_NAME` (default `agentloom`). */
  resource: Record<string, string>;
  signals: Record<Signal, EnvTarget>;
  /** Configuration problems, worded for the worker log (never holding a header value). */
  problems: string[];
}

const VAR: Record<Signal, string> = { traces: 'TRACES', metrics: 'METRICS', logs: 'LOGS' };

const get = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const v = env[name]?.trim();
  return v ? v : undefined;
};

const decode = (s: string): string | undefined => {
  try {
    return decodeURIComponent(s.trim());
  } catch {
    return undefined;
  }
};

/**
 * `key=value,key2=value2` with URL-decoded keys and values (the format of OTEL_EXPORTER_OTLP_HEADERS
 * and OTEL_RESOURCE_ATTRIBUTES); a pair without `=`, with an empty key or a bad %-escape is skipped,
 * and `problems` gets its position (never its text: a header may hold a key).
 */
export function parseKeyValues(raw: string | undefined, name = 'the list', problems?: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw) return out;
  raw.split(',').forEach((pair, i) => {
    if (!pair.trim()) return;
    const at = pair.indexOf('=');
    const key = at > 0 ? decode(pair.slice(0, at)) : undefined;
    const value = at > 0 ? decode(pair.slice(at + 1)) : undefined;
    if (!key || value === undefined) {
      problems?.push(`${name}: entry ${i + 1} is not a key=value pair (URL-encoded); it is skipped`);
      return;
    }
    out[key] = value;
  });
  return out;
}

/**
 * The base endpoint with the signal's path appended (`http://c:4318` → `http://c:4318/v1/traces`);
 * over grpc the base endpoint as it is (the OTLP exporter specification).
 */
export function withSignalPath(base: string, signal: Signal, protocol?: OtlpProtocol): string {
  return protocol === 'grpc' ? base : `${base.replace(/\/+$/, '')}/v1/${signal}`;
}

/** True when the URL has no path at all (`http://c:4318` or `http://c:4318/`). */
export function isBareUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.pathname === '/' || u.pathname === '';
  } catch {
    return false;
  }
}

/** An agent's (per-signal) endpoint: used as-is, except a bare base URL gets the signal path. */
export function agentEndpoint(url: string, signal: Signal, protocol?: OtlpProtocol): string {
  return isBareUrl(url) ? withSignalPath(url, signal, protocol) : url;
}

function validUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Reads the OpenTelemetry SDK and OTLP exporter variables this worker honours. */
export function readOtelEnv(env: NodeJS.ProcessEnv): OtelEnv {
  const problems: string[] = [];
  const resource: Record<string, string> = { 'service.name': 'agentloom', ...parseKeyValues(get(env, 'OTEL_RESOURCE_ATTRIBUTES'), 'OTEL_RESOURCE_ATTRIBUTES', problems) };
  const service = get(env, 'OTEL_SERVICE_NAME');
  if (service) resource['service.name'] = service;
  const baseHeaders = parseKeyValues(get(env, 'OTEL_EXPORTER_OTLP_HEADERS'), 'OTEL_EXPORTER_OTLP_HEADERS', problems);
  const base = get(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (base && !validUrl(base)) problems.push(`OTEL_EXPORTER_OTLP_ENDPOINT is not an http(s) URL; it is ignored`);
  const signals = {} as Record<Signal, EnvTarget>;
  for (const s of SIGNALS) {
    const protoVar = get(env, `OTEL_EXPORTER_OTLP_${VAR[s]}_PROTOCOL`) ? `OTEL_EXPORTER_OTLP_${VAR[s]}_PROTOCOL` : 'OTEL_EXPORTER_OTLP_PROTOCOL';
    const named = get(env, protoVar);
    let protocol: OtlpProtocol | undefined;
    let unsupported: string | undefined;
    if (named !== undefined) {
      if ((SUPPORTED_PROTOCOLS as readonly string[]).includes(named)) protocol = named as OtlpProtocol;
      else {
        unsupported = `${protoVar}=${named} is not an OTLP protocol; supported: ${SUPPORTED_PROTOCOLS.join(', ')}`;
        problems.push(`${unsupported}; no ${s} are sent over OTLP`);
      }
    }
    const own = get(env, `OTEL_EXPORTER_OTLP_${VAR[s]}_ENDPOINT`);
    let endpoint: string | undefined;
    if (own && validUrl(own)) endpoint = own;
    else if (own) problems.push(`OTEL_EXPORTER_OTLP_${VAR[s]}_ENDPOINT is not an http(s) URL; it is ignored`);
    if (!endpoint && base && validUrl(base)) endpoint = withSignalPath(base, s, protocol);
    const exporter = get(env, `OTEL_${VAR[s]}_EXPORTER`);
    signals[s] = {
      ...(endpoint ? { endpoint } : {}),
      headers: { ...baseHeaders, ...parseKeyValues(get(env, `OTEL_EXPORTER_OTLP_${VAR[s]}_HEADERS`), `OTEL_EXPORTER_OTLP_${VAR[s]}_HEADERS`, problems) },
      ...(protocol ? { protocol } : {}),
      ...(unsupported ? { unsupported } : {}),
      off: exporter === 'none',
    };
  }
  return { disabled: get(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true', resource, signals, problems };
}
