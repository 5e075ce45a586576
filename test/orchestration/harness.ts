/**
 * Integration harness: the real dev server (global setup), the shared prebuilt bundle of
 * src/workflows/index.ts and the worker activities of src/activities/index.ts, on a fresh task
 * queue per test file. Members run through the runtime's agfReactWorkflow with scripted models.
 */
import { randomUUID } from 'crypto';
import type { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import type { WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import type { CompiledBundle, JsonValue } from '../../src/compiled/types';
import type { RunAgentInput, RunOptions } from '../../src/shared/contract';
import { SEARCH_ATTRIBUTES } from '../../src/shared/contract';
import { patternOf, workflowTypeFor } from '../../src/shared/dispatch';
import { store, testStore } from './builders';
import { untilOk } from '../helpers/wait';

export interface Harness {
  t: TestTemporal;
  worker: Worker;
  running: Promise<void>;
  start(b: CompiledBundle, input: JsonValue, opts?: { options?: RunOptions; id?: string }): Promise<WorkflowHandleWithFirstExecutionRunId>;
  close(): Promise<void>;
}

export async function startHarness(prefix: string): Promise<Harness> {
  testStore();
  const t = await connectTestTemporal(prefix);
  const worker = await createTestWorker(t, createActivities());
  const running = worker.run();
  const harness: Harness = {
    t,
    worker,
    running,
    async start(b, input, opts = {}) {
      const ref = await store(b);
      const root = b.agents[b.root];
      const type = workflowTypeFor(root);
      if (!type) throw new Error(`no workflow type for ${patternOf(root)}`);
      const args: RunAgentInput = { bundle: ref, agent_id: b.root, input, ...(opts.options ? { options: opts.options } : {}) };
      return t.client.workflow.start(type, {
        taskQueue: t.taskQueue,
        workflowId: opts.id ?? `${prefix}-${b.root}-${randomUUID().slice(0, 8)}`,
        args: [args],
        searchAttributes: {
          [SEARCH_ATTRIBUTES.agentId]: [b.root],
          [SEARCH_ATTRIBUTES.pattern]: [patternOf(root)],
          [SEARCH_ATTRIBUTES.status]: ['running'],
        },
      });
    },
    async close() {
      try {
        harness.worker.shutdown();
      } catch {
        // already stopped
      }
      await harness.running.catch(() => undefined);
      await t.close();
    },
  };
  return harness;
}

/** The failure message chain of a failed workflow result. */
export async function failureOf(h: WorkflowHandle): Promise<string> {
  try {
    await h.result();
  } catch (err) {
    const parts: string[] = [];
    let e: any = err;
    while (e) {
      parts.push(`${e.type ? `[${e.type}] ` : ''}${e.message}`);
      e = e.cause;
    }
    return parts.join(' <- ');
  }
  throw new Error(`${h.workflowId} did not fail`);
}

export async function waitFor<T>(fn: () => Promise<T | undefined>, what: string, timeoutMs = 30000): Promise<T> {
  return untilOk(async () => {
    const v = await fn();
    return v !== undefined && v !== null && (v as unknown) !== false ? v : undefined;
  }, what, timeoutMs, 250);
}

/** Child workflow ids started under a run (members are `<parent>/<role>`). */
export async function childIds(h: Harness, parentId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of h.t.client.workflow.list({ query: `WorkflowId STARTS_WITH '${parentId}/'` })) ids.push(wf.workflowId);
  return ids.sort();
}
