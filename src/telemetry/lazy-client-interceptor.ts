/**
 * Temporal's client tracing interceptor (temporal-tracing.ts), loaded by the first call it
 * intercepts: OpenTelemetry's modules take a few hundred milliseconds to load, and a command that
 * only reads visibility (`loom list`, `loom inbox` with nothing open) never makes a span, so it never
 * loads them. The calls that reach a run's history (start, signal, update, cancel, terminate) always
 * go through the real interceptor, with the same spans and the same trace context in their headers,
 * so a worker that exports joins the run to the caller's trace. The reads (query, describe) go
 * through it only when this process's spans go somewhere: an OTEL_* trace destination, or an
 * OpenTelemetry API an application registered itself; otherwise their spans would be made only to
 * be dropped, and `loom status` would load OpenTelemetry for nothing.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { readOtelEnv } from './otel-env';

/** The methods of a workflow client interceptor the SDK calls (`start` is the legacy form of `startWithDetails`). */
const METHODS = ['startWithDetails', 'startUpdate', 'startUpdateWithStart', 'signal', 'signalWithStart', 'query', 'terminate', 'cancel', 'describe'] as const;
type Method = (typeof METHODS)[number];
type Call = (input: unknown, next: (input: unknown) => Promise<unknown>) => Promise<unknown>;

/** The calls that only read a run (their spans join no run's history). */
const READS: readonly Method[] = ['query', 'describe'];

/**
 * One interceptor standing for the one `load` resolves to, loaded on its first intercepted call;
 * a method the real interceptor lacks calls `next` directly, as the SDK would. With `reads: false`
 * a query or describe calls `next` directly and loads nothing.
 */
export function lazyWorkflowClientInterceptor(load: () => Promise<WorkflowClientInterceptor>, opts: { reads?: boolean } = {}): WorkflowClientInterceptor {
  let real: Promise<WorkflowClientInterceptor> | undefined;
  const wrapper: Partial<Record<Method, Call>> = {};
  for (const method of METHODS) {
    if (opts.reads === false && READS.includes(method)) {
      wrapper[method] = (input, next) => next(input);
      continue;
    }
    wrapper[method] = async (input, next) => {
      const target = await (real ??= load());
      const fn = target[method] as Call | undefined;
      return fn ? fn.call(target, input, next) : next(input);
    };
  }
  return wrapper as WorkflowClientInterceptor;
}

/** The global registry of the OpenTelemetry API (`@opentelemetry/api` 1.x): its `trace` entry is the tracer provider an SDK registered. */
const OTEL_API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/**
 * Whether this process's client spans go somewhere: the OTEL_* variables name a trace destination
 * (and do not turn traces off), or the process registered a tracer provider itself (an
 * application's own SDK, whose active trace a query's span would join). Read without loading
 * OpenTelemetry.
 */
export function clientSpansExported(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((globalThis as Record<symbol, { trace?: unknown } | undefined>)[OTEL_API_GLOBAL]?.trace !== undefined) return true;
  const otel = readOtelEnv(env);
  const t = otel.signals.traces;
  return !otel.disabled && !t.off && !t.unsupported && t.endpoint !== undefined;
}

/**
 * The CLI's client interceptors: Temporal's OpenTelemetry interceptor, loaded when first needed;
 * reads are traced only when the spans go somewhere (decided when the client is made).
 */
export function lazyTemporalClientInterceptors(env: NodeJS.ProcessEnv = process.env): { workflow: WorkflowClientInterceptor[] } {
  return {
    workflow: [lazyWorkflowClientInterceptor(
      async () => (await import('./temporal-tracing')).temporalClientInterceptors().workflow[0] as unknown as WorkflowClientInterceptor,
      { reads: clientSpansExported(env) },
    )],
  };
}
