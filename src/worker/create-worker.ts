/**
 * One place that builds an Agentloom worker: used by worker.ts (production), `loom dev` and
 * `loom run` (embedded), and the demo. A thin user of AgentloomPlugin (src/plugin/agentloom-plugin.ts),
 * which a user's own worker takes the same way. Workflow code comes from a prebuilt bundle when one exists
 * (dist/workflow-bundle.js, built by `npm run build:bundle`) and is bundled from source otherwise;
 * a worker that encrypts runs the sealed build beside it (workflow-bundle-sealed.js), so a workflow's own failures are encrypted too.
 * LOOM_WORKFLOWS_PATH points at a vendor's own workflows module (which re-exports ours and calls
 * registerPolicy) to add x-<vendor>.* policies. `installWorkerRuntime` sets how much the worker
 * logs: errors only by default (no bundle logs), more with --verbose or LOOM_LOG_LEVEL.
 */
import { DefaultLogger, LogLevel, NativeConnection, Runtime, Worker, WorkerOptions } from '@temporalio/worker';
import { DEFAULT_TASK_QUEUE } from '../shared/contract';
import { envInt } from '../platform/env';
export { workflowSource } from '../plugin/workflow-source';
import type { AgentTracing } from '../telemetry/tracing';

export interface AgentloomWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** Extra activities (merged over the built-in ones). */
  activities?: Record<string, (...args: any[]) => any>;
  maxConcurrentActivityTaskExecutions?: number;
  maxConcurrentWorkflowTaskExecutions?: number;
  /**
   * OpenTelemetry spans and metrics of the agents' `observability` (src/telemetry). Pass one
   * to flush it on shutdown (worker.ts does); else the worker makes its own, flushed before exit.
   */
  tracing?: AgentTracing;
}

/**
 * Worker settings over the SDK defaults (`npm run bench:runtime` measures them against the defaults;
 * BENCH_WORKER tries one before it goes here). Empty: measured, nothing in the worker's options was
 * on a turn's wait. After its first workflow task a run stays on this worker's sticky queue and
 * each task is matched to a waiting poll at once, activities start with the workflow task that
 * schedules them, and fewer pollers changed nothing; the wait was the dev server's transfer queue
 * (DEV_SERVER_TUNING in src/platform/temporal-dev-server.ts).
 */
export const WORKER_TUNING: Partial<WorkerOptions> = {};

const LEVELS: LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** LOOM_LOG_LEVEL (TRACE|DEBUG|INFO|WARN|ERROR), else INFO with --verbose, else ERROR. */
export function workerLogLevel(verbose = false): LogLevel {
  const raw = process.env.LOOM_LOG_LEVEL;
  if (raw) {
    const level = raw.toUpperCase() as LogLevel;
    if (!LEVELS.includes(level)) throw new Error(`LOOM_LOG_LEVEL must be one of ${LEVELS.join(', ')}, got '${raw}'`);
    return level;
  }
  return verbose ? 'INFO' : 'ERROR';
}

/**
 * Install Temporal's runtime with the worker log level, for the processes that run a worker
 * (`loom dev`, `loom run` embedded, the demo, worker.ts). Call it before the first NativeConnection
 * or Worker; a process that installed its runtime already (a test harness) keeps its own.
 */
export function installWorkerRuntime(verbose = false): void {
  if (Runtime._instance) return;
  const level = workerLogLevel(verbose);
  Runtime.install({
    logger: new DefaultLogger(level),
    telemetryOptions: { logging: { filter: { core: level, other: level }, forward: {} } },
  });
}

export async function createAgentloomWorker(opts: AgentloomWorkerOptions): Promise<Worker> {
  // Loaded lazily: activities pull in ajv/openai, which `loom validate` never needs.
  const { AgentloomPlugin } = await import('../plugin/agentloom-plugin');
  // Activities, workflows (a prebuilt bundle when there is one, its sealed build for a worker that
  // encrypts), the data converter (the codec when LOOM_CODEC_KEY… is set), spans.
  const plugin = new AgentloomPlugin({ activities: opts.activities, tracing: opts.tracing });
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace ?? process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: opts.taskQueue ?? process.env.LOOM_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    plugins: [plugin],
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivityTaskExecutions ?? envInt('LOOM_MAX_CONCURRENT_ACTIVITIES') ?? 100,
    maxConcurrentWorkflowTaskExecutions: opts.maxConcurrentWorkflowTaskExecutions ?? envInt('LOOM_MAX_CONCURRENT_WORKFLOW_TASKS') ?? 40,
    shutdownGraceTime: '10s',
    ...WORKER_TUNING,
  });
}
