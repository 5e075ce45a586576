/**
 * Workflow interceptor module (bundled with the workflows: scripts/build-bundle.ts and
 * src/worker/create-worker.ts): when an agent run ends, it tells the worker through the
 * `agentloomTracing` sink, which emits the run's `agent.run` span and run metrics
 * (src/telemetry/tracing.ts, metrics.ts). An outbound interceptor counts the model turns the run
 * schedules, in memory only. Sinks add no command and no history event and are not called during replay, so recorded runs
 * replay unchanged and a replayed run emits nothing.
 *
 * It also runs Temporal's own workflow interceptors (`@temporalio/interceptors-opentelemetry`:
 * `RunWorkflow`, `StartActivity`, `StartChildWorkflow` spans, exported by the SDK's `exporter`
 * sink, never during replay), outermost, for a run whose start carried a trace context (an
 * instrumented client, or a parent run that joined): the run joins that trace, its `agent.run`
 * hangs under `RunWorkflow` and its activities are told (a header) to hang their spans under
 * `RunActivity`. A run started without one runs none of Temporal's interceptors and keeps its own
 * trace (trace-ids.ts). The choice is read from the start event's headers, so a replay makes the
 * same one: Temporal's interceptors add await hops that can reorder concurrent commands (an update
 * completing beside a search attribute upsert), so a run recorded without them must replay without
 * them. Imports only @temporalio/workflow, the OpenTelemetry API (bundled by the SDK's
 * interceptors anyway) and types.
 */
import { trace as otelTrace, isSpanContextValid } from '@opentelemetry/api';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import {
  ContinueAsNew,
  defaultPayloadConverter,
  type ContinueAsNewInput,
  type LocalActivityInput,
  type QueryInput,
  type SignalInput,
  type SignalWorkflowInput,
  type UpdateInput,
  type StartChildWorkflowExecutionInput,
  isCancellation,
  proxySinks,
  type ActivityInput,
  type Next,
  type WorkflowOutboundCallsInterceptor,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import type { BlobRef, TokenUsage } from '../shared/contract';
import type { AgentloomTracingSinks, RunSpanStatus } from '../shared/tracing-sinks';
import { JOINED_TRACE_HEADER, TEMPORAL_TRACE_HEADER, type JoinedRunEndedEvent, type JoinedRunStartedEvent, type JoinedTrace } from './joined-trace';

const { agentloomTracing } = proxySinks<AgentloomTracingSinks>();

/** Failure types that mean the run was refused (a policy, guardrail or lifecycle said no), not that it broke. */
const REFUSALS = new Set(['GuardrailBlocked', 'ContentBlocked', 'PolicyViolation', 'ToolPolicyBlocked', 'AgentNotRunnable', 'InputTooLong']);

/** The first ApplicationFailure type along the cause chain. */
function failureType(e: unknown): string | undefined {
  for (let c: unknown = e, i = 0; c && typeof c === 'object' && i < 8; c = (c as { cause?: unknown }).cause, i++) {
    const t = (c as { type?: unknown }).type;
    if (typeof t === 'string' && t) return t;
  }
  return undefined;
}

/** Agent workflows take `{ bundle, agent_id, ... }` first; other workflows are not agent runs. */
function agentRun(args: unknown[]): { bundle: BlobRef; agent_id: string } | undefined {
  const a = args[0] as { bundle?: unknown; agent_id?: unknown } | undefined;
  if (!a || typeof a !== 'object' || !a.bundle || typeof a.bundle !== 'object' || typeof a.agent_id !== 'string') return undefined;
  return { bundle: a.bundle as BlobRef, agent_id: a.agent_id };
}

/** What one run's interceptors count between start and end (in memory: rebuilt the same on replay). */
interface RunCounts {
  /** modelTurn activities scheduled: the agent-loop iterations (the Agent Definition Specification's metric agent.run.loops). */
  model_turns: number;
  /** The run's start carried a trace context: Temporal's interceptors run and the run joins that trace. */
  traced?: boolean;
  /** The run's `RunWorkflow` span, when it joined. */
  joined?: JoinedTrace;
}

/** True when the headers carry a W3C `traceparent` in Temporal's trace header. */
function carriesTraceContext(headers: Record<string, unknown>): boolean {
  const h = headers[TEMPORAL_TRACE_HEADER];
  if (!h) return false;
  try {
    const carrier = defaultPayloadConverter.fromPayload<Record<string, unknown>>(h as Parameters<typeof defaultPayloadConverter.fromPayload>[0]);
    return typeof carrier?.traceparent === 'string';
  } catch {
    return false;
  }
}

/**
 * Counts the run's model turns as the workflow schedules them, and marks the activities of a run
 * that joined a trace (a header: headers are not compared on replay, the commands stay the same).
 */
class ModelTurnCounter implements WorkflowOutboundCallsInterceptor {
  constructor(private readonly counts: RunCounts) {}
  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    if (input.activityType === 'modelTurn') this.counts.model_turns++;
    if (!this.counts.joined) return next(input);
    return next({ ...input, headers: { ...input.headers, [JOINED_TRACE_HEADER]: defaultPayloadConverter.toPayload(true) } });
  }

}

/**
 * Temporal's OpenTelemetry interceptors, for a run that joined a trace only (`counts.traced`,
 * decided from the start event's headers before anything else of the run runs).
 */
class TemporalSpansWhenTraced implements WorkflowInboundCallsInterceptor, WorkflowOutboundCallsInterceptor {
  private readonly inbound = new OpenTelemetryInboundInterceptor();
  private readonly outbound = new OpenTelemetryOutboundInterceptor();
  constructor(private readonly counts: RunCounts) {}

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    this.counts.traced = carriesTraceContext(input.headers);
    return this.counts.traced ? this.inbound.execute(input, next) : next(input);
  }
  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    return this.counts.traced ? this.inbound.handleSignal(input, next) : next(input);
  }
  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    return this.counts.traced ? this.inbound.handleUpdate(input, next) : next(input);
  }
  validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    return this.counts.traced ? this.inbound.validateUpdate(input, next) : next(input);
  }
  handleQuery(input: QueryInput, next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>): Promise<unknown> {
    return this.counts.traced ? this.inbound.handleQuery(input, next) : next(input);
  }
  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return this.counts.traced ? this.outbound.scheduleActivity(input, next) : next(input);
  }
  scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>): Promise<unknown> {
    return this.counts.traced ? this.outbound.scheduleLocalActivity(input, next) : next(input);
  }
  startChildWorkflowExecution(input: StartChildWorkflowExecutionInput, next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>): Promise<[Promise<string>, Promise<unknown>]> {
    return this.counts.traced ? this.outbound.startChildWorkflowExecution(input, next) : next(input);
  }
  continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>): Promise<never> {
    return this.counts.traced ? this.outbound.continueAsNew(input, next) : next(input);
  }
  signalWorkflow(input: SignalWorkflowInput, next: Next<WorkflowOutboundCallsInterceptor, 'signalWorkflow'>): Promise<void> {
    return this.counts.traced ? this.outbound.signalWorkflow(input, next) : next(input);
  }
}

/** Size of the run input in characters (the Agent Definition Specification's metric agent.run.input_chars). */
function inputChars(args: unknown[]): number {
  const v = (args[0] as { input?: unknown }).input;
  if (v === undefined) return 0;
  return typeof v === 'string' ? v.length : (JSON.stringify(v) ?? '').length;
}

class AgentRunSpanInterceptor implements WorkflowInboundCallsInterceptor {
  constructor(private readonly counts: RunCounts) {}
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const run = agentRun(input.args);
    if (!run) return next(input);
    const chars = inputChars(input.args);
    const active = this.counts.traced ? otelTrace.getActiveSpan()?.spanContext() : undefined;
    if (active && isSpanContextValid(active)) this.counts.joined = { trace_id: active.traceId, span_id: active.spanId };
    const joined = this.counts.joined ? { trace: this.counts.joined } : {};
    try {
      const started: JoinedRunStartedEvent = { ...run, input_chars: chars, ...joined };
      agentloomTracing.runStarted(started);
    } catch {
      // A worker without the tracing sink registered: nothing to emit.
    }
    const end = (status: RunSpanStatus, extra: { usage?: Partial<TokenUsage>; failure_type?: string } = {}): void => {
      try {
        const ended: JoinedRunEndedEvent = { ...run, status, ...extra, model_turns: this.counts.model_turns, input_chars: chars, ended_ms: Date.now(), ...joined };
        agentloomTracing.runEnded(ended);
      } catch {
        // A worker without the tracing sink registered: nothing to emit.
      }
    };
    try {
      const result = await next(input);
      const usage = (result as { usage?: Partial<TokenUsage> } | undefined)?.usage;
      end('success', usage && typeof usage === 'object' ? { usage } : {});
      return result;
    } catch (e) {
      const type = failureType(e);
      const status: RunSpanStatus = e instanceof ContinueAsNew ? 'continued_as_new' : isCancellation(e) ? 'cancelled' : type && REFUSALS.has(type) ? 'refused' : 'error';
      end(status, type ? { failure_type: type } : {});
      throw e;
    }
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  const counts: RunCounts = { model_turns: 0 };
  const temporal = new TemporalSpansWhenTraced(counts);
  // Temporal's first: the outermost, so `RunWorkflow` is the active span inside ours.
  return {
    inbound: [temporal, new AgentRunSpanInterceptor(counts)],
    outbound: [temporal, new ModelTurnCounter(counts)],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};
