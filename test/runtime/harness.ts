/** Shared per-file harness: one real worker on a fresh task queue, helpers to start and poll runs. */
import type { WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { createActivities } from '../../src/activities';
import { agfReactWorkflow } from '../../src/workflows/react';
import type { RunAgentInput, RunStatus } from '../../src/shared/contract';
import { testStore } from './builders';

export interface Harness {
  t: TestTemporal;
  start(input: RunAgentInput, id?: string): Promise<WorkflowHandleWithFirstExecutionRunId<typeof agfReactWorkflow>>;
  /** Start any workflow type (an orchestrator root) on this harness's worker. */
  startType(type: string, input: RunAgentInput, id?: string): Promise<WorkflowHandleWithFirstExecutionRunId>;
  close(): Promise<void>;
}

export async function startHarness(prefix: string): Promise<Harness> {
  const t = await connectTestTemporal(prefix);
  const worker: Worker = await createTestWorker(t, createActivities({ store: testStore() }));
  const running = worker.run();
  return {
    t,
    async start(input, id) {
      const wid = id ?? `${input.agent_id}-${Math.random().toString(36).slice(2, 10)}`;
      return t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: wid, args: [input] });
    },
    async startType(type, input, id) {
      const wid = id ?? `${input.agent_id}-${Math.random().toString(36).slice(2, 10)}`;
      return t.client.workflow.start(type, { taskQueue: t.taskQueue, workflowId: wid, args: [input] });
    },
    async close() {
      worker.shutdown();
      await running;
      await t.close();
    },
  };
}

/** Poll the status query until `pred` holds (or fail after `ms`). */
export async function waitForStatus(h: WorkflowHandle, pred: (s: RunStatus) => boolean, ms = 20000): Promise<RunStatus> {
  const end = Date.now() + ms;
  let last: RunStatus | undefined;
  while (Date.now() < end) {
    try {
      last = await h.query<RunStatus>('status');
      if (pred(last)) return last;
    } catch {
      // not started yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`status condition not met in ${ms} ms; last status: ${JSON.stringify(last)}`);
}

/** Activity types scheduled so far, in order. */
export async function scheduledActivities(h: WorkflowHandle): Promise<string[]> {
  const hist = await h.fetchHistory();
  return (hist.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes)
    .map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name!);
}
