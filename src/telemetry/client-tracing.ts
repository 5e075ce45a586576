/**
 * The Temporal client interceptors of the CLI, loaded only when they have somewhere to send spans:
 * an OTEL_* trace destination (otel-env.ts). Without one, no OpenTelemetry SDK, exporter or gRPC
 * module is loaded (they slow every command's start), no client span is made and the run starts
 * without a trace context: the worker gives it its own trace, as for any run started that way.
 */
import type { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { readOtelEnv } from './otel-env';

/** The OTEL_* variables name a trace destination (and do not switch traces or the SDK off). */
export function clientTracesExported(env: NodeJS.ProcessEnv = process.env): boolean {
  const otel = readOtelEnv(env);
  const t = otel.signals.traces;
  return !otel.disabled && !t.off && !t.unsupported && Boolean(t.endpoint);
}

/** ClientOptions.interceptors for the CLI's client: Temporal's tracing interceptors, or none. */
export async function lazyClientInterceptors(env: NodeJS.ProcessEnv = process.env): Promise<{ workflow: OpenTelemetryWorkflowClientInterceptor[] } | undefined> {
  if (!clientTracesExported(env)) return undefined;
  const { temporalClientInterceptors } = await import('./temporal-tracing');
  return temporalClientInterceptors();
}
