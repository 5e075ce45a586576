/**
 * What the dev-server telemetry tests share: the OTLP span shape the in-process receivers parse, an
 * attribute reader, the workflow bundle with the tracing interceptor module, and a test worker
 * wired with an AgentTracing's activity interceptor and sinks (as createAgentloomWorker wires them).
 */
import * as path from 'path';
import { bundleWorkflowCode, DefaultLogger, type Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import type { McpPool } from '../../src/mcp/pool';
import type { BlobStore } from '../../src/activities/blob-store';
import { TRACING_WORKFLOW_MODULE, type AgentTracing } from '../../src/telemetry/tracing';
import { once } from '../helpers/once';
import { createTestWorker, workflowBundlePath, type TestTemporal } from '../helpers/temporal';

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

/** An OTLP attribute's value (spans, log records, data points). */
export function attr(s: { attributes?: OtlpSpan['attributes'] }, key: string): unknown {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v === undefined ? undefined : Object.values(v)[0];
}

/**
 * The workflows bundled with the tracing interceptor module (the shared test bundle has none): for
 * the worker and replays. Bundled once per suite run, beside the suite's bundle (its folder is the
 * run's own), by the first telemetry file that asks; the others read it (test/helpers/once.ts).
 */
export async function tracingWorkflowCode(): Promise<string> {
  const { value } = await once<string>({
    result: path.join(path.dirname(workflowBundlePath()), 'workflow-bundle-traced.js'),
    produce: async () => (await bundleWorkflowCode({
      workflowsPath: path.join(__dirname, '..', '..', 'src', 'workflows', 'index.ts'),
      workflowInterceptorModules: [TRACING_WORKFLOW_MODULE],
      logger: new DefaultLogger('WARN'),
    })).code,
    read: (code) => code,
    what: 'the workflow bundle with the tracing interceptors (another test file may be bundling it)',
    waitMs: 300_000,
  });
  return value;
}

/** A test worker on `code` whose activities and sinks report to `tracing`, which describes runs with the worker's client. */
export async function createTracingWorker(t: TestTemporal, code: string, tracing: AgentTracing, deps: { store: BlobStore; mcpPool?: McpPool }): Promise<Worker> {
  const worker = await createTestWorker(t, createActivities(deps), {
    workflowBundle: { code },
    interceptors: { activity: [tracing.activityInterceptor] },
    sinks: tracing.sinks,
  });
  tracing.useClient(worker.client);
  return worker;
}

/** The spans of one OTLP/HTTP JSON traces request body. */
export function otlpSpans(body: string): OtlpSpan[] {
  const doc = JSON.parse(body) as { resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[] };
  return (doc.resourceSpans ?? []).flatMap((rs) => (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? []));
}

/** The log records of one OTLP/HTTP JSON logs request body. */
export function otlpLogRecords<T>(body: string): T[] {
  const doc = JSON.parse(body) as { resourceLogs?: { scopeLogs?: { logRecords?: T[] }[] }[] };
  return (doc.resourceLogs ?? []).flatMap((rl) => (rl.scopeLogs ?? []).flatMap((sl) => sl.logRecords ?? []));
}
