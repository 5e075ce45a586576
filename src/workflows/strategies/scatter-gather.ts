/**
 * fuseraft's `scattergather` inside a strategies run: every `Participants` agent gets the same task
 * as its own member run (an isolated snapshot: none sees another's work), at most `MaxConcurrency`
 * at once (0 = unlimited); then the `Synthesizer` gets the task plus every output labelled
 * `[Participant: Name]` and its reply is the terminal output. Termination is not evaluated.
 */
import type { ScatterGatherConfig } from '../../strategies/types';
import { concurrencyLimit, scatterGatherOf, synthesizerInput } from '../../strategies/phases';
import { mapBounded } from '../../orchestration/batch';
import { memberTurn, reportPhase, workspaceSnapshots, type MemberReply, type PhaseCtx } from './phase-run';

/** `task` is the snapshot every participant gets (the run input, or a parent conversation's transcript). */
export async function runScatterGather(ctx: PhaseCtx, config: ScatterGatherConfig, task: string, prefix = ''): Promise<MemberReply> {
  const sg = scatterGatherOf(config);
  const limit = concurrencyLimit(sg.MaxConcurrency, sg.Participants.length);
  let done = 0;
  reportPhase(ctx, 'scatter', `${sg.Participants.join(', ')} (at most ${limit} at once)`, { participants: sg.Participants, completed: 0, max_concurrency: sg.MaxConcurrency });
  const roles = sg.Participants.map((name, i) => `${prefix}scatter-${i + 1}-${name}`);
  // Each participant works in its own copy of the shared workspace as it is now (fuseraft's "isolated snapshot").
  const snapshots = await workspaceSnapshots(ctx, roles);
  const outputs = await mapBounded(sg.Participants, limit, async (name, i) => {
    const r = await memberTurn(ctx, name, roles[i], task, { workspace: snapshots[i] });
    done += 1;
    reportPhase(ctx, 'scatter', `${done} of ${sg.Participants.length} participants answered`, { participants: sg.Participants, completed: done, max_concurrency: sg.MaxConcurrency });
    return r;
  });
  reportPhase(ctx, 'gather', `${sg.Synthesizer} synthesizes ${outputs.length} outputs`, { participants: sg.Participants, synthesizer: sg.Synthesizer });
  const synthesized = await memberTurn(ctx, sg.Synthesizer, `${prefix}gather-${sg.Synthesizer}`, synthesizerInput(task, outputs));
  // Every participant's reply, in Participants order, for a sub-graph's parent conversation.
  return { ...synthesized, messages: outputs.map((o) => ({ agent: o.agent, text: o.text })) };
}
