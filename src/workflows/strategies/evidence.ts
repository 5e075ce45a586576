/**
 * Evidence for a strategies run, workflow side: the one workspace every member shares (so the
 * Planner's brief.json is the file the Developer reads and the Tester's command runs against), each
 * agent turn's TurnEvidence gathered by an activity from what the tools recorded (only when a
 * validator or contract will read it), and the HandoffContext block of a transition. Runs started
 * on patch `strategies-evidence` carry the workspace across continue-as-new; older runs have none
 * and keep their per-member workspaces.
 */
import { patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { STORE_ACTIVITY } from '../activity-options';
import type { Activities } from '../../activities';
import { artifactPathsOf, reviewArtifactPathsOf, usesEvidence } from '../../strategies/evidence';
import type { HandoffContextEntry, StrategyConfig, TurnEvidence } from '../../strategies';
import { PATCHES } from '../patches';

const acts = proxyActivities<Activities>(STORE_ACTIVITY);

/** What continue-as-new carries: the shared workspace (absent for runs from before the patch). */
export interface EvidenceState { workspace: string }

export class RunEvidence {
  private readonly files: string[] | undefined;

  private constructor(readonly workspace: string, config: StrategyConfig) {
    const review = reviewArtifactPathsOf(config);
    // A MaxRevisits escalation quotes its ReviewArtifactPath from the turn's evidence; runs from before
    // patch strategies-review-artifact gathered evidence only for validators and contracts.
    const gather = usesEvidence(config) || (review.length > 0 && patched(PATCHES.strategiesReviewArtifact.id));
    this.files = gather ? artifactPathsOf(config.Contracts ?? [], review) : undefined;
  }

  /** A fresh run decides once (the patch) and resolves its workspace; a continued run reuses its carry. */
  static async start(carried: EvidenceState | undefined, fresh: boolean, config: StrategyConfig, workspace: string | undefined): Promise<RunEvidence | undefined> {
    if (carried) return new RunEvidence(carried.workspace, config);
    // A literal id: the compat guard scans the source for patch ids.
    if (!fresh || !patched(PATCHES.strategiesEvidence.id)) return undefined;
    const root = await acts.strategyWorkspace({ workflow_id: workflowInfo().workflowId, ...(workspace ? { workspace } : {}) });
    return new RunEvidence(root, config);
  }

  state(): EvidenceState {
    return { workspace: this.workspace };
  }

  /** The evidence of the turn member run `role` made, when a validator or contract will read it. */
  async ofTurn(role: string): Promise<TurnEvidence | undefined> {
    if (!this.files) return undefined;
    return acts.collectTurnEvidence({ workspace: this.workspace, member_workflow_id: `${workflowInfo().workflowId}/${role}`, files: this.files });
  }

  /** The block a transition's HandoffContext injects for `toAgent`. */
  async handoff(entries: HandoffContextEntry[], toAgent: string): Promise<string> {
    return acts.handoffContext({ workspace: this.workspace, entries, to_agent: toAgent });
  }

  /** The artifact sources of `agent`'s Context spec, read as it is invoked. */
  async contextSources(entries: HandoffContextEntry[], agent: string): Promise<string> {
    return acts.handoffContext({ workspace: this.workspace, entries, to_agent: agent, for: 'context' });
  }
}
