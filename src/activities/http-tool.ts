/**
 * The http tool (`kind: http`): URL template filled from URL-encoded arguments, the rest as query
 * string (GET, or `body: none`) or JSON body; headers from env vars (`value_env`); an
 * `Idempotency-Key` header on non-GET; a W3C `traceparent` when the agent traces and propagates
 * context (src/platform/trace-context.ts); the network policy (src/governance/network.ts) checked
 * before connecting, and the connection made to the checked addresses only (DNS-rebinding safe).
 */
import * as http from 'http';
import * as https from 'https';
import { ApplicationFailure } from '@temporalio/common';
import type { JsonObject, JsonValue } from '../compiled/types';
import { classifyFailure, toApplicationFailure } from './errors';
import { checkHttpTarget, guardedLookup, NetPolicy, Resolver, systemResolver } from '../governance/network';
import type { ExternalToolContext } from './react-tools';
import { currentTraceHeaders } from '../platform/trace-context';

export interface ToolExecutorOptions {
  /** DNS resolver for http tools (tests inject one); the system resolver by default. */
  resolver?: Resolver;
  /** Where `value_env` headers are read from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Response bodies are read up to this many bytes (default 256 KiB). */
  maxResponseBytes?: number;
  /** When the tool sets no timeout_seconds (default 30). */
  defaultTimeoutSeconds?: number;
}

const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024;
const MAX_TIMEOUT_SECONDS = 540; // below runTool's 10-minute bound on a tool's run (TOOL_RUN_LIMIT_MS)

function queryValue(v: JsonValue): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** Fill `{name}` placeholders (path and query only) from URL-encoded arguments; returns the unused arguments. */
export function fillUrlTemplate(template: string, args: JsonObject): { url: URL; rest: JsonObject } {
  const used = new Set<string>();
  const originEnd = (() => {
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(template);
    return m ? m[0].length : 0;
  })();
  const filled = template.replace(/\{([A-Za-z_][\w.-]*)\}/g, (_m, name: string, offset: number) => {
    if (offset < originEnd) throw new Error(`URL template '${template}': placeholders are only allowed in the path and query, not in the scheme or host`);
    const v = args[name];
    if (v === undefined || v === null) throw new Error(`missing argument '${name}' for the URL template`);
    used.add(name);
    return encodeURIComponent(queryValue(v));
  });
  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    throw new Error(`invalid URL '${template}' in the tool definition`);
  }
  const rest: JsonObject = {};
  for (const [k, v] of Object.entries(args)) if (!used.has(k)) rest[k] = v;
  return { url, rest };
}

function appendQuery(url: URL, rest: JsonObject): void {
  for (const [k, v] of Object.entries(rest)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) url.searchParams.append(k, queryValue(item));
    else url.searchParams.append(k, queryValue(v));
  }
}

function redactor(secrets: string[]): (s: string) => string {
  const list = secrets.filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  return (s) => list.reduce((acc, sec) => acc.split(sec).join('[redacted]'), s);
}

function flatHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

const TRANSIENT_DNS = new Set(['EAI_AGAIN', 'ETIMEOUT', 'ESERVFAIL', 'ECONNREFUSED', 'ETIMEDOUT']);

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
}

export async function executeHttpTool(ctx: ExternalToolContext, opts: ToolExecutorOptions): Promise<unknown> {
  const tool = ctx.tool;
  const cfg = tool.http;
  if (!cfg) throw ApplicationFailure.nonRetryable(`tool ${tool.tool_id} has kind http but no http block`, 'ToolMisconfigured');
  const env = opts.env ?? process.env;
  const method = String(cfg.method ?? 'GET').toUpperCase();
  const { url, rest } = fillUrlTemplate(cfg.url, ctx.args ?? {});
  const hasBody = method !== 'GET' && method !== 'HEAD' && cfg.body !== 'none';
  if (!hasBody) appendQuery(url, rest);
  // Errors name the origin and path only: query strings carry arguments.
  const endpoint = `tool ${tool.tool_id} (${method} ${url.origin}${url.pathname})`;

  const { headers, secrets, credentialEnvs } = requestHeaders(tool.tool_id, cfg.headers, env);
  const redact = redactor(secrets);
  let body: Buffer | undefined;
  if (hasBody) {
    body = Buffer.from(JSON.stringify(rest));
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  if (method !== 'GET' && method !== 'HEAD') headers['idempotency-key'] = ctx.idempotencyKey;

  // Network policy: host allowlist, then every resolved address; the connection uses only those addresses.
  const policy: NetPolicy = {
    allowExternalHttp: ctx.allowExternalHttp ?? false,
    allowedHosts: cfg.allowed_hosts,
    allowPrivateNetwork: cfg.allow_private_network ?? false,
  };
  const resolve = opts.resolver ?? systemResolver;
  let dnsError: NodeJS.ErrnoException | undefined;
  const target = await checkHttpTarget(url.href, policy, async (h) => {
    try {
      return await resolve(h);
    } catch (e) {
      dnsError = e as NodeJS.ErrnoException;
      throw e;
    }
  });
  if (!target.ok) {
    if (dnsError && TRANSIENT_DNS.has(String(dnsError.code))) {
      throw toApplicationFailure(classifyFailure({ kind: 'connection', endpoint, message: target.reason, subject: 'tool' }));
    }
    throw ApplicationFailure.nonRetryable(`${endpoint}: ${target.reason}`, dnsError ? 'ToolHostNotFound' : 'ToolPolicyBlocked');
  }
  const pinned = target.addresses;
  const lookup = guardedLookup(policy, async () => pinned);

  const timeoutS = Math.min(MAX_TIMEOUT_SECONDS, Math.max(0.05, cfg.timeout_seconds ?? opts.defaultTimeoutSeconds ?? 30));
  const maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (ctx.signal?.aborted) throw cancelledError(ctx.signal);
  const res = await new Promise<RawResponse>((resolveP, rejectP) => {
    const ac = new AbortController();
    let why: 'timeout' | 'cancel' | undefined;
    const timer = setTimeout(() => {
      why = 'timeout';
      ac.abort();
    }, timeoutS * 1000);
    const onCancel = (): void => {
      why = 'cancel';
      ac.abort();
    };
    ctx.signal?.addEventListener('abort', onCancel, { once: true });
    let settled = false;
    const finish = (err: unknown, r?: RawResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ctx.signal?.removeEventListener('abort', onCancel);
      if (r) return resolveP(r);
      if (why === 'cancel' && ctx.signal) return rejectP(cancelledError(ctx.signal));
      if (why === 'timeout') {
        return rejectP(toApplicationFailure(classifyFailure({ kind: 'timeout', endpoint, message: `no complete response within ${timeoutS} s`, subject: 'tool' })));
      }
      const e = err as NodeJS.ErrnoException;
      if (e?.code === 'EPOLICY') return rejectP(ApplicationFailure.nonRetryable(`${endpoint}: ${e.message}`, 'ToolPolicyBlocked'));
      const msg = redact(`${e?.code ? `${e.code}: ` : ''}${e?.message ?? String(err)}`);
      return rejectP(toApplicationFailure(classifyFailure({ kind: 'connection', endpoint, message: msg, subject: 'tool' })));
    };
    const lib = url.protocol === 'https:' ? https : http;
    let req: http.ClientRequest;
    try {
      req = lib.request(url, { method, headers, lookup, agent: false, signal: ac.signal });
    } catch (e) {
      return finish(e);
    }
    req.on('error', (e) => finish(e));
    req.on('response', (r) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const done = (): void =>
        finish(undefined, { status: r.statusCode ?? 0, headers: flatHeaders(r.headers), body: Buffer.concat(chunks), truncated });
      r.on('data', (c: Buffer) => {
        if (truncated) return;
        ctx.heartbeat();
        if (size + c.length > maxBytes) {
          chunks.push(c.subarray(0, maxBytes - size));
          size = maxBytes;
          truncated = true;
          done();
          r.destroy();
          return;
        }
        chunks.push(c);
        size += c.length;
      });
      r.on('end', done);
      r.on('error', (e) => finish(e));
      r.on('aborted', () => finish(new Error('the response was cut off')));
    });
    req.end(body);
  });

  return toolResult(res, { endpoint, maxBytes, redact, credentialEnvs });
}

/** The request's headers: ours, the trace context, and the tool's own (values from env vars are secrets, redacted from errors). */
function requestHeaders(toolId: string, declared: NonNullable<ExternalToolContext['tool']['http']>['headers'], env: NodeJS.ProcessEnv): { headers: Record<string, string>; secrets: string[]; credentialEnvs: string[] } {
  const headers: Record<string, string> = {
    'user-agent': 'agentloom-tool/1',
    accept: 'application/json, text/*;q=0.9, */*;q=0.5',
    connection: 'close',
    // W3C traceparent of this call's agent.tool_call span when the agent propagates context (src/platform/trace-context.ts).
    ...currentTraceHeaders(),
  };
  const secrets: string[] = [];
  const credentialEnvs: string[] = [];
  for (const [name, h] of Object.entries(declared ?? {})) {
    let v: string | undefined;
    if (h?.value_env) {
      v = env[h.value_env];
      if (v === undefined || v === '') {
        throw ApplicationFailure.nonRetryable(`tool ${toolId}: header '${name}' reads env var ${h.value_env}, which is not set in the worker's environment`, 'ToolMisconfigured');
      }
      secrets.push(v);
      credentialEnvs.push(h.value_env);
    } else if (h?.value !== undefined) {
      v = String(h.value);
    }
    if (v === undefined) continue;
    if (/[\r\n\0]/.test(v)) throw ApplicationFailure.nonRetryable(`tool ${toolId}: header '${name}' has a value with line breaks`, 'ToolMisconfigured');
    headers[name.toLowerCase()] = v;
  }
  return { headers, secrets, credentialEnvs };
}

/** What the model sees: a 2xx body (JSON parsed when declared so, cut at maxBytes), else a failure classified for retry. */
function toolResult(res: RawResponse, o: { endpoint: string; maxBytes: number; redact: (s: string) => string; credentialEnvs: string[] }): unknown {
  const { endpoint, maxBytes, redact, credentialEnvs } = o;
  const text = redact(res.body.toString('utf8'));
  if (res.status >= 200 && res.status < 300) {
    if (res.body.length === 0) return `HTTP ${res.status} (empty body)`;
    const ct = (res.headers['content-type'] ?? '').toLowerCase();
    if (res.truncated) return `${text}\n…[truncated: the response exceeded ${maxBytes} bytes]`;
    if (/^application\/([\w.-]+\+)?json\b|^text\/json\b/.test(ct)) {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    }
    return text;
  }
  if (res.status >= 300 && res.status < 400) {
    const loc = res.headers.location ? ` to ${redact(res.headers.location)}` : '';
    throw ApplicationFailure.nonRetryable(`${res.status} from ${endpoint}: redirect${loc} not followed (http tools do not follow redirects; fix the tool URL)`, `ToolHttp${res.status}`);
  }
  throw toApplicationFailure(
    classifyFailure({
      kind: 'http',
      status: res.status,
      headers: res.headers,
      message: text,
      endpoint,
      subject: 'tool',
      ...(credentialEnvs.length ? { credentialEnv: credentialEnvs.join(', ') } : {}),
    }),
  );
}

function cancelledError(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new Error('the tool call was cancelled');
}
