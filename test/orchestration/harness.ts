/**
 * Integration harness: a real dev server (global setup) and a worker on a fresh task queue.
 * Members run through the runtime's agfReactWorkflow and the activities of
 * src/activities/index.ts when they exist (LOOM_ORCH_STUB unset); otherwise through the interim
 * stub in ./stub (same contract, single scripted turn).
 */
import * as fs from 'fs';
import * as path from 'path';
import { randomUUID } from 'crypto';
import { Worker } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import type { CompiledBundle, JsonValue } from '../../src/compiler/types';
import type { RunAgentInput, RunOptions } from '../../src/shared/contract';
import { SEARCH_ATTRIBUTES } from '../../src/shared/contract';
import { patternOf, workflowTypeFor } from '../../src/shared/dispatch';
import { store, testStore } from './builders';

const ROOT = path.resolve(__dirname, '..', '..');

export function useRealRuntime(): boolean {
  if (process.env.LOOM_ORCH_STUB === '1') return false;
  return !!process.env.LOOM_TEST_WORKFLOW_BUNDLE && fs.existsSync(path.join(ROOT, 'src', 'activities', 'index.ts'));
}

export interface Harness {
  t: TestTemporal;
  worker: Worker;
  running: Promise<void>;
  start(b: CompiledBundle, input: JsonValue, opts?: { options?: RunOptions; id?: string }): Promise<WorkflowHandle>;
  close(): Promise<void>;
}

export async function startHarness(prefix: string): Promise<Harness> {
  testStore();
  const t = await connectTestTemporal(prefix);
  let worker: Worker;
  if (useRealRuntime()) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createActivities } = require('../../src/activities') as { createActivities: () => object };
    worker = await createTestWorker(t, createActivities());
  } else {
    const { stubActivities } = await import('./stub/activities');
    worker = await Worker.create({
      connection: t.nativeConnection,
      namespace: 'default',
      taskQueue: t.taskQueue,
      workflowsPath: require.resolve('./stub/workflows'),
      activities: stubActivities(),
    });
  }
  const running = worker.run();
  return {
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
      worker.shutdown();
      await running;
      await t.close();
    },
  };
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
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v !== undefined && v !== null && (v as unknown) !== false) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/** Child workflow ids started under a run (members are `<parent>/<role>`). */
export async function childIds(h: Harness, parentId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of h.t.client.workflow.list({ query: `WorkflowId STARTS_WITH '${parentId}/'` })) ids.push(wf.workflowId);
  return ids.sort();
}
