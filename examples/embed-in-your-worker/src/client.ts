/**
 * The application's client: it runs its own workflow (ship order A-42), then asks the Agentloom
 * agent `order-desk` where that order is, with AgentloomClient (compile the registry's agent,
 * store the compiled bundle, start the run on the application's task queue, wait for its output).
 */
import { AgentloomClient } from '@agentloom/core';
import type { shipOrderWorkflow } from './workflows';
import { REGISTRY, TASK_QUEUE } from './settings';

async function main(): Promise<void> {
  const order = process.argv[2] ?? 'A-42';
  const loom = await AgentloomClient.connect({ registry: REGISTRY, taskQueue: TASK_QUEUE });
  try {
    const shipped = await loom.client.workflow.execute<typeof shipOrderWorkflow>('shipOrderWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: `ship-${order}-${Date.now()}`,
      args: [order],
    });
    console.log(`shipOrderWorkflow: ${shipped}`);
    const answer = await loom.run('order-desk', { order });
    console.log(`order-desk: ${typeof answer === 'string' ? answer : JSON.stringify(answer)}`);
  } finally {
    await loom.close();
  }
}

main().catch((err) => {
  // The message and every cause under it ("Failed to start Workflow: … search attribute …").
  const lines: string[] = [];
  for (let e: unknown = err; e !== undefined && e !== null && lines.length < 10; e = (e as { cause?: unknown }).cause) {
    lines.push(e instanceof Error ? e.message : String(e));
  }
  console.error(lines.join(': '));
  process.exit(1);
});
