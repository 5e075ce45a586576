/**
 * `retention_class: ephemeral` (nothing the run writes outlives it): a root run started by a client that marked it
 * (RunOptions.ephemeral, the input stored under a run-scoped reference) ends by deleting every blob
 * and record its activities created (src/activities/ephemeral.ts), whether it completed, failed or
 * was cancelled; a completed run's output waits in the store for the client, and the workflow
 * result holds only where to collect it. Decided once per run chain (patch `ephemeral-run`).
 */
import { CancellationScope, patched } from '@temporalio/workflow';
import { CLEANUP_ACTIVITY } from '../activity-options';
import type { AgentRunResult } from '../../shared/contract';
import type { ReactRun } from './context';
import { PATCHES } from '../patches';

/** The first run of a chain: is it an ephemeral run? (Only a root run the client marked; patched.) */
export function ephemeralApplies(rx: ReactRun): boolean {
  const o = rx.input.options;
  return o?.ephemeral === true && !o.parent && patched(PATCHES.ephemeralRun.id);
}

/**
 * Delete what the run wrote (even while it is being cancelled). With a completed run's result: its
 * output is kept for pickup and the returned result names where, instead of holding it.
 */
export async function endEphemeral(rx: ReactRun, result?: AgentRunResult): Promise<AgentRunResult | undefined> {
  const end = await CancellationScope.nonCancellable(() =>
    rx.acts.endEphemeralRun.executeWithOptions(
      { ...CLEANUP_ACTIVITY, summary: 'ephemeral run: delete what it stored' },
      [{ agent_id: rx.input.agent_id, ...(result ? (rx.st.output_ref ? { output_ref: rx.st.output_ref } : { output: result.output }) : {}) }],
    ),
  );
  if (!result) return undefined;
  return { agent_id: result.agent_id, output: end.output as unknown as AgentRunResult['output'], usage: result.usage, warnings: result.warnings };
}
