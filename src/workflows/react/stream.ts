/**
 * The Execution Loop specification's "Request & Call Streaming" for runs on `runtime.execution_loop: dependencies`: while the
 * model activity streams its reply, it sends each tool call that is complete in the stream to this
 * run (the `callStreamed` signal, through the worker's Temporal client), and the call joins the
 * Request's plan at once — it may run before the reply ends. Signals are history events, so a
 * replay sees the same calls at the same points. The activity's final reply stays the record of
 * the turn (react/execution-loop.ts `finish`); a retried activity asks `streamedCalls` which calls
 * were taken and completes the turn with them, so no call runs twice.
 */
import { setHandler } from '@temporalio/workflow';
import { callStreamedSignal, streamedCallsQuery } from '../../shared/definitions';
import { PAYLOAD_SHAPES, StreamedCallSchema, StreamedTurnSchema } from '../../shared/contract';
import { checkPayload } from '../../shared/payload-check';
import { isObject, signalPayload } from '../shell/payloads';
import { ExecutionPlan } from '../../runtime/execution-loop';
import type { ReactRun } from './context';
import { LoopDriver } from './execution-loop';

/** The signal the model activity sends per streamed call, and the query a retried activity asks. */
export function registerStreamHandlers(rx: ReactRun): void {
  // Sent by the model activity; a payload that does not fit (sent by anything else) is a run warning.
  setHandler(callStreamedSignal, (raw) => {
    const s = signalPayload(StreamedCallSchema, raw, PAYLOAD_SHAPES.callStreamed, 'callStreamed', (m) => rx.shell.warn(m), streamedBefore);
    if (s) rx.stream.accept(s, () => new LoopDriver(rx, new ExecutionPlan([], rx.st.state ?? {}, { streaming: true })));
  });
  setHandler(streamedCallsQuery, (turn) => {
    const c = checkPayload(StreamedTurnSchema, turn, PAYLOAD_SHAPES.streamedCalls);
    // A query answers an error for a turn that is not one (a query changes nothing in the run).
    if (!c.ok) throw new Error(`streamedCalls: ${c.problem}`);
    return rx.stream.calls(c.value);
  });
}

/** The handler before the check acted on any object with a `call` object (it read s.turn and s.call). */
const streamedBefore = (raw: unknown): boolean => isObject(raw) && isObject(raw.call);
