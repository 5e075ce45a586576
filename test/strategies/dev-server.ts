/**
 * One dev-server harness per test file that records every root run it starts, so the file's last
 * test replays them all on the current code; and the member runs of a run as roles in turn order.
 * Call `recordingHarness` at the top level of a jest file (it registers beforeAll/afterAll).
 */
import type { WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { childIds, Harness, startHarness } from '../orchestration/harness';
import { replayHistories, type ReplayOutcome } from '../helpers/replay';
import { historyEvents } from '../helpers/history';
import { defaultPayloadConverter } from '@temporalio/common';

export interface RecordingHarness {
  /** The harness (set in beforeAll). */
  readonly h: Harness;
  /** Every root run `start` started, in order. */
  readonly started: WorkflowHandle[];
  start(...args: Parameters<Harness['start']>): Promise<WorkflowHandleWithFirstExecutionRunId>;
  /** Member runs of `wfId` (child ids without the parent prefix), sorted by name. */
  members(wfId: string): Promise<string[]>;
  /**
   * The same as `turn-N-…` roles in turn order (then by name), with the turns that ran inline in
   * the run's latest execution (patch strategies-members-inline: no child, a `modelTurn` activity
   * summarised `<role>: model …, turn 1`).
   */
  turns(wfId: string): Promise<string[]>;
  /** Replay every started run (its latest execution) on this code: one outcome each. */
  replayStarted(): Promise<ReplayOutcome[]>;
}

/** Roles of the member turns that ran inline in `wfId`'s latest execution: the first model activity of each (its summary names the role). */
async function inlineTurns(h: Harness, wfId: string): Promise<string[]> {
  const events = await historyEvents(h.t.client.workflow.getHandle(wfId));
  return events
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'modelTurn' && e.userMetadata?.summary)
    .map((e) => /^(.+): model .*, turn 1$/.exec(String(defaultPayloadConverter.fromPayload(e.userMetadata!.summary!)))?.[1])
    .filter((r): r is string => r !== undefined);
}

export function recordingHarness(prefix: string): RecordingHarness {
  let h: Harness | undefined;
  beforeAll(async () => { h = await startHarness(prefix); });
  afterAll(async () => { await h?.close(); });
  const started: WorkflowHandle[] = [];
  const harness = (): Harness => {
    if (!h) throw new Error('recordingHarness: used before beforeAll');
    return h;
  };
  const members = async (wfId: string): Promise<string[]> => (await childIds(harness(), wfId)).map((id) => id.slice(wfId.length + 1));
  return {
    get h() { return harness(); },
    started,
    async start(...args) {
      const wf = await harness().start(...args);
      started.push(wf);
      return wf;
    },
    members,
    async turns(wfId) {
      const n = (r: string) => Number(/^turn-(\d+)/.exec(r)?.[1] ?? 0);
      const inline = await inlineTurns(harness(), wfId);
      return [...(await members(wfId)), ...inline].sort((a, b) => n(a) - n(b) || a.localeCompare(b));
    },
    async replayStarted() {
      return replayHistories(await Promise.all(started.map(async (wf) => ({ workflowId: wf.workflowId, history: await wf.fetchHistory() }))));
    },
  };
}
