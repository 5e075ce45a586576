/**
 * Agentloom as a Temporal plugin: `new AgentloomPlugin({ store, tools, codec, … })` (tools from
 * defineTool, src/plugin/define-tool.ts) in a user's own
 * `Worker.create({ plugins: [...] })` registers Agentloom's activities and workflows beside the
 * user's own on their task queue, and on a Client (`new Client({ plugins })`) sets the data
 * converter its workers use. Built on `@temporalio/plugin`'s SimplePlugin, as `@temporalio/ai-sdk`'s
 * AiSdkPlugin is. What it adds over SimplePlugin:
 *  - workflows: a worker that names its own `workflowsPath` runs a module that re-exports both
 *    the user's workflows and Agentloom's (written once to a temporary folder); a worker that names
 *    none runs Agentloom's (a prebuilt bundle when there is one: src/plugin/workflow-source.ts); a
 *    user's prebuilt `workflowBundle` is kept as given — build it with `bundleWorkflowCode({
 *    workflowsPath, plugins: [plugin] })`, which adds Agentloom's workflows the same way;
 *  - `policies` (`{ 'x-<vendor>.<name>': modulePath }`): vendor execution policies written in code,
 *    bundled with the workflows and registered under their ids (the module exports `policy`, or a
 *    default export); a worker without its own workflowsPath then bundles Agentloom's workflows with
 *    them instead of using a prebuilt bundle;
 *  - `compile(registry, agentId)`: the compiler with this worker's code tools and policies known, so
 *    a `kind: code` tool or `x-<vendor>` policy it does not register is a compile error;
 *  - the telemetry sinks the workflows call (agent.run spans), merged into the worker's sinks;
 *  - the worker's client given to the tracing (sub-agent runs join their caller's trace).
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { SimplePlugin } from '@temporalio/plugin';
import type { DataConverter } from '@temporalio/common';
import type { BundleOptions, ReplayWorkerOptions, Worker, WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { FAILURE_CONVERTER_PATH, loomWorkerDataConverter } from '../codec/data-converter';
import { DecodeGuardCodec } from '../codec/decode-guard';
import { outageInterceptor } from '../activities/outages';
import { type DataConverterChoice } from './client-plugin';
import { executorWithTools, type AgentloomTool } from './define-tool';
import { executeTool } from '../activities/tools';
import { AgentTracing, TRACING_WORKFLOW_MODULE } from '../telemetry/tracing';
import { AGENTLOOM_WORKFLOWS_PATH, workflowSource } from './workflow-source';
import { compileBundle, type CodeRegistry } from '../compiler';
import type { CompiledBundle, Diagnostic } from '../compiled/types';

/** Vendor policies written in code: `x-<vendor>.<name>` -> the path of a workflow module exporting `policy` (or a default export). */
export type PolicyModules = Record<string, string>;

const VENDOR_POLICY_ID = /^x-[a-z0-9][a-z0-9-]*\.[A-Za-z0-9_.-]+$/;

/**
 * `codec` / `dataConverter`: the data converter of worker and client (default: the AES-256-GCM codec
 * when LOOM_CODEC_KEY… is set). On the worker a codec (given or from the environment) sits inside the
 * decoding guard (src/codec/decode-guard.ts): a payload a client sends that the worker cannot decode
 * reaches the workflow as a value its handler refuses. A whole `dataConverter` is used as given.
 */
export interface AgentloomPluginOptions extends ActivityDeps, DataConverterChoice {
  /** Tools defined in code (defineTool): a registry's `kind: builtin` tool with their name runs them (toolFile writes its declaration). */
  tools?: AgentloomTool[];
  /** Vendor policies written in code: `{ 'x-acme.fallback': require.resolve('./fallback-policy') }`, bundled and registered under their ids. */
  policies?: PolicyModules;
  /** Extra activities, merged over Agentloom's. */
  activities?: Record<string, (...args: any[]) => any>;
  /** OpenTelemetry spans and metrics of the agents' `observability`; else the plugin makes one, flushed before the process exits. */
  tracing?: AgentTracing;
}

export class AgentloomPlugin extends SimplePlugin {
  readonly tracing: AgentTracing;
  private readonly ownTracing: boolean;
  private readonly converter: DataConverter | undefined;
  private readonly policyModules: PolicyModules;
  /** The tool names and policy ids this worker registers in code, as the compiler checks them. */
  readonly code: Required<CodeRegistry>;

  constructor(options: AgentloomPluginOptions = {}) {
    const policies = options.policies ?? {};
    for (const [id, file] of Object.entries(policies)) {
      if (!VENDOR_POLICY_ID.test(id)) throw new Error(`AgentloomPlugin policies: '${id}' is not a vendor policy id; write x-<vendor>.<name>, e.g. x-acme.fallback`);
      if (typeof file !== 'string' || !path.isAbsolute(file)) throw new Error(`AgentloomPlugin policies['${id}']: give the module's absolute path, e.g. require.resolve('./my-policy') (got ${JSON.stringify(file)})`);
    }
    const converter = options.dataConverter === null
      ? undefined
      : options.dataConverter ?? (options.codec ? { payloadCodecs: [new DecodeGuardCodec([options.codec])], failureConverterPath: FAILURE_CONVERTER_PATH } : loomWorkerDataConverter());
    const tracing = options.tracing ?? new AgentTracing({ store: options.store });
    const { codec: _codec, dataConverter: _dc, activities, tracing: _t, tools, policies: _p, ...deps } = options;
    // Always wrapped: a `kind: code` tool the worker lacks fails naming it (define-tool.ts).
    deps.toolExecutor = executorWithTools(tools ?? [], deps.toolExecutor ?? executeTool);
    super({
      name: 'agentloom.AgentloomPlugin',
      activities: { ...(createActivities(deps) as Record<string, unknown>), ...(activities ?? {}) },
      dataConverter: converter,
      // Spans: the activity interceptor (model, tool, guardrail spans) and, for workflows bundled by
      // the worker, the workflow interceptor module (a bundle gets it from configureBundler).
      // Outages: the activity presets retry without limit; outageInterceptor decides when to stop (src/activities/outages.ts).
      // Temporal's own spans (src/telemetry/temporal-tracing.ts) come with the tracing: its activity interceptor and module, and the worker client's starts.
      workerInterceptors: { activity: [outageInterceptor(), tracing.activityInterceptor], workflowModules: [TRACING_WORKFLOW_MODULE], client: { workflow: [tracing.temporal.clientInterceptor()] } },
    });
    this.tracing = tracing;
    this.ownTracing = options.tracing === undefined;
    this.converter = converter;
    this.policyModules = policies;
    this.code = { tools: (tools ?? []).map((t) => t.name), policies: Object.keys(policies).sort() };
  }

  /**
   * Compile `agentId` of the registry folder `registry` with this worker's code tools and policies
   * known: a `kind: code` tool or an `x-<vendor>` policy the worker does not register is an error
   * (AGF192, AGF193) naming the registered ones. Never throws; `bundle` is undefined on any error.
   */
  compile(registry: string, agentId: string): { bundle?: CompiledBundle; diagnostics: Diagnostic[] } {
    return compileBundle(registry, agentId, { code: this.code });
  }

  /** The data converter this plugin sets (undefined: Temporal's default). */
  get dataConverter(): DataConverter | undefined {
    return this.converter;
  }

  configureWorker(options: WorkerOptions): WorkerOptions {
    if (this.ownTracing && !this.flushHooked) {
      this.flushHooked = true;
      process.once('beforeExit', () => void this.tracing.shutdown());
    }
    const sealed = (options.dataConverter ?? this.converter)?.failureConverterPath !== undefined;
    const configured = super.configureWorker({ ...options, ...this.workflows(options, sealed) });
    return { ...configured, sinks: { ...this.tracing.sinks, ...(configured.sinks ?? {}) } };
  }

  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    const sealed = (options.dataConverter ?? this.converter)?.failureConverterPath !== undefined;
    const configured = super.configureReplayWorker({ ...options, ...this.workflows(options, sealed) });
    return { ...configured, sinks: { ...this.tracing.sinks, ...(configured.sinks ?? {}) } };
  }

  configureBundler(options: BundleOptions): BundleOptions {
    return super.configureBundler({ ...options, workflowsPath: withAgentloomWorkflows(options.workflowsPath, this.policyModules) });
  }

  runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    // Sub-agent runs join their caller's trace: the tracing sinks describe the caller with the worker's client.
    this.tracing.useClient(worker.client);
    return super.runWorker(worker, next);
  }

  private flushHooked = false;

  private workflows(options: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'>, sealed: boolean): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
    if (options.workflowBundle) return {};
    if (options.workflowsPath) return { workflowsPath: withAgentloomWorkflows(options.workflowsPath, this.policyModules) };
    if (Object.keys(this.policyModules).length) return { workflowsPath: withAgentloomWorkflows(undefined, this.policyModules) };
    return workflowSource(sealed);
  }
}

/**
 * A workflows module that re-exports the user's workflows (if any) and Agentloom's and registers
 * the vendor policies of `policies`, written once per content (named by its hash, atomically) under `node_modules/.cache/agentloom-workflows/` of the
 * node_modules that resolves `@temporalio/workflow` for the user's module: the bundler resolves
 * the SDK from the entry's folder, so the module cannot live in an unrelated temporary folder
 * (a read-only node_modules is refused with what to do instead). Agentloom's own module and a
 * module already combined are returned as they are.
 */
export function withAgentloomWorkflows(userPath: string | undefined, policies: PolicyModules = {}): string {
  const user = userPath === undefined ? undefined : path.resolve(userPath);
  const entries = Object.entries(policies).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (user !== undefined && !entries.length && (user === AGENTLOOM_WORKFLOWS_PATH || path.basename(path.dirname(path.dirname(user))) === 'agentloom-workflows')) return user;
  const ours = JSON.stringify(AGENTLOOM_WORKFLOWS_PATH);
  const lines = ['// Written by AgentloomPlugin: the worker\'s workflows, Agentloom\'s, and the vendor policies it registers.'];
  if (user !== undefined) lines.push(`export * from ${JSON.stringify(user)};`);
  lines.push(`export * from ${ours};`);
  if (entries.length) {
    lines.push(`import { registerPolicy as __loomRegisterPolicy } from ${ours};`);
    entries.forEach(([id, file], i) => {
      lines.push(`import * as __loomPolicy${i} from ${JSON.stringify(path.resolve(file))};`);
      lines.push(`__loomRegisterPolicy(${JSON.stringify(id)}, __loomPolicyOf(__loomPolicy${i}, ${JSON.stringify(id)}, ${JSON.stringify(path.resolve(file))}));`);
    });
    lines.push('function __loomPolicyOf(m, id, file) {', "  const fn = typeof m.policy === 'function' ? m.policy : typeof m.default === 'function' ? m.default : undefined;", "  if (!fn) throw new Error(`AgentloomPlugin policies['${id}']: ${file} exports no function named policy (nor a default export)`);", '  return fn;', '}');
  }
  const code = `${lines.join('\n')}\n`;
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  const anchor = user ?? path.resolve(entries[0]?.[1] ?? AGENTLOOM_WORKFLOWS_PATH);
  const sdk = require.resolve('@temporalio/workflow', { paths: [path.dirname(anchor)] });
  const nodeModules = sdk.slice(0, sdk.lastIndexOf(`${path.sep}node_modules${path.sep}`) + `${path.sep}node_modules`.length);
  const file = path.join(nodeModules, '.cache', 'agentloom-workflows', hash, 'index.js');
  try {
    if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== code) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, code);
      fs.renameSync(tmp, file);
    }
  } catch (err) {
    throw new Error(`AgentloomPlugin cannot write ${file} (${(err as Error).message}): give the worker a workflows module that also re-exports Agentloom's (export * from the package's /workflows entry)`);
  }
  return file;
}
