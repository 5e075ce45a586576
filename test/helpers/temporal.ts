/**
 * Test harness: a real Temporal dev server (started once by test/setup/global-setup.ts), a
 * Client, and a Worker on a fresh task queue run with `runUntil` (the samples-typescript shape).
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, Runtime, DefaultLogger, WorkerOptions, type InjectedSinks } from '@temporalio/worker';
import type { AgentloomTracingSinks } from '../../src/telemetry/sink-types';
import { randomUUID } from 'crypto';

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
  return Worker.create({
    connection: t.nativeConnection,
    namespace: 'default',
    taskQueue: t.taskQueue,
    workflowBundle: { codePath: workflowBundlePath() },
    activities,
    // The telemetry sinks the workflows call (src/telemetry/sink-types.ts), as no-ops: a test that
    // checks telemetry passes an AgentTracing's sinks in `extra`.
    sinks: NO_TELEMETRY_SINKS,
    ...extra,
  });
}
