/**
 * Temporal's own spans, from `@temporalio/interceptors-opentelemetry`: the client's
 * `StartWorkflow:<type>` (and signal, query, update) spans, the workflow's `RunWorkflow:<type>`,
 * `StartActivity:<type>` and `StartChildWorkflow:<type>` spans (made in the workflow sandbox and
 * exported through the SDK's `exporter` sink, which is not called during replay) and the worker's
 * `RunActivity:<type>` spans. The W3C trace context travels in the `_tracer-data` header of every
 * start, so one trace holds a client's start, the run and its activities; the `agent.*` spans join
 * it (tracing.ts, run-sinks.ts).
 *
 * Where they go: the process's OTEL_* trace destination (otel-env.ts), with the protocol it names.
 * Without one, spans are still made (their ids carry the trace to the worker) and not exported.
 * The OpenTelemetry API needs a context manager and a propagator in this process for the SDK's
 * interceptors to parent and propagate: the first TemporalTracing registers W3C trace context and
 * OpenTelemetry's AsyncLocalStorage context manager (@opentelemetry/context-async-hooks) unless the process already registered its own.
 */
import { context, propagation, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, NoopSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import { readOtelEnv, type OtelEnv } from './otel-env';
import type { OtlpTarget } from './otlp-exporters';

/** How long one export of Temporal's spans may take. */
const EXPORT_TIMEOUT_MS = 5000;

let registered = false;
/** W3C trace context and an async context manager, once per process (a process's own registration wins). */
function registerGlobals(): void {
  if (registered) return;
  registered = true;
  // OpenTelemetry's own AsyncLocalStorage context manager: the active span follows async calls.
  // Enabled only when it is the one registered (the API keeps a process's earlier registration).
  const manager = new AsyncLocalStorageContextManager();
  if (context.setGlobalContextManager(manager)) manager.enable();
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

export interface TemporalTracingOptions {
  /** The OTEL_* variables (default: read from `env`, else process.env). */
  otel?: OtelEnv;
  env?: NodeJS.ProcessEnv;
  /** Export problems (a collector down); default stderr. */
  log?: (message: string) => void;
  /** Batch delay before spans are exported (default 1000 ms). */
  scheduledDelayMillis?: number;
}

export class TemporalTracing {
  readonly provider: BasicTracerProvider;
  readonly tracer: Tracer;
  /** Where the workflow sandbox's spans go (the SDK's `exporter` sink). */
  private readonly processor: SpanProcessor;
  private readonly resource: Resource;

  constructor(opts: TemporalTracingOptions = {}) {
    registerGlobals();
    const otel = opts.otel ?? readOtelEnv(opts.env ?? process.env);
    const t = otel.signals.traces;
    const log = opts.log ?? ((m: string) => process.stderr.write(`${m}\n`));
    this.resource = new Resource(otel.resource);
    const endpoint = !otel.disabled && !t.off && !t.unsupported ? t.endpoint : undefined;
    this.processor = endpoint
      ? new BatchSpanProcessor(loggedExporter(lazySpanExporter({ protocol: t.protocol ?? 'http/json', url: endpoint, headers: t.headers, timeoutMillis: EXPORT_TIMEOUT_MS }), endpoint, log), {
        scheduledDelayMillis: opts.scheduledDelayMillis ?? 1000,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
      })
      : new NoopSpanProcessor();
    this.provider = new BasicTracerProvider({ resource: this.resource, spanProcessors: [this.processor] });
    this.tracer = this.provider.getTracer('@temporalio/interceptors-opentelemetry');
  }

  /** ClientOptions.interceptors.workflow entry: StartWorkflow, signal, query and update spans, the context sent in headers. */
  clientInterceptor(): OpenTelemetryWorkflowClientInterceptor {
    return new OpenTelemetryWorkflowClientInterceptor({ tracer: this.tracer });
  }

  /** WorkerOptions.interceptors.activity entry: a `RunActivity` span around each activity, its context active inside. */
  readonly activityInterceptor: ActivityInterceptorsFactory = (ctx) => ({
    inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer: this.tracer }),
    outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
  });

  /** WorkerOptions.sinks entry: the workflow sandbox's spans (not called during replay). */
  get sinks(): InjectedSinks<{ exporter: { export(spans: unknown[]): void } }> {
    return { exporter: makeWorkflowExporter(this.processor, this.resource) } as unknown as InjectedSinks<{ exporter: { export(spans: unknown[]): void } }>;
  }

  forceFlush(): Promise<void> {
    return this.provider.forceFlush().catch(() => undefined);
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown().catch(() => undefined);
  }
}

/**
 * The OTLP span exporter of `t`, its module (the exporters of every protocol, gRPC's included) loaded
 * at the first export: a process whose spans go nowhere (a CLI command without OTEL_* variables)
 * never loads it, and one that exports loads it once.
 */
function lazySpanExporter(t: OtlpTarget): SpanExporter {
  let loaded: Promise<SpanExporter> | undefined;
  const load = (): Promise<SpanExporter> => (loaded ??= import('./otlp-exporters').then((m) => m.otlpSpanExporter(t)));
  return {
    export: (spans, done) => void load().then((e) => e.export(spans, done), (err: Error) => done({ code: ExportResultCode.FAILED, error: err })),
    shutdown: async () => { if (loaded) await (await loaded).shutdown(); },
    forceFlush: async () => { if (loaded) await (await loaded).forceFlush?.(); },
  };
}

function loggedExporter(inner: SpanExporter, where: string, log: (m: string) => void): SpanExporter {
  return {
    export: (spans, done) => inner.export(spans, (r) => {
      if (r.code !== 0) log(`tracing: exporting ${spans.length} Temporal span(s) to ${where} failed: ${r.error?.message ?? 'unknown error'}`);
      done(r);
    }),
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

let clientTracing: TemporalTracing | undefined;

/**
 * The client interceptors every Temporal client Agentloom makes carries (the CLI, AgentloomClient):
 * one TemporalTracing per process from its OTEL_* variables, flushed before the process exits.
 */
export function temporalClientInterceptors(): { workflow: OpenTelemetryWorkflowClientInterceptor[] } {
  if (!clientTracing) {
    const made = new TemporalTracing({ scheduledDelayMillis: 200 });
    clientTracing = made;
    process.once('beforeExit', () => void made.shutdown());
  }
  return { workflow: [clientTracing.clientInterceptor()] };
}

/** Export the client spans made so far (tests; a process about to exit). */
export function flushClientTracing(): Promise<void> {
  return clientTracing?.forceFlush() ?? Promise.resolve();
}
