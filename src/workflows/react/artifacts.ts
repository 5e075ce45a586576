/**
 * The Agent Definition Specification's artifacts at the end of a completed react run: one activity writes input/output/
 * intermediate through the shared store (src/activities/artifacts.ts). Runs only for agents that
 * write some (artifacts.enabled, a save_* flag, retention_class not `ephemeral`: an ephemeral run
 * schedules nothing, so its content never reaches the artifact store), and only past the
 * `artifacts-save` patch, so runs recorded before artifacts existed replay unchanged.
 */
import { patched, workflowInfo } from '@temporalio/workflow';
import type { AgentRunResult } from '../../shared/contract';
import { writesArtifacts } from '../../runtime/artifacts';
import type { ReactRun } from './context';
import { PATCHES } from '../patches';

export async function saveArtifacts(rx: ReactRun, result: AgentRunResult): Promise<void> {
  if (!writesArtifacts(rx.agent.artifacts) || !patched(PATCHES.artifactsSave.id)) return;
  const out = await rx.acts.saveRunArtifacts.executeWithOptions({ ...rx.guardOpts, summary: `save artifacts (${rx.agent.artifacts.retention_class})` }, [
    { bundle: rx.input.bundle, agent_id: rx.input.agent_id, run_id: workflowInfo().workflowId, head: rx.st.head, output: result.output },
  ]);
  if (out.saved.length) rx.shell.details(`artifacts saved: ${out.saved.join(', ')} (${rx.agent.artifacts.retention_class})`);
}
