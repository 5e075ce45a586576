/**
 * Production worker entry: connects where the Temporal connection settings say (TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, or a TEMPORAL_PROFILE of the Temporal
 * config file: src/connection/config.ts; default 127.0.0.1:7233, namespace default), polls
 * LOOM_TASK_QUEUE (default `agentloom`), concurrency from LOOM_MAX_CONCURRENT_ACTIVITIES /
 * LOOM_MAX_CONCURRENT_WORKFLOW_TASKS, and shuts down gracefully on SIGINT/SIGTERM (in-flight
 * activities get the shutdown grace time). Uses the prebuilt workflow bundle when present (its sealed
 * build, dist/workflow-bundle-sealed.js, when a codec key is set: decision 281).
 */
import { NativeConnection } from '@temporalio/worker';
import { createAgentloomWorker, installWorkerRuntime } from './src/worker/create-worker';
import { AgentTracing } from './src/telemetry/tracing';
import { describeConnection, loadTemporalConfig } from './src/connection/config';

async function main(): Promise<void> {
  const cfg = loadTemporalConfig();
  const address = cfg.address ?? '127.0.0.1:7233';
  // Errors only unless LOOM_LOG_LEVEL says otherwise (the same rule as loom dev / loom run).
  installWorkerRuntime();
  const connection = await NativeConnection.connect({ ...cfg.connectionOptions, address });
  const tracing = new AgentTracing();
  const worker = await createAgentloomWorker({ connection, namespace: cfg.namespace, tracing });
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => worker.shutdown());
  // Never the API key: describeConnection says only that one is used.
  process.stdout.write(`agentloom worker connected to ${describeConnection(address, cfg)}, task queue ${worker.options.taskQueue}\n`);
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
