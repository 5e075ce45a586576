/**
 * When a long-running workflow continues as new: Temporal suggests it (the history nears its
 * event-count or size limit: `continueAsNewSuggested`), or the history holds more than `limit`
 * events. Every long-running workflow asks here: the agent run (every N turns too, for tests),
 * agf.loop and agf.batch, chat sessions, fuseraft's strategies, phases and map-reduce.
 *
 * The one limit: HISTORY_EVENTS_LIMIT (4,000 events), used by the workflows that loop without a
 * bound of their own (agf.loop, chat sessions); the others continue when Temporal suggests it, or
 * past `options.scale.loop_history_events` when a run sets it (tests and benchmarks lower it).
 * Reads workflowInfo() only: it issues no command, so asking never changes a history.
 */
import { workflowInfo } from '@temporalio/workflow';

export const HISTORY_EVENTS_LIMIT = 4000;

export function historyFull(limit?: number): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || (limit !== undefined && info.historyLength > limit);
}
