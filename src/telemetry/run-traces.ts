/**
 * Which trace a run's spans belong to. Activity spans are parented to `agent.run` through
 * deterministic ids (trace-ids.ts), so the workflow carries nothing. A sub-agent run (any agent run
 * whose Temporal parent is an agent run that traces with propagate_context) joins its parent's
 * trace under the parent's `agent.run` span, found by describing the parent; otherwise a run has
 * its own trace, sampled by its own sampling_rate.
 */
import { ROOT_CONTEXT, TraceFlags, trace, type Context } from '@opentelemetry/api';
import type { Client } from '@temporalio/client';
import type { CompiledAgent } from '../compiled/types';
import { SEARCH_ATTRIBUTES, type BlobRef } from '../shared/contract';
import { tracingConfigOf, type Platform, type TracingConfig } from './config';
import { isRunSampled } from './span-content';
import { runSpanId, runTraceId } from './trace-ids';
import type { Exporting, SpanExporters } from './span-exporters';
import type { SpanSources } from './span-sources';

/** Which trace a run's spans go to, under which parent span, and whether they are recorded. */
export interface RunTrace {
  traceId: string;
  /** The caller's `agent.run` span, for a run that joined its caller's trace. */
  parentSpanId?: string;
  sampled: boolean;
}

export interface RunRef { workflowId: string; runId: string }

/** Everything a span of a run needs: the agent, its tracing settings, where spans go and the `agent.run` parent. */
export interface SpanSetup {
  agent: CompiledAgent;
  cfg: TracingConfig;
  out: Exporting;
  parent: Context;
  traceId: string;
}

/** What describing a run tells about it: its agent (the AgentId search attribute) and its Temporal parent. */
interface Described { agentId?: string; parent?: RunRef }

const runKey = (r: RunRef): string => `${r.workflowId}\n${r.runId}`;
/** Runs remembered per map before it starts afresh (a worker lives long; a trace lookup is cheap to redo). */
const REMEMBERED_RUNS = 10_000;
/** Sub-agent nesting followed up to this depth (a deeper run starts its own trace). */
const MAX_NESTING = 32;

export class RunTraces {
  private client: Client | undefined;
  private readonly traces = new Map<string, Promise<RunTrace>>();
  private readonly described = new Map<string, Promise<Described>>();

  constructor(
    private readonly sources: SpanSources,
    private readonly exporters: SpanExporters,
    private readonly platform: (agent: CompiledAgent) => Platform,
    private readonly logOnce: (m: string) => void,
    client: Client | undefined,
  ) {
    this.client = client;
  }

  /** The Temporal client that describes runs' parents (the first one given is kept). */
  useClient(client: Client | undefined): void {
    this.client ??= client;
  }

  get hasClient(): boolean {
    return this.client !== undefined;
  }

  /** Where spans go and the `agent.run` parent, or undefined when this run's trace is not sampled. */
  setup(agent: CompiledAgent, cfg: TracingConfig, run: RunRef, runTrace: RunTrace): SpanSetup | undefined {
    if (!runTrace.sampled) return undefined;
    const out = this.exporters.for(agent, cfg);
    if (!out) return undefined;
    const parent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: runTrace.traceId,
      spanId: runSpanId(run.workflowId, run.runId),
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    return { agent, cfg, out, parent, traceId: runTrace.traceId };
  }

  /**
   * The trace a traced run's spans belong to. `parent` is the run's Temporal parent when the
   * caller knows it (a sink's WorkflowInfo; null for none), else the run is described. A lookup
   * that fails is logged and the run keeps its own trace.
   */
  async traceOf(run: RunRef, agent: CompiledAgent, bundle: BlobRef, parent: RunRef | null | undefined): Promise<RunTrace | undefined> {
    const cfg = tracingConfigOf(agent.observability, this.platform(agent));
    if (!cfg) return undefined;
    try {
      return await this.joined(run, agent, bundle, parent, 0);
    } catch (e) {
      this.logOnce(`tracing: cannot tell whether run ${run.workflowId} joins its caller's trace (${(e as Error)?.message ?? String(e)}); its spans go to its own trace`);
      return this.ownTrace(run, cfg);
    }
  }

  /** A run's own trace: ids from its workflow and run id, sampled by its own sampling_rate. */
  private ownTrace(run: RunRef, cfg: TracingConfig): RunTrace {
    return { traceId: runTraceId(run.workflowId, run.runId), sampled: isRunSampled(run.runId, cfg.sampling_rate) };
  }

  /**
   * A run joins its Temporal parent's trace when the parent is an agent run (its AgentId names an
   * agent of the same bundle) whose tracing is on with propagate_context: same trace id, the
   * parent's `agent.run` as parent span, and the parent's sampling decision. Otherwise its own.
   */
  private joined(run: RunRef, agent: CompiledAgent, bundle: BlobRef, parent: RunRef | null | undefined, depth: number): Promise<RunTrace> {
    const key = runKey(run);
    const known = this.traces.get(key);
    if (known) return known;
    const made = (async (): Promise<RunTrace> => {
      const cfg = tracingConfigOf(agent.observability, this.platform(agent));
      const own: RunTrace = cfg ? this.ownTrace(run, cfg) : { traceId: runTraceId(run.workflowId, run.runId), sampled: false };
      const from = parent === undefined ? (await this.describe(run)).parent : parent ?? undefined;
      if (!from || depth >= MAX_NESTING) return own;
      const up = await this.describe(from);
      const caller = up.agentId ? await this.sources.agentIn(bundle, up.agentId) : undefined;
      if (!caller || !tracingConfigOf(caller.observability, this.platform(caller))?.propagate_context) return own;
      const callerTrace = await this.joined(from, caller, bundle, up.parent ?? null, depth + 1);
      return { traceId: callerTrace.traceId, parentSpanId: runSpanId(from.workflowId, from.runId), sampled: callerTrace.sampled };
    })();
    this.remember(this.traces, key, made);
    return made;
  }

  /** A run's agent and Temporal parent, from the server (cached; a failed lookup is tried again next time). */
  private describe(run: RunRef): Promise<Described> {
    const key = runKey(run);
    const known = this.described.get(key);
    if (known) return known;
    const client = this.client;
    if (!client) return Promise.reject(new Error('this worker has no Temporal client to describe the run'));
    const made = client.workflow.getHandle(run.workflowId, run.runId).describe().then((d) => {
      const agentId = d.searchAttributes?.[SEARCH_ATTRIBUTES.agentId]?.[0];
      const p = d.parentExecution;
      return { ...(typeof agentId === 'string' ? { agentId } : {}), ...(p?.workflowId && p.runId ? { parent: { workflowId: p.workflowId, runId: p.runId } } : {}) };
    });
    this.remember(this.described, key, made);
    return made;
  }

  private remember<T>(map: Map<string, Promise<T>>, key: string, p: Promise<T>): void {
    if (map.size >= REMEMBERED_RUNS) map.clear();
    map.set(key, p);
    p.catch(() => { if (map.get(key) === p) map.delete(key); });
  }
}
