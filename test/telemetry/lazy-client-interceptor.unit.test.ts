/**
 * The CLI's client tracing interceptor loads Temporal's OpenTelemetry interceptor on the first call
 * it intercepts, once, and hands every call to it unchanged (input, next, result, errors); a method
 * the loaded interceptor lacks goes straight to `next`.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { lazyWorkflowClientInterceptor } from '../../src/telemetry/lazy-client-interceptor';

type AnyCall = (input: unknown, next: (i: unknown) => Promise<unknown>) => Promise<unknown>;
const call = (i: WorkflowClientInterceptor, method: keyof WorkflowClientInterceptor, input: unknown, next: (i: unknown) => Promise<unknown>) =>
  (i[method] as unknown as AnyCall)(input, next);

test('nothing loads until a call is intercepted; then once, however many calls race', async () => {
  let loads = 0;
  const seen: string[] = [];
  const real: WorkflowClientInterceptor = {
    async query(input, next) { seen.push(`query:${(input as unknown as { queryType: string }).queryType}`); return next({ ...input, headers: { traced: {} } } as typeof input); },
    async describe(input, next) { seen.push('describe'); return next(input); },
  };
  const lazy = lazyWorkflowClientInterceptor(async () => { loads++; return real; });
  expect(loads).toBe(0);
  const next = async (i: unknown) => ({ got: i });
  const [a, b] = await Promise.all([
    call(lazy, 'query', { queryType: 'status', headers: {} }, next),
    call(lazy, 'describe', { workflowExecution: { workflowId: 'w' } }, next),
  ]);
  expect(loads).toBe(1);
  // The loaded interceptor saw each call and what it passed on reached `next`.
  expect(seen.sort()).toEqual(['describe', 'query:status']);
  expect(a).toEqual({ got: { queryType: 'status', headers: { traced: {} } } });
  expect(b).toEqual({ got: { workflowExecution: { workflowId: 'w' } } });
  await call(lazy, 'query', { queryType: 'again', headers: {} }, next);
  expect(loads).toBe(1);
});

test('a method the loaded interceptor lacks calls next; its errors reach the caller', async () => {
  const lazy = lazyWorkflowClientInterceptor(async () => ({
    async signal() { throw new Error('signal refused'); },
  }));
  await expect(call(lazy, 'cancel', { id: 1 }, async (i) => ({ passed: i }))).resolves.toEqual({ passed: { id: 1 } });
  await expect(call(lazy, 'signal', {}, async () => undefined)).rejects.toThrow('signal refused');
});

test('every call the SDK OpenTelemetry interceptor traces goes through the lazy one', () => {
  const lazy = lazyWorkflowClientInterceptor(async () => ({}));
  // `start` is the SDK's legacy form: the client calls `startWithDetails`.
  const traced = Object.getOwnPropertyNames(OpenTelemetryWorkflowClientInterceptor.prototype).filter((m) => m !== 'constructor' && m !== 'start');
  expect(traced.length).toBeGreaterThan(5);
  expect(Object.keys(lazy)).toEqual(expect.arrayContaining(traced));
});
