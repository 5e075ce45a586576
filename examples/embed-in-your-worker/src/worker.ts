/**
 * The application's worker: ONE `Worker.create` on ONE task queue runs the application's own
 * workflow and activity and, through AgentloomPlugin, Agentloom's workflows, activities and the
 * tools defined in code (one of them gated by a human approval). The connection comes from Temporal's environment configuration
 * (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, or a profile).
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentloomPlugin, loadTemporalConfig } from '@agentloom/core/worker';
import * as activities from './activities';
import { TOOLS } from './tools';
import { TASK_QUEUE } from './settings';

async function main(): Promise<void> {
  const config = loadTemporalConfig();
  const connection = await NativeConnection.connect({ ...config.connectionOptions, address: config.address ?? '127.0.0.1:7233' });
  try {
    const worker = await Worker.create({
      connection,
      namespace: config.namespace,
      taskQueue: TASK_QUEUE,
      workflowsPath: require.resolve('./workflows'),
      activities,
      plugins: [new AgentloomPlugin({ tools: TOOLS })],
    });
    console.log(`worker ready on task queue ${TASK_QUEUE}`);
    // Runs until SIGINT or SIGTERM, then finishes the tasks in hand.
    await worker.run();
  } finally {
    await connection.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
