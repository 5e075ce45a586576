/**
 * Production worker entry: connects to TEMPORAL_ADDRESS (default 127.0.0.1:7233), polls
 * LOOM_TASK_QUEUE (default `agentloom`), concurrency from LOOM_MAX_CONCURRENT_ACTIVITIES /
 * LOOM_MAX_CONCURRENT_WORKFLOW_TASKS, and shuts down gracefully on SIGINT/SIGTERM (in-flight
 * activities get the shutdown grace time). Uses the prebuilt workflow bundle when present (its sealed
 * build, dist/workflow-bundle-sealed.js, when a codec key is set: decision 281).
 */
import { NativeConnection } from '@temporalio/worker';
import { createAgentloomWorker, installWorkerRuntime } from './src/worker/create-worker';
import { AgentTracing } from './src/telemetry/tracing';

async function main(): Promise<void> {
  const address = process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
  // Errors only unless LOOM_LOG_LEVEL says otherwise (the same rule as loom dev / loom run).
  installWorkerRuntime();
  const connection = await NativeConnection.connect({ address });
  const tracing = new AgentTracing();
  const worker = await createAgentloomWorker({ connection, tracing });
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => worker.shutdown());
  process.stdout.write(`agentloom worker connected to ${address}, task queue ${worker.options.taskQueue}\n`);
  try {
    await worker.run();
  } finally {
    await tracing.shutdown(); // spans still batched are exported before the process ends
    await connection.close();
  }
}

main().catch((err) => {
  process.stderr.write(`worker: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
