/**
 * Test harness: a real Temporal dev server (started once by test/setup/global-setup.ts), a
 * Client, and a Worker on a fresh task queue run with `runUntil` (the samples-typescript shape).
 */
import { outageInterceptor } from '../../src/activities/outages';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, Runtime, DefaultLogger, WorkerOptions, type InjectedSinks } from '@temporalio/worker';
import type { AgentloomTracingSinks } from '../../src/shared/tracing-sinks';
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { bundleLoomWorkflows, sealedBundlePath, writeBundle } from '../../src/plugin/bundle';
import { PROJECT_ROOT } from '../../src/platform/temporal-dev-server';

let runtimeInstalled = false;
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // already installed in this process
  }
}

export function temporalAddress(): string {
  const a = process.env.LOOM_TEST_TEMPORAL_ADDRESS;
  if (!a) throw new Error('LOOM_TEST_TEMPORAL_ADDRESS is not set: run tests through jest (global setup starts the server)');
  return a;
}

export function workflowBundlePath(): string {
  const p = process.env.LOOM_TEST_WORKFLOW_BUNDLE;
  if (!p) throw new Error('LOOM_TEST_WORKFLOW_BUNDLE is not set: src/workflows/index.ts was missing when the suite started');
  return p;
}

/**
 * The suite's bundle built with the encoding failure converter (src/plugin/bundle.ts), beside the
 * plain one so that createAgentloomWorker finds it too; built on first use (encrypting tests only).
 */
export async function sealedWorkflowBundlePath(): Promise<string> {
  const target = sealedBundlePath(workflowBundlePath());
  if (fs.existsSync(target)) return target;
  const quiet = () => undefined;
  const logger = { trace: quiet, debug: quiet, info: quiet, warn: console.warn, error: console.error, log: quiet };
  writeBundle(target, await bundleLoomWorkflows({ workflowsPath: path.join(PROJECT_ROOT, 'src', 'workflows', 'index.ts'), sealed: true, logger }));
  return target;
}

export interface TestTemporal {
  client: Client;
  connection: Connection;
  nativeConnection: NativeConnection;
  taskQueue: string;
  close(): Promise<void>;
}

/** A client, a worker connection and a fresh task queue on the suite's dev server (or the server at `address`). */
export async function connectTestTemporal(prefix = 'test', address = temporalAddress()): Promise<TestTemporal> {
  quietRuntime();
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  const client = new Client({ connection, namespace: 'default' });
  return {
    client,
    connection,
    nativeConnection,
    taskQueue: `${prefix}-${randomUUID()}`,
    async close() {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/** Create a worker over the shared prebuilt bundle on `t.taskQueue`. */
/** The telemetry sinks workflow code calls, as no-ops: for test and replay workers that export nothing. */
export const NO_TELEMETRY_SINKS: InjectedSinks<AgentloomTracingSinks> = {
  agentloomTracing: { runStarted: { fn: () => undefined }, runEnded: { fn: () => undefined }, approvalDecided: { fn: () => undefined } },
};

export async function createTestWorker(
  t: TestTemporal,
  activities: object,
  extra: Partial<WorkerOptions> = {},
): Promise<Worker> {
  // An encrypting worker (its data converter names the encoding failure converter) runs the sealed bundle, as in production.
  const sealed = extra.dataConverter?.failureConverterPath !== undefined;
  return Worker.create({
    connection: t.nativeConnection,
    namespace: 'default',
    taskQueue: t.taskQueue,
    workflowBundle: { codePath: sealed ? await sealedWorkflowBundlePath() : workflowBundlePath() },
    activities,
    // The telemetry sinks the workflows call (src/shared/tracing-sinks.ts), as no-ops: a test that
    // checks telemetry passes an AgentTracing's sinks in `extra`.
    sinks: NO_TELEMETRY_SINKS,
    ...extra,
    // As in production (src/worker/create-worker.ts): the activity presets retry without limit, this ends retrying.
    interceptors: { ...extra.interceptors, activity: [outageInterceptor(), ...(extra.interceptors?.activity ?? [])] },
  });
}
