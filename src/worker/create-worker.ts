/**
 * One place that builds an Agentloom worker: used by worker.ts (production), `loom dev` and
 * `loom run` (embedded), and the demo. Workflow code comes from a prebuilt bundle when one exists
 * (dist/workflow-bundle.js, built by `npm run build:bundle`) and is bundled from source otherwise.
 * LOOM_WORKFLOWS_PATH points at a vendor's own workflows module (which re-exports ours and calls
 * registerPolicy) to add x-<vendor>.* policies.
 */
import * as fs from 'fs';
import * as path from 'path';
import { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import { DEFAULT_TASK_QUEUE } from '../shared/contract';
import { PROJECT_ROOT } from '../server/dev-server';

export interface AgentloomWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** Extra activities (merged over the built-in ones). */
  activities?: Record<string, (...args: any[]) => any>;
  maxConcurrentActivityTaskExecutions?: number;
  maxConcurrentWorkflowTaskExecutions?: number;
}

export function workflowSource(): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  if (process.env.LOOM_WORKFLOWS_PATH) return { workflowsPath: path.resolve(process.env.LOOM_WORKFLOWS_PATH) };
  const bundle = process.env.LOOM_WORKFLOW_BUNDLE ?? path.join(PROJECT_ROOT, 'dist', 'workflow-bundle.js');
  if (fs.existsSync(bundle)) return { workflowBundle: { codePath: bundle } };
  return { workflowsPath: path.join(PROJECT_ROOT, 'src', 'workflows', 'index.ts') };
}

function envInt(name: string): number | undefined {
  const v = process.env[name];
  if (!v) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got '${v}'`);
  return n;
}

export async function createAgentloomWorker(opts: AgentloomWorkerOptions): Promise<Worker> {
  // Loaded lazily: activities pull in ajv/openai, which `loom validate` never needs.
  const { createActivities } = await import('../activities');
  const activities = { ...(createActivities() as Record<string, unknown>), ...(opts.activities ?? {}) };
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace ?? process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: opts.taskQueue ?? process.env.LOOM_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    ...workflowSource(),
    activities,
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivityTaskExecutions ?? envInt('LOOM_MAX_CONCURRENT_ACTIVITIES') ?? 100,
    maxConcurrentWorkflowTaskExecutions: opts.maxConcurrentWorkflowTaskExecutions ?? envInt('LOOM_MAX_CONCURRENT_WORKFLOW_TASKS') ?? 40,
    shutdownGraceTime: '10s',
  });
}
