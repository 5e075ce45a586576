/**
 * The typed signal, update and query definitions of every Agentloom run: the one place both sides
 * take them from. Workflows register handlers for them (`setHandler(approveUpdate, …)`); the CLI and
 * any other client send them (`handle.executeUpdate(approveUpdate, { args: [...] })`), never a
 * string name. Each definition is the `{ type, name }` object that @temporalio/workflow's
 * `defineSignal`/`defineUpdate`/`defineQuery` return (test/shared/definitions.unit.test.ts holds
 * them equal), built here without loading that package, so a client that only queries a run
 * (`loom status`) does not load the workflow library, and imports no zod either.
 *
 * The wire names (SIGNALS / UPDATES / QUERIES in ./names) must never change: running workflows
 * and recorded histories depend on them.
 *
 *  what                     definition                 wire name            payload         returns
 *  approve a pending call   approveUpdate              approveCall (update) ApproveArgs     confirmation text
 *                           approveSignal              approve (signal)     ApproveArgs
 *  reject a pending call    rejectUpdate               rejectCall (update)  RejectArgs      confirmation text
 *                           rejectSignal               reject (signal)      RejectArgs
 *  pause / resume           pauseSignal, resumeSignal  pause, resume        (none)
 *  answer an escalation     respondEscalationUpdate    respondEscalation    RespondArgs     RespondResult
 *                           respondSignal              respond (signal)     RespondArgs
 *  run status               statusQuery                status (query)       (none)          RunStatus
 *  member -> parent report  descendantDecisionsSignal  descendantDecisions  DescendantDecisionsReport
 *  answer in the tree       decideUpdate               decide (update)      DecideArgs      confirmation text
 *  streamed tool call       callStreamedSignal         callStreamed         StreamedCall
 *  calls taken from stream  streamedCallsQuery         streamedCalls        turn            StreamedCall['call'][]
 */
import type { QueryDefinition, SignalDefinition, UpdateDefinition } from '@temporalio/common';
import type { ApproveArgs, DecideArgs, DescendantDecisionsReport, RejectArgs, RespondArgs, RespondResult, RunStatus, StreamedCall } from './contract';
import { QUERIES, SIGNALS, UPDATES } from './names';

// The SDK's define* functions, as plain objects (their type brands exist only in the types).
function defineSignal<Args extends unknown[] = []>(name: string): SignalDefinition<Args> {
  return { type: 'signal', name } as SignalDefinition<Args>;
}
function defineUpdate<Ret, Args extends unknown[] = []>(name: string): UpdateDefinition<Ret, Args> {
  return { type: 'update', name } as UpdateDefinition<Ret, Args>;
}
function defineQuery<Ret, Args extends unknown[] = []>(name: string): QueryDefinition<Ret, Args> {
  return { type: 'query', name } as QueryDefinition<Ret, Args>;
}

/** Approve a pending tool call (optionally with corrected arguments); rejected with a reason when the call is unknown or the arguments invalid. */
export const approveUpdate = defineUpdate<string, [ApproveArgs]>(UPDATES.approve);
/** Reject a pending tool call; the model sees the reason as the call's result. */
export const rejectUpdate = defineUpdate<string, [RejectArgs]>(UPDATES.reject);
/** Fire-and-forget approve (an unknown call id only adds a run warning). Prefer approveUpdate. */
export const approveSignal = defineSignal<[ApproveArgs]>(SIGNALS.approve);
/** Fire-and-forget reject. Prefer rejectUpdate. */
export const rejectSignal = defineSignal<[RejectArgs]>(SIGNALS.reject);
/** No new model call, tool call or member starts while paused (running ones finish). */
export const pauseSignal = defineSignal<[]>(SIGNALS.pause);
export const resumeSignal = defineSignal<[]>(SIGNALS.resume);
/** Answer (output) or close a run waiting on a human queue; refused when the run waits on another queue or none. */
export const respondEscalationUpdate = defineUpdate<RespondResult, [RespondArgs]>(UPDATES.respond);
/** Fire-and-forget respond (ignored, with a log line, when the run does not wait on that queue). Prefer respondEscalationUpdate. */
export const respondSignal = defineSignal<[RespondArgs]>(SIGNALS.respond);
/** The run's state, counters, pending approvals, usage, warnings and pattern progress. */
export const statusQuery = defineQuery<RunStatus>(QUERIES.status);
/** Sent by a member to its parent whenever its pending-decision subtree changes (workflow to workflow). */
export const descendantDecisionsSignal = defineSignal<[DescendantDecisionsReport]>(SIGNALS.descendantDecisions);
/** Answer a decision pending anywhere in the run's tree (approve / reject / respond), forwarded to the run holding it; refused with what is pending when the ref names none. */
export const decideUpdate = defineUpdate<string, [DecideArgs]>(UPDATES.decide);
/** Model activity -> its react run: a tool call complete in the stream, to start before the reply ends (dependencies loop). */
export const callStreamedSignal = defineSignal<[StreamedCall]>(SIGNALS.callStreamed);
/** The calls the run took from the stream of a turn: a retried model activity completes the turn with them. */
export const streamedCallsQuery = defineQuery<StreamedCall['call'][], [number]>(QUERIES.streamedCalls);
