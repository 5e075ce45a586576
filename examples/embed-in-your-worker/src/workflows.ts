/**
 * The application's own workflows: the worker passes this module as its `workflowsPath`, and
 * AgentloomPlugin adds Agentloom's workflows beside them in the same bundle.
 */
import { proxyActivities } from '@temporalio/workflow';
import type * as activities from './activities';

const { markShipped } = proxyActivities<typeof activities>({ startToCloseTimeout: '10 seconds' });

export async function shipOrderWorkflow(orderId: string): Promise<string> {
  return markShipped(orderId, 'Parcelforce');
}
