/**
 * The application's client: it runs its own workflow (ship order A-42), then asks the Agentloom
 * agent `order-desk` where that order is, with AgentloomClient (compile the registry's agent with
 * the worker's tools known, store the compiled bundle, start the run on the application's task
 * queue, wait for its output); then has `refund-desk` refund order A-43: the run waits for a
 * person to approve its refund_order call, which this client approves, and it prints the model's
 * text as it streamed and the run's result.
 */
import { AgentloomClient } from '@agentloom/core';
import type { shipOrderWorkflow } from './workflows';
import { REGISTRY, TASK_QUEUE } from './settings';
import { TOOLS } from './tools';

/** The first call of run `id` waiting for a person's approval (waits up to a minute for the model to ask). */
async function pendingApproval(loom: AgentloomClient, id: string): Promise<{ call_id: string; tool: string }> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    const [call] = (await loom.status(id)).pending_approvals ?? [];
    if (call) return call;
  }
  throw new Error(`run ${id} asked for no approval within a minute`);
}

async function main(): Promise<void> {
  const order = process.argv[2] ?? 'A-42';
  const loom = await AgentloomClient.connect({ registry: REGISTRY, taskQueue: TASK_QUEUE, code: { tools: TOOLS } });
  try {
    const shipped = await loom.client.workflow.execute<typeof shipOrderWorkflow>('shipOrderWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: `ship-${order}-${Date.now()}`,
      args: [order],
    });
    console.log(`shipOrderWorkflow: ${shipped}`);
    const answer = await loom.run('order-desk', { order });
    console.log(`order-desk: ${typeof answer === 'string' ? answer : JSON.stringify(answer)}`);

    // A gated call: the run waits until a person approves refund_order; its text streams meanwhile.
    const refund = process.argv[3] ?? 'A-43';
    const id = await loom.start('refund-desk', { order: refund }, { stream: true });
    let streamed = '';
    const streaming = (async () => { for await (const text of loom.stream(id)) streamed += text; })();
    const call = await pendingApproval(loom, id);
    await loom.approve(id, call.call_id);
    console.log(`refund-desk approved: ${call.tool}`);
    const result = await loom.result(id);
    await streaming;
    console.log(`refund-desk streamed: ${streamed.trimEnd()}`);
    console.log(`refund-desk: ${typeof result === 'string' ? result : JSON.stringify(result)}`);
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
