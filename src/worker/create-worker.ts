/**
 * One place that builds an Agentloom worker: used by worker.ts (production), `loom dev` and
 * `loom run` (embedded), and the demo. Workflow code comes from a prebuilt bundle when one exists
 * (dist/workflow-bundle.js, built by `npm run build:bundle`) and is bundled from source otherwise;
 * a worker that encrypts runs the sealed build beside it (workflow-bundle-sealed.js, decision 281).
 * LOOM_WORKFLOWS_PATH points at a vendor's own workflows module (which re-exports ours and calls
 * registerPolicy) to add x-<vendor>.* policies. `installWorkerRuntime` sets how much the worker
 * logs: errors only by default (no bundle logs), more with --verbose or LOOM_LOG_LEVEL.
 */
import * as fs from 'fs';
import * as path from 'path';
import { DefaultLogger, LogLevel, NativeConnection, Runtime, Worker, WorkerOptions } from '@temporalio/worker';
import { DEFAULT_TASK_QUEUE } from '../shared/contract';
import { PROJECT_ROOT } from '../server/dev-server';
import { envInt } from '../activities/env';
import { loomWorkerDataConverter } from '../codec/data-converter';
import { isSealedBundle, sealedBundlePath } from './bundle';
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

/** Worker settings over the SDK defaults (`npm run bench:runtime` measures them against the defaults). */
export const WORKER_TUNING: Partial<WorkerOptions> = {};

/**
 * The workflow code a worker runs. `sealedFailures` (the worker encrypts): the sealed bundle beside
 * the plain one (src/worker/bundle.ts), or a LOOM_WORKFLOW_BUNDLE that is itself sealed; a plain
 * bundle without its sealed build is not used (its workflow failures would stay in the clear): the
 * workflows are bundled from source with the encoding failure converter instead, said on stderr.
 */
export function workflowSource(sealedFailures = false, warn: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  // Bundled by the worker, with the data converter's failure converter when it has one.
  if (process.env.LOOM_WORKFLOWS_PATH) return { workflowsPath: path.resolve(process.env.LOOM_WORKFLOWS_PATH) };
  const bundle = process.env.LOOM_WORKFLOW_BUNDLE ?? path.join(PROJECT_ROOT, 'dist', 'workflow-bundle.js');
  const fromSource = { workflowsPath: path.join(PROJECT_ROOT, 'src', 'workflows', 'index.ts') };
  if (!fs.existsSync(bundle)) return fromSource;
  if (!sealedFailures) return { workflowBundle: { codePath: bundle } };
  const sealed = sealedBundlePath(bundle);
  if (fs.existsSync(sealed)) {
    if (!isSealedBundle(sealed)) throw new Error(`${sealed} was not built with the encoding failure converter: rebuild it with \`npm run build:bundle\``);
    return { workflowBundle: { codePath: sealed } };
  }
  if (isSealedBundle(bundle)) return { workflowBundle: { codePath: bundle } };
  if (!fs.existsSync(fromSource.workflowsPath)) {
    throw new Error(`this worker encrypts (a codec key is set) but ${bundle} keeps workflow failures in the clear and ${sealed} is missing: build both with \`npm run build:bundle\``);
  }
  warn(`worker: ${sealed} is missing, so workflows are bundled from source to encrypt the failures they raise (\`npm run build:bundle\` builds it)`);
  return fromSource;
}

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
  const { createActivities } = await import('../activities');
  const { outageInterceptor } = await import('../activities/outages');
  const activities = { ...(createActivities() as Record<string, unknown>), ...(opts.activities ?? {}) };
  const { AgentTracing: Tracing, TRACING_WORKFLOW_MODULE } = await import('../telemetry/tracing');
  const tracing = opts.tracing ?? new Tracing();
  if (!opts.tracing) process.once('beforeExit', () => void tracing.shutdown());
  // Encrypted payloads when a codec key is configured (src/codec), inside the decoding guard: a payload a client
  // sends that this worker cannot decode reaches the workflow as a value its handler refuses (src/codec/decode-guard.ts).
  const dataConverter = loomWorkerDataConverter();
  // An encrypting worker runs the sealed bundle: failures its workflows raise are encrypted too (decision 281).
  const source = workflowSource(dataConverter.failureConverterPath !== undefined);
  const worker = await Worker.create({
    connection: opts.connection,
    namespace: opts.namespace ?? process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: opts.taskQueue ?? process.env.LOOM_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    ...source,
    activities,
    // Spans: activity interceptor (model, tool, guardrail spans) and the agent.run sink, never called
    // during replay. A prebuilt bundle carries the workflow interceptor module already (scripts/build-bundle.ts).
    // Outages: the activity presets retry without limit; outageInterceptor decides when to stop (src/activities/outages.ts).
    interceptors: { activity: [outageInterceptor(), tracing.activityInterceptor], ...(source.workflowsPath ? { workflowModules: [TRACING_WORKFLOW_MODULE] } : {}) },
    sinks: tracing.sinks,
    dataConverter,
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivityTaskExecutions ?? envInt('LOOM_MAX_CONCURRENT_ACTIVITIES') ?? 100,
    maxConcurrentWorkflowTaskExecutions: opts.maxConcurrentWorkflowTaskExecutions ?? envInt('LOOM_MAX_CONCURRENT_WORKFLOW_TASKS') ?? 40,
    shutdownGraceTime: '10s',
    ...WORKER_TUNING,
  });
  // Sub-agent runs join their caller's trace: the tracing sinks describe the caller with the worker's client.
  tracing.useClient(worker.client);
  return worker;
}
