/** Shared per-file harness: one real worker on a fresh task queue, helpers to start and poll runs. */
import type { WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { createActivities } from '../../src/activities';
import { agfReactWorkflow } from '../../src/workflows/react';
import type { RunAgentInput, RunStatus } from '../../src/shared/contract';
import { testStore } from './builders';
import { untilOk } from '../helpers/wait';

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
  let last: RunStatus | undefined;
  return untilOk(
    async () => {
      last = await h.query<RunStatus>('status'); // throws until the run's first workflow task: polled again
      return pred(last) ? last : undefined;
    },
    () => `the status condition; last status: ${JSON.stringify(last)}`,
    ms,
  );
}

/** Activity types scheduled so far, in order. */
export async function scheduledActivities(h: WorkflowHandle): Promise<string[]> {
  const hist = await h.fetchHistory();
  return (hist.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes)
    .map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name!);
}
