/**
 * OpenTelemetry log records of agent runs (the Agent Definition Specification's observability.logs), emitted at the same
 * replay-safe points as the spans and metrics (src/telemetry/tracing.ts): run start and end (info;
 * a refused or failed run at error), guardrail evaluations (warn when triggered, debug when not) and
 * model fallbacks and activity retries (warn). Records below `level` are dropped; `structured`
 * sends the body as a key/value map (else one text line); `include_trace_context` gives each record
 * the run's trace id (the caller's, for a sub-agent run that joined its caller's trace) and `agent.run` span id. Pushed over OTLP (the protocol the OTEL_* variables name) to `logs.endpoint`.
 * Tool approvals come from the react workflow's sinks (run-sinks.ts): `approval.requested` when a
 * call waits for a human, `approval` with its outcome (warn when it timed out).
 */
import { ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { SeverityNumber, type AnyValueMap, type Logger } from '@opentelemetry/api-logs';
import { Resource } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, ConsoleLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import type { CompiledAgent } from '../compiled/types';
import { otlpHeaders } from './auth';
import { otlpLogExporter } from './otlp-exporters';
import { readOtelEnv, type OtelEnv } from './otel-env';
import { logsConfigOf, platformOf, type LogLevel, type LogsConfig } from './config';
import { runSpanId, runTraceId } from './trace-ids';

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const SEVERITY: Record<LogLevel, SeverityNumber> = { debug: SeverityNumber.DEBUG, info: SeverityNumber.INFO, warn: SeverityNumber.WARN, error: SeverityNumber.ERROR };

interface Exporting {
  provider: LoggerProvider;
  logger: Logger;
}

export class AgentLogs {
  private readonly exporting = new Map<string, Exporting>();

  constructor(private readonly logOnce: (m: string) => void, private readonly log: (m: string) => void, private readonly env?: NodeJS.ProcessEnv, private readonly otel: OtelEnv = readOtelEnv(env ?? process.env)) {}

  /** One record for `agent`'s run, when its logs section is on and `level` lets it through. */
  emit(agent: CompiledAgent, run: { workflowId: string; runId: string; traceId?: string }, level: LogLevel, event: string, fields: Record<string, string | number | boolean | undefined> = {}): void {
    const cfg = logsConfigOf(agent.observability, platformOf(agent, this.otel));
    if (!cfg || RANK[level] < RANK[cfg.level]) return;
    const out = this.exportingFor(agent, cfg);
    if (!out) return;
    const attrs: AnyValueMap = { agent_id: agent.agent_id, version: agent.version, workflow_id: run.workflowId, run_id: run.runId, event };
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) attrs[k] = v;
    const text = `${event} ${Object.entries(attrs).filter(([k]) => k !== 'event').map(([k, v]) => `${k}=${String(v)}`).join(' ')}`;
    const context = cfg.include_trace_context
      ? trace.setSpanContext(ROOT_CONTEXT, { traceId: run.traceId ?? runTraceId(run.workflowId, run.runId), spanId: runSpanId(run.workflowId, run.runId), traceFlags: TraceFlags.SAMPLED, isRemote: true })
      : ROOT_CONTEXT;
    out.logger.emit({ severityNumber: SEVERITY[level], severityText: level.toUpperCase(), body: cfg.structured ? attrs : text, attributes: attrs, context });
  }

  async forceFlush(): Promise<void> {
    await Promise.all([...this.exporting.values()].map((e) => e.provider.forceFlush().catch(() => undefined)));
  }

  async shutdown(): Promise<void> {
    await Promise.all([...this.exporting.values()].map((e) => e.provider.shutdown().catch(() => undefined)));
    this.exporting.clear();
  }

  /** Failed exports are reported to the worker log: a run never fails on them. */
  private logged(inner: LogRecordExporter, where: string): LogRecordExporter {
    return {
      export: (records, done) => inner.export(records, (r) => {
        if (r.code !== 0) this.log(`logs: exporting ${records.length} record(s) to ${where} failed: ${r.error?.message ?? 'unknown error'}`);
        done(r);
      }),
      shutdown: () => inner.shutdown(),
    };
  }

  private exportingFor(agent: CompiledAgent, cfg: LogsConfig): Exporting | undefined {
    const who = `agent ${agent.agent_id}`;
    let headers: Record<string, string> = {};
    if (cfg.exporter === 'otlp') {
      if (!cfg.endpoint) {
        this.logOnce(`logs: ${who} exports over otlp without an endpoint; no log records are sent`);
        return undefined;
      }
      if (!cfg.protocol) {
        this.logOnce(`logs: ${who}: ${cfg.problem ?? 'no supported OTLP protocol'}; no log records are sent`);
        return undefined;
      }
      if (cfg.problem) this.logOnce(`logs: ${who}: ${cfg.problem}`);
      const auth = otlpHeaders(cfg.auth, agent.tenant?.secrets, this.env);
      if ('problem' in auth) {
        this.logOnce(`logs: ${who}: ${auth.problem}; no log records are sent`);
        return undefined;
      }
      headers = { ...cfg.headers, ...auth.headers };
    }
    const key = `${cfg.exporter}\n${cfg.protocol ?? ''}\n${cfg.endpoint ?? ''}\n${JSON.stringify(headers)}`;
    const known = this.exporting.get(key);
    if (known) return known;
    const provider = new LoggerProvider({ resource: new Resource(this.otel.resource) });
    provider.addLogRecordProcessor(cfg.exporter === 'console'
      ? new SimpleLogRecordProcessor(new ConsoleLogRecordExporter())
      : new BatchLogRecordProcessor(this.logged(otlpLogExporter({ protocol: cfg.protocol ?? 'http/json', url: cfg.endpoint ?? '', headers, timeoutMillis: 5000 }), cfg.endpoint ?? ''), { scheduledDelayMillis: 1000, exportTimeoutMillis: 5000 }));
    const made = { provider, logger: provider.getLogger('agentloom') };
    this.exporting.set(key, made);
    return made;
  }
}
