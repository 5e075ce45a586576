/**
 * The client's reads (query, describe) go through Temporal's tracing interceptor only when the
 * process's spans go somewhere (an OTEL_* trace destination, or OpenTelemetry registered by the
 * application); the calls that reach a run (start, signal, update, cancel, terminate) always do,
 * so the trace context still travels to the worker.
 */
import { propagation, trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { clientSpansExported, lazyWorkflowClientInterceptor } from '../../src/telemetry/lazy-client-interceptor';

type AnyCall = (input: unknown, next: (i: unknown) => Promise<unknown>) => Promise<unknown>;
const call = (i: WorkflowClientInterceptor, method: keyof WorkflowClientInterceptor, input: unknown) =>
  (i[method] as unknown as AnyCall)(input, async (x) => ({ got: x }));

function counting(): { loads: () => number; seen: string[]; lazy: (reads: boolean) => WorkflowClientInterceptor } {
  let loads = 0;
  const seen: string[] = [];
  const real: WorkflowClientInterceptor = {
    async query(input, next) { seen.push('query'); return next(input); },
    async describe(input, next) { seen.push('describe'); return next(input); },
    async signal(input, next) { seen.push('signal'); return next(input); },
    async startWithDetails(input, next) { seen.push('start'); return next(input); },
  };
  return { loads: () => loads, seen, lazy: (reads) => lazyWorkflowClientInterceptor(async () => { loads++; return real; }, { reads }) };
}

test('reads off: query and describe pass straight to next and load nothing; a signal and a start still load and go through', async () => {
  const c = counting();
  const lazy = c.lazy(false);
  await expect(call(lazy, 'query', { queryType: 'status' })).resolves.toEqual({ got: { queryType: 'status' } });
  await expect(call(lazy, 'describe', { id: 'w' })).resolves.toEqual({ got: { id: 'w' } });
  expect(c.loads()).toBe(0);
  expect(c.seen).toEqual([]);
  await call(lazy, 'signal', { signalName: 'pause' });
  await call(lazy, 'startWithDetails', { workflowType: 't' });
  expect(c.loads()).toBe(1);
  expect(c.seen).toEqual(['signal', 'start']);
});

test('reads on: query and describe go through the loaded interceptor', async () => {
  const c = counting();
  const lazy = c.lazy(true);
  await call(lazy, 'describe', { id: 'w' });
  await call(lazy, 'query', { queryType: 'status' });
  expect(c.loads()).toBe(1);
  expect(c.seen).toEqual(['describe', 'query']);
});

describe('clientSpansExported', () => {
  const endpoint = 'http://127.0.0.1:4318';
  test('an OTLP endpoint (base or traces) turns it on', () => {
    expect(clientSpansExported({})).toBe(false);
    expect(clientSpansExported({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toBe(true);
    expect(clientSpansExported({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces` })).toBe(true);
  });
  test('a destination that exports nothing does not: SDK disabled, traces exporter none, an unknown protocol, no valid URL, only metrics', () => {
    expect(clientSpansExported({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(clientSpansExported({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(clientSpansExported({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'carrier-pigeon' })).toBe(false);
    expect(clientSpansExported({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toBe(false);
    expect(clientSpansExported({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${endpoint}/v1/metrics` })).toBe(false);
  });
  test('a tracer provider registered in the process (an application\'s own SDK) turns it on without any variable; a propagator alone does not', () => {
    expect(clientSpansExported({})).toBe(false);
    propagation.setGlobalPropagator({ inject() { /* none */ }, extract: (c) => c, fields: () => [] });
    try {
      expect(clientSpansExported({})).toBe(false);
      trace.setGlobalTracerProvider(new BasicTracerProvider());
      expect(clientSpansExported({})).toBe(true);
    } finally {
      trace.disable();
      propagation.disable();
    }
    expect(clientSpansExported({})).toBe(false);
  });
});
