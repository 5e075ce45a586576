/**
 * OpenTelemetry traces (and, through src/telemetry/metrics.ts and logs.ts, metrics and log
 * records) of agent runs (seed 001 observability, issue 11.8), emitted only on the worker side and
 * never during replay:
 *
 *   agent.run               the workflow interceptor's `agentloomTracing.runEnded` sink call
 *                           (src/telemetry/workflow-interceptor.ts) when a run ends
 *   agent.model_invocation  an activity interceptor around `modelTurn`
 *   agent.tool_call         an activity interceptor around `runTool`
 *   agent.kb_retrieval      a child of the tool call when the tool is the `search_knowledge` builtin
 *   agent.guardrail         one per guardrail evaluated by `runGuardrails`
 *
 * Activity spans are parented to `agent.run` through deterministic ids (trace-ids.ts), so the
 * workflow carries nothing. With `propagate_context` (default true) a tool call's HTTP request
 * carries a W3C `traceparent` naming its `agent.tool_call` span (propagation.ts), and a sub-agent
 * run (any agent run whose Temporal parent is an agent run that traces and propagates) joins its
 * parent's trace under the parent's `agent.run` span, found by describing the parent (decisions
 * 287, 288). Spans go over OTLP/HTTP (JSON) to the agent's compiled
 * `observability.tracing.endpoint`, with `Authorization: Bearer <secret>` when
 * `auth.type: bearer` (the secret is read here, from the tenant's secret store, never put in a
 * payload). An export failure is logged and never fails a run.
 */
import * as path from 'path';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  RandomIdGenerator,
  SimpleSpanProcessor,
  type IdGenerator,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { Runtime, type ActivityInboundCallsInterceptor, type ActivityInterceptorsFactory, type InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { Client } from '@temporalio/client';
import { BundleCache } from '../activities/agent-loader';
import { openBlobStore, type BlobStore } from '../activities/blob-store';
import { MessageStore } from '../activities/message-store';
import { otlpHeaders } from './auth';
import type { CompiledAgent, JsonObject, JsonValue } from '../compiled/types';
import { redactArgs } from '../governance/sensitive';
import { redactJson, redactText } from '../governance/pii';
import { SEARCH_ATTRIBUTES, type BlobRef } from '../shared/contract';
import { logsConfigOf, metricsConfigOf, tracingConfigOf, type Platform, type TracingConfig } from './config';
import { readOtelEnv, type OtelEnv } from './otel-env';
import { AgentLogs } from './logs';
import { AgentMetrics } from './metrics';
import type { AgentloomTracingSinks, ApprovalDecidedEvent, RunEndedEvent, RunStartedEvent } from '../shared/tracing-sinks';
import { isRunSampled, modelInputsAttribute, toolArgsAttribute } from './span-content';
import { formatTraceparent, runSpanId, runTraceId } from './trace-ids';
import { withTraceHeaders } from '../platform/trace-context';

/** The workflow interceptor module to bundle with the workflows (WorkerOptions.interceptors.workflowModules / bundleWorkflowCode). */
export const TRACING_WORKFLOW_MODULE = path.join(__dirname, 'workflow-interceptor');

/** How long one OTLP export may take before it is abandoned (and logged). */
export const EXPORT_TIMEOUT_MS = 5000;

/** The activities that get a span, by activity type. */
const SPANNED = { modelTurn: 'agent.model_invocation', runTool: 'agent.tool_call', runGuardrails: 'agent.guardrail' } as const;
type Spanned = keyof typeof SPANNED;

export interface AgentTracingOptions {
  /** The store the activities read bundles and messages from (default: openBlobStore()). */
  store?: BlobStore;
  /** Batch delay before spans are exported (default 1000 ms). */
  scheduledDelayMillis?: number;
  /** Where export and configuration problems are reported (default: the worker's logger, else stderr). */
  log?: (message: string) => void;
  /** Where bearer secrets with an `env` location and the OTEL_* variables are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * The Temporal client used to describe a run's parent (sub-agent runs join their parent's trace).
   * Default: the one given to useClient (createAgentloomWorker gives the worker's), else the client
   * of the first activity this worker runs.
   */
  client?: Client;
}

/** Which trace a run's spans go to, under which parent span, and whether they are recorded (decision 288). */
interface RunTrace {
  traceId: string;
  /** The caller's `agent.run` span, for a run that joined its caller's trace. */
  parentSpanId?: string;
  sampled: boolean;
}

interface RunRef { workflowId: string; runId: string }

/** What describing a run tells about it: its agent (the AgentId search attribute) and its Temporal parent. */
interface Described { agentId?: string; parent?: RunRef }

const runKey = (r: RunRef): string => `${r.workflowId}\n${r.runId}`;
/** Runs remembered per map before it starts afresh (a worker lives long; a trace lookup is cheap to redo). */
const REMEMBERED_RUNS = 10_000;
/** Sub-agent nesting followed up to this depth (a deeper run starts its own trace). */
const MAX_NESTING = 32;

/** Lets the `agent.run` span take the run's deterministic ids; every other span gets random ones. */
class RunIdGenerator implements IdGenerator {
  next: { traceId: string; spanId: string } | undefined;
  private readonly random = new RandomIdGenerator();
  generateTraceId(): string {
    return this.next?.traceId ?? this.random.generateTraceId();
  }
  generateSpanId(): string {
    return this.next?.spanId ?? this.random.generateSpanId();
  }
}

/** Reports failed exports (a collector down, a 401) to the log: a run never fails on them. */
class LoggedExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter, private readonly where: string, private readonly log: (m: string) => void) {}
  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.inner.export(spans, (r) => {
      if (r.code !== 0) this.log(`tracing: exporting ${spans.length} span(s) to ${this.where} failed: ${r.error?.message ?? 'unknown error'}`);
      done(r);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

interface Exporting {
  provider: BasicTracerProvider;
  tracer: Tracer;
  ids: RunIdGenerator;
}

interface SpanSetup {
  agent: CompiledAgent;
  cfg: TracingConfig;
  out: Exporting;
  parent: Context;
  traceId: string;
}

function defaultLog(message: string): void {
  if (Runtime._instance) {
    Runtime._instance.logger.warn(message);
    return;
  }
  process.stderr.write(`${message}\n`);
}

export class AgentTracing {
  private readonly bundles: BundleCache;
  private readonly messages: MessageStore;
  private readonly exporting = new Map<string, Exporting>();
  private readonly pending = new Set<Promise<void>>();
  private readonly logged = new Set<string>();
  private readonly log: (m: string) => void;
  private readonly metrics: AgentMetrics;
  private readonly logs: AgentLogs;
  private client: Client | undefined;
  private readonly traces = new Map<string, Promise<RunTrace>>();
  private readonly described = new Map<string, Promise<Described>>();
  private readonly spanIds = new RandomIdGenerator();
  /** The worker's OTEL_* variables (decision 402). */
  private readonly otel: OtelEnv;

  constructor(private readonly opts: AgentTracingOptions = {}) {
    const store = opts.store ?? openBlobStore();
    this.bundles = new BundleCache(store);
    this.messages = new MessageStore(store);
    this.log = opts.log ?? defaultLog;
    this.otel = readOtelEnv(opts.env ?? process.env);
    for (const p of this.otel.problems) this.logOnce(`telemetry: ${p}`);
    this.metrics = new AgentMetrics((m) => this.logOnce(m), this.log, opts.env, this.otel);
    this.logs = new AgentLogs((m) => this.logOnce(m), this.log, opts.env, this.otel);
    this.client = opts.client;
  }

  /** What the worker adds to an agent's observability section: OTEL_* variables and the tenant's telemetry. */
  private platform(agent: CompiledAgent): Platform {
    return { env: this.otel, ...(agent.tenant?.telemetry ? { tenant: agent.tenant.telemetry } : {}) };
  }

  /** The Temporal client that describes runs' parents (createAgentloomWorker passes the worker's). */
  useClient(client: Client | undefined): void {
    this.client ??= client;
  }

  /** Else the client of an activity's context (a worker made without createAgentloomWorker). */
  private learnClient(ctx: { client: Client }): void {
    try {
      this.useClient(ctx.client);
    } catch {
      // A context without a client (MockActivityEnvironment): parents cannot be described; runs keep their own traces.
    }
  }

  /** WorkerOptions.interceptors.activity entry. */
  readonly activityInterceptor: ActivityInterceptorsFactory = (ctx) => {
    const inbound: ActivityInboundCallsInterceptor = {
      execute: async (input, next) => {
        const type = ctx.info.activityType;
        const wf = ctx.info.workflowExecution;
        if (!(type in SPANNED) || !wf) return next(input);
        const arg = input.args[0] as { bundle?: BlobRef; agent_id?: string } | undefined;
        const agent = await this.agentOf(arg).catch((e: unknown) => {
          this.logOnce(`telemetry: ${(e as Error)?.message ?? String(e)}`);
          return undefined;
        });
        const cfg = agent && this.guard(() => tracingConfigOf(agent.observability, this.platform(agent)));
        if (cfg && !this.client) this.learnClient(ctx);
        const runTrace = agent && cfg && arg?.bundle ? await this.traceOf(wf, agent, arg.bundle, undefined) : undefined;
        const setup = agent && cfg && runTrace && this.guard(() => this.setup(agent, cfg, wf, runTrace));
        // The tool call's span id is chosen before the call, so its request can name it (traceparent).
        const callSpanId = type === 'runTool' && runTrace ? this.spanIds.generateSpanId() : undefined;
        const headers = callSpanId && runTrace && cfg?.propagate_context
          ? this.guard(() => ({ traceparent: formatTraceparent({ traceId: runTrace.traceId, spanId: callSpanId, sampled: runTrace.sampled }) }))
          : undefined;
        const metered = agent && metricsConfigOf(agent.observability, this.platform(agent)) !== undefined;
        const logging = agent && logsConfigOf(agent.observability, this.platform(agent)) !== undefined;
        if (!agent || (!setup && !metered && !logging && !headers)) return next(input);
        const run = { workflowId: wf.workflowId, runId: wf.runId, ...(runTrace ? { traceId: runTrace.traceId } : {}) };
        if (logging) {
          this.guard(() => {
            if (ctx.info.attempt > 1) this.logs.emit(agent, run, 'warn', 'activity.retry', { activity: type, attempt: ctx.info.attempt });
            if (type === 'modelTurn' && (input.args[0] as ModelArg).fallback) this.logs.emit(agent, run, 'warn', 'model.fallback', { model_id: agent.runtime.fallback_model?.model_id });
          });
        }
        const start = Date.now();
        let result: unknown;
        let error: unknown;
        try {
          result = await (headers ? withTraceHeaders(headers, () => next(input)) : next(input));
          return result;
        } catch (e) {
          error = e;
          throw e;
        } finally {
          const end = Date.now();
          if (metered) this.guard(() => this.meter(type as Spanned, agent, input.args[0], result, error, end - start));
          if (logging && type === 'runGuardrails') this.guard(() => this.logGuardrails(agent, run, input.args[0] as GuardrailArg, result as GuardrailResult | undefined));
          if (setup) this.track(this.record(type as Spanned, setup, input.args[0], result, error, start, end, callSpanId));
        }
      },
    };
    return { inbound };
  };

  /** WorkerOptions.sinks entry: `agent.run` when a run ends (not called during replay). */
  get sinks(): InjectedSinks<AgentloomTracingSinks> {
    return {
      agentloomTracing: {
        runStarted: { fn: (info: WorkflowInfo, ev: RunStartedEvent) => this.track(this.runStarted(info, ev)), callDuringReplay: false },
        runEnded: { fn: (info: WorkflowInfo, ev: RunEndedEvent) => this.track(this.runEnded(info, ev)), callDuringReplay: false },
        approvalDecided: { fn: (info: WorkflowInfo, ev: ApprovalDecidedEvent) => this.track(this.approvalDecided(info, ev)), callDuringReplay: false },
      },
    };
  }

  /** Export every span recorded so far (tests, shutdown). */
  async forceFlush(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
    await Promise.all([...this.exporting.values()].map((e) => e.provider.forceFlush().catch(() => undefined)));
    await this.metrics.forceFlush();
    await this.logs.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
    await Promise.all([...this.exporting.values()].map((e) => e.provider.shutdown().catch(() => undefined)));
    this.exporting.clear();
    await this.metrics.shutdown();
    await this.logs.shutdown();
  }

  private track(p: Promise<void>): void {
    const q = p.catch((e: unknown) => this.log(`tracing: recording a span failed: ${(e as Error)?.message ?? String(e)}`)).finally(() => this.pending.delete(q));
    this.pending.add(q);
  }

  /** Telemetry never fails an activity: a throw here is logged and treated as "nothing to record". */
  private guard<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (e) {
      this.logOnce(`telemetry: ${(e as Error)?.message ?? String(e)}`);
      return undefined;
    }
  }

  private logOnce(message: string): void {
    if (this.logged.has(message)) return;
    this.logged.add(message);
    this.log(message);
  }

  /** The agent, its tracing settings, where spans go and the `agent.run` parent, or undefined when this run is not traced. */
  /** The compiled agent an activity or run works for (cached per bundle). */
  private async agentOf(arg: { bundle?: BlobRef; agent_id?: string } | undefined): Promise<CompiledAgent | undefined> {
    if (!arg?.bundle || typeof arg.agent_id !== 'string') return undefined;
    return (await this.bundles.agent(arg.bundle, arg.agent_id)).agent;
  }

  /** Where spans go and the `agent.run` parent, or undefined when this run's trace is not sampled. */
  private setup(agent: CompiledAgent, cfg: TracingConfig, run: RunRef, runTrace: RunTrace): SpanSetup | undefined {
    if (!runTrace.sampled) return undefined;
    const out = this.exportingFor(agent, cfg);
    if (!out) return undefined;
    const parent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: runTrace.traceId,
      spanId: runSpanId(run.workflowId, run.runId),
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    return { agent, cfg, out, parent, traceId: runTrace.traceId };
  }

  /** A run's own trace: ids from its workflow and run id, sampled by its own sampling_rate. */
  private ownTrace(run: RunRef, cfg: TracingConfig): RunTrace {
    return { traceId: runTraceId(run.workflowId, run.runId), sampled: isRunSampled(run.runId, cfg.sampling_rate) };
  }

  /**
   * The trace a traced run's spans belong to (decision 288). `parent` is the run's Temporal parent
   * when the caller knows it (a sink's WorkflowInfo; null for none), else the run is described.
   * A lookup that fails is logged and the run keeps its own trace.
   */
  private async traceOf(run: RunRef, agent: CompiledAgent, bundle: BlobRef, parent: RunRef | null | undefined): Promise<RunTrace | undefined> {
    const cfg = tracingConfigOf(agent.observability, this.platform(agent));
    if (!cfg) return undefined;
    try {
      return await this.joined(run, agent, bundle, parent, 0);
    } catch (e) {
      this.logOnce(`tracing: cannot tell whether run ${run.workflowId} joins its caller's trace (${(e as Error)?.message ?? String(e)}); its spans go to its own trace`);
      return this.ownTrace(run, cfg);
    }
  }

  /**
   * A run joins its Temporal parent's trace when the parent is an agent run (its AgentId names an
   * agent of the same bundle) whose tracing is on with propagate_context: same trace id, the
   * parent's `agent.run` as parent span, and the parent's sampling decision. Otherwise its own.
   */
  private joined(run: RunRef, agent: CompiledAgent, bundle: BlobRef, parent: RunRef | null | undefined, depth: number): Promise<RunTrace> {
    const key = runKey(run);
    const known = this.traces.get(key);
    if (known) return known;
    const made = (async (): Promise<RunTrace> => {
      const cfg = tracingConfigOf(agent.observability, this.platform(agent));
      const own: RunTrace = cfg ? this.ownTrace(run, cfg) : { traceId: runTraceId(run.workflowId, run.runId), sampled: false };
      const from = parent === undefined ? (await this.describe(run)).parent : parent ?? undefined;
      if (!from || depth >= MAX_NESTING) return own;
      const up = await this.describe(from);
      const caller = up.agentId ? await this.bundles.agent(bundle, up.agentId).then((x) => x.agent, () => undefined) : undefined;
      if (!caller || !tracingConfigOf(caller.observability, this.platform(caller))?.propagate_context) return own;
      const callerTrace = await this.joined(from, caller, bundle, up.parent ?? null, depth + 1);
      return { traceId: callerTrace.traceId, parentSpanId: runSpanId(from.workflowId, from.runId), sampled: callerTrace.sampled };
    })();
    this.remember(this.traces, key, made);
    return made;
  }

  /** A run's agent and Temporal parent, from the server (cached; a failed lookup is tried again next time). */
  private describe(run: RunRef): Promise<Described> {
    const key = runKey(run);
    const known = this.described.get(key);
    if (known) return known;
    const client = this.client;
    if (!client) return Promise.reject(new Error('this worker has no Temporal client to describe the run'));
    const made = client.workflow.getHandle(run.workflowId, run.runId).describe().then((d) => {
      const agentId = d.searchAttributes?.[SEARCH_ATTRIBUTES.agentId]?.[0];
      const p = d.parentExecution;
      return { ...(typeof agentId === 'string' ? { agentId } : {}), ...(p?.workflowId && p.runId ? { parent: { workflowId: p.workflowId, runId: p.runId } } : {}) };
    });
    this.remember(this.described, key, made);
    return made;
  }

  private remember<T>(map: Map<string, Promise<T>>, key: string, p: Promise<T>): void {
    if (map.size >= REMEMBERED_RUNS) map.clear();
    map.set(key, p);
    p.catch(() => { if (map.get(key) === p) map.delete(key); });
  }

  /** One provider per (exporter, endpoint, credential); undefined (logged) when spans cannot be sent. */
  private exportingFor(agent: CompiledAgent, cfg: TracingConfig): Exporting | undefined {
    const who = `agent ${agent.agent_id}`;
    let headers: Record<string, string> = {};
    if (cfg.exporter === 'otlp') {
      if (!cfg.endpoint) {
        this.logOnce(`tracing: ${who} exports over otlp without an endpoint (AGF180); no spans are sent`);
        return undefined;
      }
      if (!cfg.protocol) {
        this.logOnce(`tracing: ${who}: ${cfg.problem ?? 'no supported OTLP protocol'}; no spans are sent`);
        return undefined;
      }
      if (cfg.problem) this.logOnce(`tracing: ${who}: ${cfg.problem}`);
      const auth = otlpHeaders(cfg.auth, agent.tenant?.secrets, this.opts.env);
      if ('problem' in auth) {
        this.logOnce(`tracing: ${who}: ${auth.problem}; no spans are sent`);
        return undefined;
      }
      headers = { ...cfg.headers, ...auth.headers };
    }
    const key = `${cfg.exporter}\n${cfg.endpoint ?? ''}\n${JSON.stringify(headers)}`;
    const known = this.exporting.get(key);
    if (known) return known;
    const ids = new RunIdGenerator();
    const processor = cfg.exporter === 'console'
      ? new SimpleSpanProcessor(new ConsoleSpanExporter())
      : new BatchSpanProcessor(new LoggedExporter(new OTLPTraceExporter({ url: cfg.endpoint, headers, timeoutMillis: EXPORT_TIMEOUT_MS }), cfg.endpoint ?? '', this.log), {
        scheduledDelayMillis: this.opts.scheduledDelayMillis ?? 1000,
        // A collector that does not answer holds a worker's (or `loom run`'s) shutdown at most this long.
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
      });
    const provider = new BasicTracerProvider({
      resource: new Resource(this.otel.resource),
      sampler: new AlwaysOnSampler(),
      idGenerator: ids,
      spanProcessors: [processor],
    });
    const made = { provider, tracer: provider.getTracer('agentloom'), ids };
    this.exporting.set(key, made);
    return made;
  }

  /** Log records of guardrail evaluations: warn when triggered, debug when not (seed 001). */
  private logGuardrails(agent: CompiledAgent, run: RunRef & { traceId?: string }, inp: GuardrailArg, out: GuardrailResult | undefined): void {
    for (const r of out?.results ?? []) {
      this.logs.emit(agent, run, r.passed ? 'debug' : 'warn', r.passed ? 'guardrail.passed' : 'guardrail.triggered', { guardrail_id: r.ref, position: inp.position, action: r.action });
    }
  }

  /** A sink's run and, when the agent traces, the trace it belongs to (its log records name that trace). */
  private async sinkRun(info: WorkflowInfo, agent: CompiledAgent, bundle: BlobRef): Promise<{ run: RunRef & { traceId?: string }; runTrace?: RunTrace }> {
    const parent = info.parent ? { workflowId: info.parent.workflowId, runId: info.parent.runId } : null;
    const runTrace = await this.traceOf(info, agent, bundle, parent);
    return { run: { workflowId: info.workflowId, runId: info.runId, ...(runTrace ? { traceId: runTrace.traceId } : {}) }, ...(runTrace ? { runTrace } : {}) };
  }

  private async runStarted(info: WorkflowInfo, ev: RunStartedEvent): Promise<void> {
    const agent = await this.agentOf(ev);
    if (!agent || !logsConfigOf(agent.observability, this.platform(agent))) return;
    const { run } = await this.sinkRun(info, agent, ev.bundle);
    this.logs.emit(agent, run, 'info', 'run.start', { input_chars: ev.input_chars, workflow_type: info.workflowType });
  }

  /** agent.tool.approval_wait and an `approval` log record (the react workflow's sink call; never during replay). */
  private async approvalDecided(info: WorkflowInfo, ev: ApprovalDecidedEvent): Promise<void> {
    const agent = await this.agentOf(ev);
    if (!agent) return;
    this.metrics.approvalWait(agent, ev.tool_id, ev.decision, ev.wait_ms);
    if (!logsConfigOf(agent.observability, this.platform(agent))) return;
    const { run } = await this.sinkRun(info, agent, ev.bundle);
    this.logs.emit(agent, run, 'info', 'approval', { tool_id: ev.tool_id, decision: ev.decision, wait_ms: ev.wait_ms });
  }

  private async runEnded(info: WorkflowInfo, ev: RunEndedEvent): Promise<void> {
    const agent = await this.agentOf(ev);
    if (!agent) return;
    const started = new Date(info.runStartTime).getTime();
    const { run, runTrace } = await this.sinkRun(info, agent, ev.bundle);
    this.logs.emit(agent, run, ev.status === 'refused' || ev.status === 'error' ? 'error' : 'info', 'run.end', {
      status: ev.status, failure_type: ev.failure_type, latency_ms: Math.max(0, ev.ended_ms - started),
    });
    this.metrics.runEnded(agent, ev.status, Math.max(0, ev.ended_ms - started), ev.model_turns, ev.input_chars);
    const cfg = tracingConfigOf(agent.observability, this.platform(agent));
    const setup = cfg && runTrace && this.setup(agent, cfg, info, runTrace);
    if (!setup || !runTrace) return;
    const { out } = setup;
    const attrs: Attributes = {
      agent_id: agent.agent_id,
      version: agent.version,
      status: ev.status,
      latency_ms: Math.max(0, ev.ended_ms - started),
      'temporal.workflow_id': info.workflowId,
      'temporal.run_id': info.runId,
      'temporal.workflow_type': info.workflowType,
    };
    if (typeof ev.usage?.prompt_tokens === 'number') attrs.input_tokens = ev.usage.prompt_tokens;
    if (typeof ev.usage?.completion_tokens === 'number') attrs.output_tokens = ev.usage.completion_tokens;
    if (ev.failure_type) attrs.failure_type = ev.failure_type;
    // A run that joined its caller's trace is a child of the caller's agent.run (decision 288).
    const under = runTrace.parentSpanId
      ? trace.setSpanContext(ROOT_CONTEXT, { traceId: runTrace.traceId, spanId: runTrace.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true })
      : ROOT_CONTEXT;
    out.ids.next = { traceId: runTrace.traceId, spanId: runSpanId(info.workflowId, info.runId) };
    let span: Span;
    try {
      span = out.tracer.startSpan('agent.run', { kind: SpanKind.INTERNAL, startTime: started, attributes: attrs }, under);
    } finally {
      out.ids.next = undefined;
    }
    if (ev.status === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: ev.failure_type ?? 'error' });
    span.end(ev.ended_ms);
  }

  /** The seed's metric instruments for one spanned activity (src/telemetry/metrics.ts). */
  private meter(type: Spanned, agent: CompiledAgent, arg: unknown, result: unknown, error: unknown, latencyMs: number): void {
    if (type === 'modelTurn') {
      const out = result as ModelResult | undefined;
      const inp = arg as ModelArg;
      const modelId = out?.model ?? (inp.fallback ? agent.runtime.fallback_model?.model_id : undefined) ?? agent.runtime.model.model_id;
      this.metrics.model(agent, modelId, out?.usage, error, latencyMs);
    } else if (type === 'runTool') {
      const out = result as ToolResult | undefined;
      this.metrics.tool(agent, (arg as ToolArg).tool, error || out?.is_error ? 'error' : 'success', error, latencyMs);
    } else {
      const position = (arg as GuardrailArg).position;
      this.metrics.guardrails(agent, position === 'input' || position === 'output' ? position : 'tool_call', (result as GuardrailResult | undefined)?.results ?? [], latencyMs);
    }
  }

  private async record(type: Spanned, s: SpanSetup, arg: unknown, result: unknown, error: unknown, start: number, end: number, spanId?: string): Promise<void> {
    if (type === 'modelTurn') return this.modelSpan(s, arg as ModelArg, result as ModelResult | undefined, error, start, end);
    if (type === 'runTool') return this.toolSpan(s, arg as ToolArg, result as ToolResult | undefined, error, start, end, spanId);
    return this.guardrailSpans(s, arg as GuardrailArg, result as GuardrailResult | undefined, error, start, end);
  }

  /** Text content as it may enter a span: PII-redacted first when the agent has policies.pii_redaction. */
  private content(s: SpanSetup, v: JsonValue): string {
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    if (!s.agent.policies?.pii_redaction) return text;
    return typeof v === 'string' ? redactText(v).text : JSON.stringify(redactJson(v).value);
  }

  private finish(span: Span, error: unknown, end: number): void {
    if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message ?? String(error) });
    span.end(end);
  }

  private async modelSpan(s: SpanSetup, inp: ModelArg, out: ModelResult | undefined, error: unknown, start: number, end: number): Promise<void> {
    const { agent, cfg } = s;
    const attrs: Attributes = {
      agent_id: agent.agent_id,
      model_id: out?.model ?? (inp.fallback ? agent.runtime.fallback_model?.model_id : undefined) ?? agent.runtime.model.model_id,
      latency_ms: end - start,
      turn: inp.turn,
    };
    const temperature = inp.prefs?.temperature ?? agent.runtime.temperature;
    if (typeof temperature === 'number') attrs.temperature = temperature;
    const effort = inp.prefs?.reasoning_effort ?? agent.runtime.reasoning_effort;
    if (typeof effort === 'string') attrs.reasoning_effort = effort;
    if (out) {
      attrs.input_token_count = out.usage?.prompt_tokens ?? 0;
      attrs.output_token_count = out.usage?.completion_tokens ?? 0;
      attrs.finish_reason = out.message?.tool_calls?.length ? 'tool_calls' : 'stop';
      if (cfg.include_model_outputs) attrs['model.output'] = this.content(s, this.withToolArgs(s, out.message as JsonObject));
      if (cfg.include_model_inputs && out.head) {
        const conversation = await this.messages.conversation(out.head);
        const inputs = modelInputsAttribute(conversation.slice(0, -1).map((m) => this.withToolArgs(s, m as unknown as JsonObject)), cfg);
        if (inputs !== undefined) attrs['model.inputs'] = this.content(s, JSON.parse(inputs) as JsonValue);
      }
    }
    this.finish(s.out.tracer.startSpan('agent.model_invocation', { startTime: start, attributes: attrs }, s.parent), error, end);
  }

  /**
   * A model message as it may enter a span: the arguments of its tool calls are tool args, so they
   * follow include_tool_args (dropped by default, sensitive fields redacted when `redacted`).
   */
  private withToolArgs(s: SpanSetup, msg: JsonObject): JsonObject {
    const calls = msg.tool_calls;
    if (!Array.isArray(calls)) return msg;
    return {
      ...msg,
      tool_calls: calls.map((c) => {
        const call = (c ?? {}) as { id?: string; name?: string; arguments?: JsonObject };
        const tool = s.agent.tools.refs.find((t) => t.tool_id === call.name);
        const args = toolArgsAttribute(call.arguments ?? {}, tool?.sensitive_fields ?? [], s.cfg);
        const { arguments: _dropped, ...rest } = call;
        return (args === undefined ? rest : { ...rest, arguments: JSON.parse(args) as JsonValue }) as JsonObject;
      }),
    };
  }

  private async toolSpan(s: SpanSetup, inp: ToolArg, out: ToolResult | undefined, error: unknown, start: number, end: number, spanId?: string): Promise<void> {
    const { agent, cfg } = s;
    const tool = agent.tools.refs.find((t) => t.tool_id === inp.tool);
    const sensitive = tool?.sensitive_fields ?? [];
    const attrs: Attributes = {
      agent_id: agent.agent_id,
      tool_id: inp.tool,
      latency_ms: end - start,
      outcome: error || out?.is_error ? 'error' : 'success',
      call_id: inp.call_id,
    };
    if (tool) attrs.tool_version = tool.version;
    const args = toolArgsAttribute(inp.args ?? {}, sensitive, cfg);
    if (args !== undefined) attrs['tool.args'] = this.content(s, JSON.parse(args) as JsonValue);
    let parsed: JsonValue | undefined;
    if (out?.ref) {
      const text = (await this.messages.getLoose(out.ref)).content;
      try {
        parsed = JSON.parse(text) as JsonValue;
      } catch {
        parsed = text;
      }
      if (cfg.include_tool_results !== 'none') {
        const shown = cfg.include_tool_results === 'redacted' && parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? redactArgs(parsed, sensitive) : parsed;
        attrs['tool.result'] = this.content(s, shown);
      }
    }
    // The span id the call's traceparent named, chosen before the call (decision 287).
    s.out.ids.next = spanId ? { traceId: s.traceId, spanId } : undefined;
    let span: Span;
    try {
      span = s.out.tracer.startSpan('agent.tool_call', { startTime: start, attributes: attrs }, s.parent);
    } finally {
      s.out.ids.next = undefined;
    }
    if (tool?.builtin?.name === 'search_knowledge') this.kbSpan(s, trace.setSpan(s.parent, span), parsed, error, start, end);
    this.finish(span, error, end);
  }

  /** agent.kb_retrieval: the search the `search_knowledge` builtin made, a child of its tool call. */
  private kbSpan(s: SpanSetup, parent: Context, result: JsonValue | undefined, error: unknown, start: number, end: number): void {
    const refs = s.agent.knowledge?.refs ?? [];
    const hits = Array.isArray(result) ? (result as unknown as { kb_id?: string; id?: string; text?: string }[]) : [];
    const span = s.out.tracer.startSpan('agent.kb_retrieval', {
      startTime: start,
      attributes: {
        agent_id: s.agent.agent_id,
        kb_id: refs.map((k) => k.kb_id).join(','),
        search_mode: [...new Set(refs.map((k) => k.retrieval?.search_mode ?? 'keyword'))].join(','),
        chunks_returned: hits.length,
        latency_ms: end - start,
      },
    }, parent);
    if (s.cfg.include_kb_chunks) {
      for (const h of hits) span.addEvent('kb.chunk', { kb_id: h.kb_id ?? '', id: h.id ?? '', text: this.content(s, h.text ?? '') }, start);
    }
    this.finish(span, error, end);
  }

  private async guardrailSpans(s: SpanSetup, inp: GuardrailArg, out: GuardrailResult | undefined, error: unknown, start: number, end: number): Promise<void> {
    const phase = inp.position === 'input' || inp.position === 'output' ? inp.position : 'tool_call';
    const results = out?.results ?? [];
    const list = error ? (s.agent.guardrails?.[inp.position as 'input'] ?? []).map((g) => ({ ref: (g as { ref: string }).ref })) : results;
    for (const r of list) {
      const full = r as { ref: string; passed?: boolean; action?: string };
      const attrs: Attributes = { agent_id: s.agent.agent_id, guardrail_id: full.ref, phase, position: inp.position, latency_ms: end - start };
      if (typeof full.passed === 'boolean') attrs.triggered = !full.passed;
      if (full.action) attrs.action = full.action;
      this.finish(s.out.tracer.startSpan('agent.guardrail', { startTime: start, attributes: attrs }, s.parent), error, end);
    }
  }
}

interface ModelArg { turn?: number; fallback?: boolean; prefs?: { temperature?: number; reasoning_effort?: string } }
interface ModelResult { head?: BlobRef; model?: string; usage?: { prompt_tokens?: number; completion_tokens?: number }; message?: { content?: string; tool_calls?: unknown[] } }
interface ToolArg { tool: string; call_id?: string; args?: JsonObject }
interface ToolResult { ref?: BlobRef; is_error?: boolean }
interface GuardrailArg { position: string }
interface GuardrailResult { results?: { ref: string; passed: boolean; action: string }[] }
