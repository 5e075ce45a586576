/**
 * What the workflow side reports through the `agentloomTracing` sinks (never during replay): the
 * `run.start` log record when a run starts, the `approval.requested` record when a tool call waits
 * for a human, the approval wait metric and `approval` record when an
 * approval is decided, and, when a run ends, its `run.end` record, its run metrics and its
 * `agent.run` span (with the run's deterministic span id; a run that joined Temporal's trace is a
 * child of its `RunWorkflow` span, its activity spans hang under their `RunActivity` spans; else the
 * trace id is the run's own too and the activity spans recorded earlier hang under `agent.run`, and
 * a run that joined its caller's trace is a child of the caller's `agent.run`).
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { CompiledAgent } from '../compiled/types';
import type { BlobRef } from '../shared/contract';
import type { ApprovalDecidedEvent } from '../shared/tracing-sinks';
import type { ApprovalRequestedEvent } from '../shared/approval-sinks';
import type { JoinedRunEndedEvent, JoinedRunStartedEvent, JoinedTrace } from './joined-trace';
import { isRunSampled } from './span-content';
import { logsConfigOf, tracingConfigOf, type Platform } from './config';
import type { AgentLogs } from './logs';
import type { AgentMetrics } from './metrics';
import type { RunRef, RunTrace, RunTraces } from './run-traces';
import type { SpanSources } from './span-sources';
import { runSpanId } from './trace-ids';

/** What the sinks need of the tracing they belong to. */
export interface RunSinksParts {
  sources: SpanSources;
  traces: RunTraces;
  metrics: AgentMetrics;
  logs: AgentLogs;
  platform: (agent: CompiledAgent) => Platform;
}

/** Runs that joined Temporal's trace remembered (for their approval records) before the map starts afresh. */
const REMEMBERED_JOINS = 10_000;

export class RunSinks {
  private readonly joins = new Map<string, JoinedTrace>();

  constructor(private readonly p: RunSinksParts) {}

  /**
   * A sink's run and, when the agent traces, the trace it belongs to (its log records name that
   * trace): Temporal's, under the run's RunWorkflow span, for a run that joined it; else its own.
   */
  private async sinkRun(info: WorkflowInfo, agent: CompiledAgent, bundle: BlobRef, joined?: JoinedTrace): Promise<{ run: RunRef & { traceId?: string }; runTrace?: RunTrace }> {
    const key = `${info.workflowId}\n${info.runId}`;
    if (joined) {
      if (this.joins.size >= REMEMBERED_JOINS) this.joins.clear();
      this.joins.set(key, joined);
    }
    const join = joined ?? this.joins.get(key);
    const parent = info.parent ? { workflowId: info.parent.workflowId, runId: info.parent.runId } : null;
    const cfg = join && tracingConfigOf(agent.observability, this.p.platform(agent));
    const runTrace = join
      ? { traceId: join.trace_id, parentSpanId: join.span_id, sampled: isRunSampled(info.runId, cfg ? cfg.sampling_rate : 1) }
      : await this.p.traces.traceOf(info, agent, bundle, parent);
    return { run: { workflowId: info.workflowId, runId: info.runId, ...(runTrace ? { traceId: runTrace.traceId } : {}) }, ...(runTrace ? { runTrace } : {}) };
  }

  async runStarted(info: WorkflowInfo, ev: JoinedRunStartedEvent): Promise<void> {
    const agent = await this.p.sources.agentOf(ev);
    if (!agent) return;
    if (ev.trace) await this.sinkRun(info, agent, ev.bundle, ev.trace);
    if (!logsConfigOf(agent.observability, this.p.platform(agent))) return;
    const { run } = await this.sinkRun(info, agent, ev.bundle, ev.trace);
    this.p.logs.emit(agent, run, 'info', 'run.start', { input_chars: ev.input_chars, workflow_type: info.workflowType });
  }

  /** An `approval.requested` log record when a call waits for a human (the react workflow's sink call; never during replay). */
  async approvalRequested(info: WorkflowInfo, ev: ApprovalRequestedEvent): Promise<void> {
    const agent = await this.p.sources.agentOf(ev);
    if (!agent || !logsConfigOf(agent.observability, this.p.platform(agent))) return;
    const { run } = await this.sinkRun(info, agent, ev.bundle);
    this.p.logs.emit(agent, run, 'info', 'approval.requested', { tool_id: ev.tool_id, call_id: ev.call_id, timeout_s: ev.timeout_s });
  }

  /** agent.tool.approval_wait and an `approval` log record (a timed-out approval at warn) (the react workflow's sink call; never during replay). */
  async approvalDecided(info: WorkflowInfo, ev: ApprovalDecidedEvent): Promise<void> {
    const agent = await this.p.sources.agentOf(ev);
    if (!agent) return;
    this.p.metrics.approvalWait(agent, ev.tool_id, ev.decision, ev.wait_ms);
    if (!logsConfigOf(agent.observability, this.p.platform(agent))) return;
    const { run } = await this.sinkRun(info, agent, ev.bundle);
    this.p.logs.emit(agent, run, ev.decision === 'timed_out' ? 'warn' : 'info', 'approval', { tool_id: ev.tool_id, decision: ev.decision, wait_ms: ev.wait_ms });
  }

  async runEnded(info: WorkflowInfo, ev: JoinedRunEndedEvent): Promise<void> {
    const agent = await this.p.sources.agentOf(ev);
    if (!agent) return;
    const started = new Date(info.runStartTime).getTime();
    const { run, runTrace } = await this.sinkRun(info, agent, ev.bundle, ev.trace);
    this.p.logs.emit(agent, run, ev.status === 'refused' || ev.status === 'error' ? 'error' : 'info', 'run.end', {
      status: ev.status, failure_type: ev.failure_type, latency_ms: Math.max(0, ev.ended_ms - started),
    });
    this.p.metrics.runEnded(agent, ev.status, Math.max(0, ev.ended_ms - started), ev.model_turns, ev.input_chars);
    const cfg = tracingConfigOf(agent.observability, this.p.platform(agent));
    const setup = cfg && runTrace && this.p.traces.setup(agent, cfg, info, runTrace);
    if (!setup || !runTrace) return;
    const { out } = setup;
    const attrs: Attributes = {
      agent_id: agent.agent_id,
      version: agent.version,
      status: ev.status,
      latency_ms: Math.max(0, ev.ended_ms - started),
      'temporal.workflow_id': info.workflowId,
      'temporal.run_id': info.runId,
      'temporal.workflow_type': info.workflowType,
    };
    if (typeof ev.usage?.prompt_tokens === 'number') attrs.input_tokens = ev.usage.prompt_tokens;
    if (typeof ev.usage?.completion_tokens === 'number') attrs.output_tokens = ev.usage.completion_tokens;
    if (ev.failure_type) attrs.failure_type = ev.failure_type;
    // A run that joined its caller's trace is a child of the caller's agent.run (sub-agent trace joining).
    const under = runTrace.parentSpanId
      ? trace.setSpanContext(ROOT_CONTEXT, { traceId: runTrace.traceId, spanId: runTrace.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true })
      : ROOT_CONTEXT;
    out.ids.next = { traceId: runTrace.traceId, spanId: runSpanId(info.workflowId, info.runId) };
    let span: Span;
    try {
      span = out.tracer.startSpan('agent.run', { kind: SpanKind.INTERNAL, startTime: started, attributes: attrs }, under);
    } finally {
      out.ids.next = undefined;
    }
    if (ev.status === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: ev.failure_type ?? 'error' });
    span.end(ev.ended_ms);
  }
}
