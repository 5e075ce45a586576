/**
 * A react run's agent, loaded before its first command. Patched (`react-local-load`): the load is
 * a local activity, so the run's first workflow task loads the agent and goes on to its first model
 * call in one task (no activity task, no second workflow task; the agent view is recorded as the
 * local activity's marker). One local attempt only: when it fails for any reason (a store outage, a
 * lifecycle refusal, a worker without the activity) the run issues the `loadAgent` activity as it
 * always did, so an outage is a visible activity retrying with its failure, and a refusal fails the
 * run with the activity's error. Runs recorded before the patch replay their `loadAgent` activity.
 */
import { isCancellation, patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { RunAgentInput } from '../../shared/contract';
import type { Activities } from '../../activities';
import type { AgentView } from '../../runtime/agent-view';
import { STORE_ACTIVITY } from '../activity-options';
import { PATCHES } from '../patches';

const loader = proxyActivities<Activities>(STORE_ACTIVITY);

/** One attempt, bounded: a slow or failing store moves on to the retrying activity. */
const localLoader = proxyLocalActivities<Activities>({ startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 1 } });

export async function loadRunAgent(input: RunAgentInput): Promise<AgentView> {
  // A root run (no parent) checks the lifecycle: draft needs allow_draft, disabled never runs.
  const args = { bundle: input.bundle, agent_id: input.agent_id, ...(input.options?.parent ? {} : { root: { allow_draft: input.options?.allow_draft === true } }) };
  if (patched(PATCHES.reactLocalLoad.id)) {
    try {
      return await localLoader.loadAgent(args);
    } catch (e) {
      if (isCancellation(e)) throw e;
    }
  }
  return loader.loadAgent.executeWithOptions({ ...STORE_ACTIVITY, summary: `load agent ${input.agent_id}` }, [args]);
}
