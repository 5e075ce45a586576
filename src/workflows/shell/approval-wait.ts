/**
 * The wait for a human decision until the approval timeout (a tool call, a delegation, a memory
 * writeback), with a timer the Temporal Web UI can name: its summary is shown on the Timer Started
 * event of the event history and in the timeline, instead of an unlabelled "1 (7d)".
 */
import { condition, patched } from '@temporalio/workflow';
import { PATCHES } from '../patches';

/** The summary of an approval wait's timer: which call it times out. */
export function approvalTimerSummary(what: string, callId: string): string {
  return `approval timeout for ${callId} (${what})`;
}

/**
 * Wait until `decided` holds or the approval timeout passes: true when `decided` held first. The
 * timer carries `summary` (the TimerOptions `condition` takes since @temporalio/workflow 1.24, passed
 * on to its `sleep`); patched, since the timers of runs recorded before had none.
 */
export function approvalWait(decided: () => boolean, timeoutS: number, summary: string): Promise<boolean> {
  if (patched(PATCHES.approvalTimerSummary.id)) return condition(decided, timeoutS * 1000, { summary });
  return condition(decided, timeoutS * 1000);
}
