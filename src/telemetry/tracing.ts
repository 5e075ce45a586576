/**
 * OpenTelemetry traces (and, through metrics.ts and logs.ts, metrics and log records) of agent
 * runs, emitted only on the worker side and never during replay. AgentTracing is what a worker
 * installs (an activity interceptor and the `agentloomTracing` sinks); it composes the jobs:
 *
 *   span-sources.ts      the compiled agent and the stored messages a span's content comes from
 *   span-exporters.ts    the tracer providers and exporters (OTLP/HTTP or console), one per destination
 *   run-traces.ts        which trace a run belongs to (its own, or its caller's for a sub-agent run)
 *   activity-spans.ts    agent.model_invocation, agent.tool_call, agent.kb_retrieval, agent.guardrail
 *   activity-records.ts  the metrics and log records of the same activities
 *   run-sinks.ts         what the workflow interceptor's sink calls record, agent.run among them
 *
 * With `propagate_context` (default true) a tool call's HTTP request carries a W3C `traceparent`
 * naming its `agent.tool_call` span (propagation.ts). Telemetry never fails a run: every problem
 * is logged (each configuration problem once).
 */
import * as path from 'path';
import { context as otelContext, isSpanContextValid, trace as otelTrace } from '@opentelemetry/api';
import { RandomIdGenerator } from '@opentelemetry/sdk-trace-base';
import { Runtime, type ActivityInboundCallsInterceptor, type ActivityInterceptorsFactory, type InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { Client } from '@temporalio/client';
import { openBlobStore, type BlobStore } from '../activities/blob-store';
import type { CompiledAgent } from '../compiled/types';
import type { BlobRef } from '../shared/contract';
import { logsConfigOf, metricsConfigOf, platformOf, tracingConfigOf, type Platform } from './config';
import { readOtelEnv, type OtelEnv } from './otel-env';
import { AgentLogs } from './logs';
import { AgentMetrics } from './metrics';
import type { AgentloomTracingSinks, ApprovalDecidedEvent } from '../shared/tracing-sinks';
import type { AgentloomApprovalSinks, ApprovalRequestedEvent } from '../shared/approval-sinks';
import { formatTraceparent } from './trace-ids';
import { withTraceHeaders } from '../platform/trace-context';
import { SpanExporters } from './span-exporters';
import { SpanSources } from './span-sources';
import { RunTraces } from './run-traces';
import { ActivitySpans, SPANNED, type GuardrailArg, type GuardrailResult, type ModelArg, type Spanned } from './activity-spans';
import { logGuardrails, meterActivity } from './activity-records';
import { RunSinks } from './run-sinks';
import { TemporalTracing } from './temporal-tracing';
import { JOINED_TRACE_HEADER, type JoinedRunEndedEvent, type JoinedRunStartedEvent } from './joined-trace';
import { isRunSampled } from './span-content';

export { EXPORT_TIMEOUT_MS } from './span-exporters';

/** The workflow interceptor module to bundle with the workflows (WorkerOptions.interceptors.workflowModules / bundleWorkflowCode). */
export const TRACING_WORKFLOW_MODULE = path.join(__dirname, 'workflow-interceptor');

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

function defaultLog(message: string): void {
  if (Runtime._instance) {
    Runtime._instance.logger.warn(message);
    return;
  }
  process.stderr.write(`${message}\n`);
}

export class AgentTracing {
  private readonly sources: SpanSources;
  private readonly exporters: SpanExporters;
  private readonly traces: RunTraces;
  private readonly spans: ActivitySpans;
  private readonly runSinks: RunSinks;
  private readonly pending = new Set<Promise<void>>();
  private readonly logged = new Set<string>();
  private readonly log: (m: string) => void;
  private readonly metrics: AgentMetrics;
  private readonly logs: AgentLogs;
  private readonly spanIds = new RandomIdGenerator();
  /** The worker's OTEL_* variables (the standard OpenTelemetry environment). */
  private readonly otel: OtelEnv;
  /** Temporal's own spans (RunWorkflow, StartActivity, RunActivity, the worker client's starts), to the OTEL_* destination. */
  readonly temporal: TemporalTracing;

  constructor(opts: AgentTracingOptions = {}) {
    this.sources = new SpanSources(opts.store ?? openBlobStore());
    this.log = opts.log ?? defaultLog;
    this.otel = readOtelEnv(opts.env ?? process.env);
    for (const p of this.otel.problems) this.logOnce(`telemetry: ${p}`);
    this.metrics = new AgentMetrics((m) => this.logOnce(m), this.log, opts.env, this.otel);
    this.logs = new AgentLogs((m) => this.logOnce(m), this.log, opts.env, this.otel);
    const logOnce = (m: string) => this.logOnce(m);
    this.exporters = new SpanExporters({ scheduledDelayMillis: opts.scheduledDelayMillis, env: opts.env, resource: this.otel.resource, log: this.log, logOnce });
    const platform = (agent: CompiledAgent) => this.platform(agent);
    this.traces = new RunTraces(this.sources, this.exporters, platform, logOnce, opts.client);
    this.spans = new ActivitySpans(this.sources);
    this.runSinks = new RunSinks({ sources: this.sources, traces: this.traces, metrics: this.metrics, logs: this.logs, platform });
    this.temporal = new TemporalTracing({ otel: this.otel, log: this.log, scheduledDelayMillis: opts.scheduledDelayMillis });
  }

  /** What the worker adds to an agent's observability section: OTEL_* variables, the tenant's telemetry, the residency. */
  private platform(agent: CompiledAgent): Platform {
    return platformOf(agent, this.otel);
  }

  /** The Temporal client that describes runs' parents (createAgentloomWorker passes the worker's). */
  useClient(client: Client | undefined): void {
    this.traces.useClient(client);
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
    // Temporal's RunActivity span around ours: inside it, that span is the active context.
    const temporal = this.temporal.activityInterceptor(ctx);
    const inbound: ActivityInboundCallsInterceptor = {
      execute: (input, next) => (temporal.inbound?.execute ? temporal.inbound.execute(input, (i) => ours(i, next)) : ours(input, next)),
    };
    const ours = async (...[input, next]: Parameters<NonNullable<ActivityInboundCallsInterceptor['execute']>>): Promise<unknown> => {
      const type = ctx.info.activityType;
      const wf = ctx.info.workflowExecution;
      if (!(type in SPANNED) || !wf) return next(input);
      const arg = input.args[0] as { bundle?: BlobRef; agent_id?: string } | undefined;
      const agent = await this.sources.agentOf(arg).catch((e: unknown) => {
        this.logOnce(`telemetry: ${(e as Error)?.message ?? String(e)}`);
        return undefined;
      });
      const cfg = agent && this.guard(() => tracingConfigOf(agent.observability, this.platform(agent)));
      if (cfg && !this.traces.hasClient) this.learnClient(ctx);
      // A run that joined Temporal's trace (workflow-interceptor.ts): its spans hang under RunActivity.
      const active = input.headers[JOINED_TRACE_HEADER] ? otelTrace.getSpanContext(otelContext.active()) : undefined;
      const joined = active && isSpanContextValid(active) ? active : undefined;
      const runTrace = !(agent && cfg && arg?.bundle) ? undefined
        : joined ? { traceId: joined.traceId, sampled: isRunSampled(wf.runId, cfg.sampling_rate) }
          : await this.traces.traceOf(wf, agent, arg.bundle, undefined);
      const owned = agent && cfg && runTrace && this.guard(() => this.traces.setup(agent, cfg, wf, runTrace));
      const setup = owned && joined ? { ...owned, parent: otelContext.active() } : owned;
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
        if (metered) this.guard(() => meterActivity(this.metrics, type as Spanned, agent, input.args[0], result, error, end - start));
        if (logging && type === 'runGuardrails') this.guard(() => logGuardrails(this.logs, agent, run, input.args[0] as GuardrailArg, result as GuardrailResult | undefined));
        if (setup) this.track(this.spans.record(type as Spanned, setup, input.args[0], result, error, start, end, callSpanId));
      }
    };
    return { inbound, ...(temporal.outbound ? { outbound: temporal.outbound } : {}) };
  };

  /** WorkerOptions.sinks entries: `agent.run` when a run ends, the approval records, and Temporal's workflow spans (none called during replay). */
  get sinks(): InjectedSinks<AgentloomTracingSinks & AgentloomApprovalSinks> & TemporalTracing['sinks'] {
    return {
      ...this.temporal.sinks,
      agentloomTracing: {
        runStarted: { fn: (info: WorkflowInfo, ev: JoinedRunStartedEvent) => this.track(this.runSinks.runStarted(info, ev)), callDuringReplay: false },
        runEnded: { fn: (info: WorkflowInfo, ev: JoinedRunEndedEvent) => this.track(this.runSinks.runEnded(info, ev)), callDuringReplay: false },
        approvalDecided: { fn: (info: WorkflowInfo, ev: ApprovalDecidedEvent) => this.track(this.runSinks.approvalDecided(info, ev)), callDuringReplay: false },
      },
      agentloomApprovals: {
        approvalRequested: { fn: (info: WorkflowInfo, ev: ApprovalRequestedEvent) => this.track(this.runSinks.approvalRequested(info, ev)), callDuringReplay: false },
      },
    };
  }

  /** Export every span recorded so far (tests, shutdown). */
  async forceFlush(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
    await this.exporters.forceFlush();
    await this.temporal.forceFlush();
    await this.metrics.forceFlush();
    await this.logs.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
    await this.exporters.shutdown();
    await this.temporal.shutdown();
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
}
