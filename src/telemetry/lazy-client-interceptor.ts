/**
 * Temporal's client tracing interceptor (temporal-tracing.ts), loaded by the first call it
 * intercepts: OpenTelemetry's modules take a few hundred milliseconds to load, and a command that
 * only reads visibility (`loom list`, `loom inbox` with nothing open) never makes a span, so it never
 * loads them. Every intercepted call (start, signal, update, query, describe, cancel, terminate)
 * goes through the real interceptor, with the same spans and the same trace context in its headers.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';

/** The methods of a workflow client interceptor the SDK calls (`start` is the legacy form of `startWithDetails`). */
const METHODS = ['startWithDetails', 'startUpdate', 'startUpdateWithStart', 'signal', 'signalWithStart', 'query', 'terminate', 'cancel', 'describe'] as const;
type Method = (typeof METHODS)[number];
type Call = (input: unknown, next: (input: unknown) => Promise<unknown>) => Promise<unknown>;

/**
 * One interceptor standing for the one `load` resolves to, loaded on its first intercepted call;
 * a method the real interceptor lacks calls `next` directly, as the SDK would.
 */
export function lazyWorkflowClientInterceptor(load: () => Promise<WorkflowClientInterceptor>): WorkflowClientInterceptor {
  let real: Promise<WorkflowClientInterceptor> | undefined;
  const wrapper: Partial<Record<Method, Call>> = {};
  for (const method of METHODS) {
    wrapper[method] = async (input, next) => {
      const target = await (real ??= load());
      const fn = target[method] as Call | undefined;
      return fn ? fn.call(target, input, next) : next(input);
    };
  }
  return wrapper as WorkflowClientInterceptor;
}

/** The CLI's client interceptors: Temporal's OpenTelemetry interceptor, loaded when first needed. */
export function lazyTemporalClientInterceptors(): { workflow: WorkflowClientInterceptor[] } {
  return {
    workflow: [lazyWorkflowClientInterceptor(async () => (await import('./temporal-tracing')).temporalClientInterceptors().workflow[0] as unknown as WorkflowClientInterceptor)],
  };
}
