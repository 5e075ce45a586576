/**
 * Waiting on a run's recorded history instead of the clock. A test that must prove something did
 * NOT happen waits until the workflow has answered every event recorded so far (its last workflow
 * task completed and nothing new is scheduled: `settled`), then asserts the absence in the history:
 * anything the workflow would have started in answer to those events is in the history by then.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { untilOk } from './wait';

export type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/** Every event of the handle's run (the latest run unless the handle names one). */
export async function historyEvents(h: WorkflowHandle): Promise<HistoryEvent[]> {
  return (await h.fetchHistory()).events ?? [];
}

/**
 * The workflow has answered every event recorded so far: a workflow task completed and no workflow
 * task was scheduled after it (a signal, update, timer, activity or child result that arrives
 * later schedules one). A closed run is settled too.
 */
export function settled(events: HistoryEvent[]): boolean {
  const last = events[events.length - 1];
  if (last && isClose(last)) return true;
  let lastCompleted = -1;
  events.forEach((e, i) => {
    if (e.workflowTaskCompletedEventAttributes) lastCompleted = i;
  });
  return lastCompleted >= 0 && !events.slice(lastCompleted + 1).some((e) => e.workflowTaskScheduledEventAttributes);
}

function isClose(e: HistoryEvent): boolean {
  return Boolean(
    e.workflowExecutionCompletedEventAttributes ||
      e.workflowExecutionFailedEventAttributes ||
      e.workflowExecutionCanceledEventAttributes ||
      e.workflowExecutionTerminatedEventAttributes ||
      e.workflowExecutionTimedOutEventAttributes ||
      e.workflowExecutionContinuedAsNewEventAttributes,
  );
}

/** A short name of an event's type, for failure messages ("ActivityTaskScheduled"). */
export function eventName(e: HistoryEvent): string {
  const key = Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k]);
  return key ? key.replace(/EventAttributes$/, '').replace(/^./, (c) => c.toUpperCase()) : `event ${String(e.eventType)}`;
}

/**
 * Poll the history until `pred` holds on a settled history (or fail after `ms`, naming `what` and
 * the last events seen). Returns the events.
 */
export async function waitForSettledHistory(
  h: WorkflowHandle,
  pred: (events: HistoryEvent[]) => boolean,
  what: string,
  ms = 30000,
): Promise<HistoryEvent[]> {
  let last: HistoryEvent[] = [];
  return untilOk(
    async () => {
      // Throws while the run does not exist yet (a continue-as-new in flight): polled again.
      last = await historyEvents(h);
      return settled(last) && pred(last) ? last : undefined;
    },
    () => `${what} (settled: ${settled(last)}); last events: ${last.slice(-12).map((e) => `${String(e.eventId)} ${eventName(e)}`).join(', ') || '(none)'}`,
    ms,
  );
}

/** Activity types scheduled in these events, in order. */
export function activityTypes(events: HistoryEvent[]): string[] {
  return events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name!);
}

/** Event ids of the signals named `name`. */
export function signalEventIds(events: HistoryEvent[], name: string): number[] {
  return events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === name).map((e) => Number(e.eventId));
}

/** Event ids of the activities of type `type` that were scheduled. */
export function activityEventIds(events: HistoryEvent[], type: string): number[] {
  return events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type).map((e) => Number(e.eventId));
}

/** Workflow ids of the child workflows started from these events, in order. */
export function childWorkflowIds(events: HistoryEvent[]): string[] {
  return events
    .filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)
    .map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!);
}

/** Whether an activity of type `type` is running on a worker now (describe's pending activities). */
export async function activityRunning(h: WorkflowHandle, type: string): Promise<boolean> {
  const d = await h.describe();
  // PendingActivityState.STARTED = 2
  return (d.raw.pendingActivities ?? []).some((a) => a.activityType?.name === type && Number(a.state) === 2);
}

/** Ids of the ActivityTaskCompleted events of the activities of type `type`. */
export function activityCompletedEventIds(events: HistoryEvent[], type: string): number[] {
  const scheduled = new Set(activityEventIds(events, type));
  return events
    .filter((e) => e.activityTaskCompletedEventAttributes && scheduled.has(Number(e.activityTaskCompletedEventAttributes.scheduledEventId)))
    .map((e) => Number(e.eventId));
}

/**
 * Why each attempt of the activities of type `type` was retried, from their ActivityTaskStarted
 * events (written once per activity, for its last attempt): `{ attempt, timeoutType }` in history
 * order. timeoutType is TimeoutType's number (4 = HEARTBEAT, 1 = START_TO_CLOSE) or undefined.
 */
export function activityAttempts(events: HistoryEvent[], type: string): { attempt: number; timeoutType?: number }[] {
  const scheduled = new Set(activityEventIds(events, type));
  return events
    .filter((e) => e.activityTaskStartedEventAttributes && scheduled.has(Number(e.activityTaskStartedEventAttributes.scheduledEventId)))
    .map((e) => {
      const a = e.activityTaskStartedEventAttributes!;
      const t = a.lastFailure?.timeoutFailureInfo?.timeoutType;
      return { attempt: Number(a.attempt), ...(t !== undefined && t !== null ? { timeoutType: Number(t) } : {}) };
    });
}
