/**
 * What the workflow side tells the worker side about a run that joined Temporal's trace (its start
 * carried a W3C trace context in Temporal's `_tracer-data` header): the `RunWorkflow` span the run's
 * `agent.run` hangs under, and the activity header that tells the run's activities to hang their
 * `agent.*` spans under their `RunActivity` span. Types and constants only.
 */
import type { RunEndedEvent, RunStartedEvent } from '../shared/tracing-sinks';

/** The header Temporal's OpenTelemetry interceptors carry the trace context in. */
export const TEMPORAL_TRACE_HEADER = '_tracer-data';

/** Set on the activities of a run that joined Temporal's trace. */
export const JOINED_TRACE_HEADER = 'agentloom-joined-trace';

/** The run's `RunWorkflow` span: the parent of its `agent.run`. */
export interface JoinedTrace {
  trace_id: string;
  span_id: string;
}

export type JoinedRunStartedEvent = RunStartedEvent & { trace?: JoinedTrace };
export type JoinedRunEndedEvent = RunEndedEvent & { trace?: JoinedTrace };
