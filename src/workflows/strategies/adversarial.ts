/**
 * fuseraft's `adversarial` inside a strategies run: `Stages` in order; in each, the `Generator`
 * produces an artifact and the `Critic` reviews it for up to `Rounds` critique rounds. The critic
 * runs behind the context firewall: its member run gets the artifact as its only input (its own
 * instructions are its system prompt) — no task, no earlier stages, no generator reasoning. A
 * critique with `PassKeyword` alone on a line promotes the artifact; otherwise the generator
 * revises with the critique as its user message. When the rounds run out, the last *reviewed*
 * artifact is promoted with a warning. Later generators get the promoted artifacts; the last
 * stage's is the run's output.
 */
import type { AdversarialConfig } from '../../strategies/types';
import { adversarialOf, criticInput, criticPassed, generatorInput, stageLabel, type PromotedArtifact, type StageOutcome } from '../../strategies/phases';
import type { JsonValue } from '../../compiled/types';
import { memberTurn, reportPhase, type MemberReply, type PhaseCtx } from './phase-run';

/** Stage outcomes for status, without the artifacts. */
const summary = (os: StageOutcome[]): JsonValue => os.map((o) => ({ label: o.label, outcome: o.outcome, rounds: o.rounds }));

export async function runAdversarial(ctx: PhaseCtx, config: AdversarialConfig, task: string, prefix = ''): Promise<MemberReply> {
  const adv = adversarialOf(config);
  const promoted: PromotedArtifact[] = [];
  const outcomes: StageOutcome[] = [];
  let last: MemberReply | undefined;
  for (const [k, stage] of adv.Stages.entries()) {
    const label = stageLabel(stage);
    const where = { stage: k + 1, stages: adv.Stages.length, label, generator: stage.Generator, critic: stage.Critic, participants: [stage.Generator, stage.Critic], rounds: adv.Rounds, outcomes: summary(outcomes) };
    reportPhase(ctx, 'generate', `stage ${k + 1} "${label}": ${stage.Generator} generates`, { ...where, round: 1 });
    let artifact = await memberTurn(ctx, stage.Generator, `${prefix}stage-${k + 1}-generate-1-${stage.Generator}`, generatorInput(task, promoted));
    let outcome: StageOutcome | undefined;
    for (let round = 1; round <= adv.Rounds; round++) {
      reportPhase(ctx, 'critique', `stage ${k + 1} "${label}": ${stage.Critic} reviews (round ${round} of ${adv.Rounds})`, { ...where, round });
      const critique = await memberTurn(ctx, stage.Critic, `${prefix}stage-${k + 1}-critique-${round}-${stage.Critic}`, criticInput(artifact.text));
      if (criticPassed(critique.text, adv.PassKeyword)) {
        outcome = { label, artifact: artifact.text, outcome: 'approved', rounds: round };
        break;
      }
      if (round === adv.Rounds) break;
      reportPhase(ctx, 'revise', `stage ${k + 1} "${label}": ${stage.Generator} revises after round ${round}`, { ...where, round: round + 1 });
      artifact = await memberTurn(ctx, stage.Generator, `${prefix}stage-${k + 1}-generate-${round + 1}-${stage.Generator}`,
        generatorInput(task, promoted, { artifact: artifact.text, critic: stage.Critic, critique: critique.text }));
    }
    if (!outcome) {
      outcome = { label, artifact: artifact.text, outcome: 'exhausted', rounds: adv.Rounds };
      ctx.run.warn(`adversarial stage ${k + 1} "${label}": ${stage.Critic} did not approve in ${adv.Rounds} round(s) (no "${adv.PassKeyword}" line); the last reviewed artifact is promoted`);
    }
    outcomes.push(outcome);
    promoted.push({ label, artifact: outcome.artifact });
    last = artifact;
  }
  reportPhase(ctx, 'done', `${outcomes.length} stage(s) promoted`, { stages: adv.Stages.length, participants: [...new Set(adv.Stages.flatMap((s) => [s.Generator, s.Critic]))], outcomes: summary(outcomes) });
  return last!;
}
