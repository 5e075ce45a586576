/**
 * Where spans go: one OpenTelemetry tracer provider per (exporter, endpoint, credential), over
 * OTLP (http/json, http/protobuf or grpc: otlp-exporters.ts) to the agent's compiled `observability.tracing.endpoint` or to the console, with
 * `Authorization: Bearer <secret>` when `auth.type: bearer` (the secret is read here, from the
 * tenant's secret store, never put in a payload). An export failure is logged and never fails a run.
 */
import { Resource } from '@opentelemetry/resources';
import type { Tracer } from '@opentelemetry/api';
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
import type { CompiledAgent } from '../compiled/types';
import { otlpHeaders } from './auth';
import { otlpSpanExporter } from './otlp-exporters';
import type { TracingConfig } from './config';

/** How long one OTLP export may take before it is abandoned (and logged). */
export const EXPORT_TIMEOUT_MS = 5000;

/** Lets the `agent.run` span (and a tool call's announced span) take chosen ids; every other span gets random ones. */
export class RunIdGenerator implements IdGenerator {
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

/** One provider, its tracer and the id generator the span builders steer. */
export interface Exporting {
  provider: BasicTracerProvider;
  tracer: Tracer;
  ids: RunIdGenerator;
}

export interface SpanExportersOptions {
  /** Batch delay before spans are exported (default 1000 ms). */
  scheduledDelayMillis?: number;
  /** Where bearer secrets with an `env` location are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The resource of every span (service.name and the OTEL_RESOURCE_ATTRIBUTES). */
  resource: ConstructorParameters<typeof Resource>[0];
  /** Export failures (every one). */
  log: (m: string) => void;
  /** Configuration problems (each once). */
  logOnce: (m: string) => void;
}

export class SpanExporters {
  private readonly exporting = new Map<string, Exporting>();

  constructor(private readonly opts: SpanExportersOptions) {}

  /** One provider per (exporter, endpoint, credential); undefined (logged) when spans cannot be sent. */
  for(agent: CompiledAgent, cfg: TracingConfig): Exporting | undefined {
    const who = `agent ${agent.agent_id}`;
    let headers: Record<string, string> = {};
    if (cfg.exporter === 'otlp') {
      if (!cfg.endpoint) {
        this.opts.logOnce(`tracing: ${who} exports over otlp without an endpoint (AGF180); no spans are sent`);
        return undefined;
      }
      if (!cfg.protocol) {
        this.opts.logOnce(`tracing: ${who}: ${cfg.problem ?? 'no supported OTLP protocol'}; no spans are sent`);
        return undefined;
      }
      if (cfg.problem) this.opts.logOnce(`tracing: ${who}: ${cfg.problem}`);
      const auth = otlpHeaders(cfg.auth, agent.tenant?.secrets, this.opts.env);
      if ('problem' in auth) {
        this.opts.logOnce(`tracing: ${who}: ${auth.problem}; no spans are sent`);
        return undefined;
      }
      headers = { ...cfg.headers, ...auth.headers };
    }
    const key = `${cfg.exporter}\n${cfg.protocol ?? ''}\n${cfg.endpoint ?? ''}\n${JSON.stringify(headers)}`;
    const known = this.exporting.get(key);
    if (known) return known;
    const ids = new RunIdGenerator();
    const processor = cfg.exporter === 'console'
      ? new SimpleSpanProcessor(new ConsoleSpanExporter())
      : new BatchSpanProcessor(new LoggedExporter(otlpSpanExporter({ protocol: cfg.protocol ?? 'http/json', url: cfg.endpoint ?? '', headers, timeoutMillis: EXPORT_TIMEOUT_MS }), cfg.endpoint ?? '', this.opts.log), {
        scheduledDelayMillis: this.opts.scheduledDelayMillis ?? 1000,
        // A collector that does not answer holds a worker's (or `loom run`'s) shutdown at most this long.
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
      });
    const provider = new BasicTracerProvider({
      resource: new Resource(this.opts.resource),
      sampler: new AlwaysOnSampler(),
      idGenerator: ids,
      spanProcessors: [processor],
    });
    const made = { provider, tracer: provider.getTracer('agentloom'), ids };
    this.exporting.set(key, made);
    return made;
  }

  /** Export every span the providers hold (a provider that fails to flush is skipped). */
  async forceFlush(): Promise<void> {
    await Promise.all([...this.exporting.values()].map((e) => e.provider.forceFlush().catch(() => undefined)));
  }

  /** Shut every provider down and forget them. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.exporting.values()].map((e) => e.provider.shutdown().catch(() => undefined)));
    this.exporting.clear();
  }
}
