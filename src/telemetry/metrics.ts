/**
 * OpenTelemetry metrics of agent runs (the Agent Definition Specification's observability.metrics): its instruments,
 * recorded at the same replay-safe points as the spans (the activity interceptor and the
 * `agent.run` sink in src/telemetry/tracing.ts), and pushed over OTLP (the protocol the OTEL_* variables name) to the agent's
 * `metrics.endpoint` every `export_interval_seconds`. Every data point carries agent_id and version
 * plus the `custom_dimensions` that resolve from the run (agent_id, version, model_id, tenant_id);
 * others are dropped, as the Agent Definition Specification says. agent.run.loops (model turns scheduled) and
 * agent.run.input_chars come from the workflow interceptor's counts in the run-end sink call;
 * agent.tool.approval_wait from the react workflow's `approvalDecided` sink call. Not recorded:
 * time-to-first-byte.
 */
import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';
import { ConsoleMetricExporter, MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { CompiledAgent } from '../compiled/types';
import { otlpHeaders } from './auth';
import { otlpMetricExporter } from './otlp-exporters';
import { readOtelEnv, type OtelEnv } from './otel-env';
import { metricsConfigOf, platformOf, type MetricsConfig } from './config';
import type { RunSpanStatus } from '../shared/tracing-sinks';

interface Instruments {
  runCount: Counter;
  runDuration: Histogram;
  runLoops: Histogram;
  runInputChars: Histogram;
  inputTokens: Counter;
  outputTokens: Counter;
  modelLatency: Histogram;
  modelErrors: Counter;
  toolInvocations: Counter;
  toolLatency: Histogram;
  toolErrors: Counter;
  guardrailTriggered: Counter;
  guardrailLatency: Histogram;
  approvalWait: Histogram;
}

function instruments(m: Meter): Instruments {
  return {
    runCount: m.createCounter('agent.run.count', { description: 'Total number of runs, by status' }),
    runDuration: m.createHistogram('agent.run.duration', { unit: 'ms', description: 'End-to-end run latency' }),
    runLoops: m.createHistogram('agent.run.loops', { description: 'Agent-loop iterations (model turns) per run' }),
    runInputChars: m.createHistogram('agent.run.input_chars', { description: 'Size of the raw input payload in characters' }),
    inputTokens: m.createCounter('agent.model.input_tokens', { description: 'Input tokens across model invocations' }),
    outputTokens: m.createCounter('agent.model.output_tokens', { description: 'Output tokens across model invocations' }),
    modelLatency: m.createHistogram('agent.model.latency', { unit: 'ms', description: 'Time to last byte of each model invocation' }),
    modelErrors: m.createCounter('agent.model.errors', { description: 'Model API errors, by error_type' }),
    toolInvocations: m.createCounter('agent.tool.invocations', { description: 'Tool calls, by tool_id and outcome' }),
    toolLatency: m.createHistogram('agent.tool.latency', { unit: 'ms', description: 'Execution time per tool call' }),
    toolErrors: m.createCounter('agent.tool.errors', { description: 'Tool errors by tool_id and error_type' }),
    guardrailTriggered: m.createCounter('agent.guardrail.triggered', { description: 'Guardrail activations by guardrail_id, phase and action' }),
    guardrailLatency: m.createHistogram('agent.guardrail.latency', { unit: 'ms', description: 'Evaluation time per guardrail' }),
    approvalWait: m.createHistogram('agent.tool.approval_wait', { unit: 'ms', description: 'Time a tool call waited for a human approval decision, by tool_id and decision' }),
  };
}

interface Exporting {
  provider: MeterProvider;
  inst: Instruments;
}

/** A model error's error_type (the Agent Definition Specification: rate_limit / timeout / unavailable / other). */
export function modelErrorType(e: unknown): string {
  const text = `${(e as { type?: string })?.type ?? ''} ${(e as Error)?.message ?? String(e)}`.toLowerCase();
  if (/rate.?limit|429/.test(text)) return 'rate_limit';
  if (/timeout|timed out|deadline/.test(text)) return 'timeout';
  if (/unavailable|503|502|econnrefused|econnreset/.test(text)) return 'unavailable';
  return 'other';
}

/** The custom dimensions that resolve from a run; unresolvable keys are dropped (the Agent Definition Specification). */
function dimensions(agent: CompiledAgent, cfg: MetricsConfig, modelId?: string): Attributes {
  const known: Record<string, string | undefined> = {
    agent_id: agent.agent_id,
    version: agent.version,
    model_id: modelId ?? agent.runtime.model.model_id,
    tenant_id: agent.tenant?.tenant_id,
  };
  const out: Attributes = { agent_id: agent.agent_id, version: agent.version };
  for (const d of cfg.custom_dimensions) if (known[d] !== undefined) out[d] = known[d];
  return out;
}

export class AgentMetrics {
  private readonly exporting = new Map<string, Exporting>();

  constructor(private readonly logOnce: (m: string) => void, private readonly log: (m: string) => void, private readonly env?: NodeJS.ProcessEnv, private readonly otel: OtelEnv = readOtelEnv(env ?? process.env)) {}

  /** The agent's instruments and base attributes, or undefined when it records no metrics. */
  forAgent(agent: CompiledAgent): { inst: Instruments; attrs: (modelId?: string) => Attributes } | undefined {
    const cfg = metricsConfigOf(agent.observability, platformOf(agent, this.otel));
    if (!cfg) return undefined;
    const out = this.exportingFor(agent, cfg);
    return out && { inst: out.inst, attrs: (modelId?: string) => dimensions(agent, cfg, modelId) };
  }

  runEnded(agent: CompiledAgent, status: RunSpanStatus, latencyMs: number, loops?: number, inputChars?: number): void {
    const m = this.forAgent(agent);
    if (!m) return;
    m.inst.runCount.add(1, { ...m.attrs(), status });
    m.inst.runDuration.record(latencyMs, { ...m.attrs(), status });
    if (typeof loops === 'number') m.inst.runLoops.record(loops, m.attrs());
    if (typeof inputChars === 'number') m.inst.runInputChars.record(inputChars, m.attrs());
  }

  model(agent: CompiledAgent, modelId: string, usage: { prompt_tokens?: number; completion_tokens?: number } | undefined, error: unknown, latencyMs: number): void {
    const m = this.forAgent(agent);
    if (!m) return;
    const attrs = m.attrs(modelId);
    if (error) m.inst.modelErrors.add(1, { ...attrs, error_type: modelErrorType(error) });
    else {
      m.inst.inputTokens.add(usage?.prompt_tokens ?? 0, attrs);
      m.inst.outputTokens.add(usage?.completion_tokens ?? 0, attrs);
    }
    m.inst.modelLatency.record(latencyMs, attrs);
  }

  tool(agent: CompiledAgent, toolId: string, outcome: 'success' | 'error', error: unknown, latencyMs: number): void {
    const m = this.forAgent(agent);
    if (!m) return;
    const attrs = { ...m.attrs(), tool_id: toolId };
    m.inst.toolInvocations.add(1, { ...attrs, outcome });
    m.inst.toolLatency.record(latencyMs, attrs);
    if (outcome === 'error') m.inst.toolErrors.add(1, { ...attrs, error_type: error ? 'exception' : 'tool_error' });
  }

  guardrails(agent: CompiledAgent, phase: string, results: { ref: string; passed: boolean; action: string }[], latencyMs: number): void {
    const m = this.forAgent(agent);
    if (!m) return;
    for (const r of results) {
      const attrs = { ...m.attrs(), guardrail_id: r.ref };
      m.inst.guardrailLatency.record(latencyMs, attrs);
      if (!r.passed) m.inst.guardrailTriggered.add(1, { ...attrs, phase, action: r.action });
    }
  }

  approvalWait(agent: CompiledAgent, toolId: string, decision: string, waitMs: number): void {
    const m = this.forAgent(agent);
    if (!m) return;
    m.inst.approvalWait.record(waitMs, { ...m.attrs(), tool_id: toolId, decision });
  }

  async forceFlush(): Promise<void> {
    await Promise.all([...this.exporting.values()].map((e) => e.provider.forceFlush().catch(() => undefined)));
  }

  async shutdown(): Promise<void> {
    await Promise.all([...this.exporting.values()].map((e) => e.provider.shutdown().catch(() => undefined)));
    this.exporting.clear();
  }

  private exportingFor(agent: CompiledAgent, cfg: MetricsConfig): Exporting | undefined {
    const who = `agent ${agent.agent_id}`;
    let headers: Record<string, string> = {};
    if (cfg.exporter === 'otlp') {
      if (!cfg.endpoint) {
        this.logOnce(`metrics: ${who} exports over otlp without an endpoint; no metrics are sent`);
        return undefined;
      }
      if (!cfg.protocol) {
        this.logOnce(`metrics: ${who}: ${cfg.problem ?? 'no supported OTLP protocol'}; no metrics are sent`);
        return undefined;
      }
      if (cfg.problem) this.logOnce(`metrics: ${who}: ${cfg.problem}`);
      const auth = otlpHeaders(cfg.auth, agent.tenant?.secrets, this.env);
      if ('problem' in auth) {
        this.logOnce(`metrics: ${who}: ${auth.problem}; no metrics are sent`);
        return undefined;
      }
      headers = { ...cfg.headers, ...auth.headers };
    }
    const key = `${cfg.exporter}\n${cfg.protocol ?? ''}\n${cfg.endpoint ?? ''}\n${cfg.export_interval_ms}\n${JSON.stringify(headers)}`;
    const known = this.exporting.get(key);
    if (known) return known;
    const inner: PushMetricExporter = cfg.exporter === 'console' ? new ConsoleMetricExporter() : otlpMetricExporter({ protocol: cfg.protocol ?? 'http/json', url: cfg.endpoint ?? '', headers, timeoutMillis: 5000 });
    const where = cfg.endpoint ?? 'console';
    const exporter: PushMetricExporter = {
      export: (metrics, done) => inner.export(metrics, (r) => {
        if (r.code !== 0) this.log(`metrics: exporting to ${where} failed: ${r.error?.message ?? 'unknown error'}`);
        done(r);
      }),
      forceFlush: () => inner.forceFlush(),
      shutdown: () => inner.shutdown(),
      ...(inner.selectAggregationTemporality ? { selectAggregationTemporality: inner.selectAggregationTemporality.bind(inner) } : {}),
    };
    const provider = new MeterProvider({
      resource: new Resource(this.otel.resource),
      readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: cfg.export_interval_ms, exportTimeoutMillis: Math.min(5000, cfg.export_interval_ms) })],
    });
    const made = { provider, inst: instruments(provider.getMeter('agentloom')) };
    this.exporting.set(key, made);
    return made;
  }
}
