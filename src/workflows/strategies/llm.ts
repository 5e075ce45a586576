/**
 * fuseraft's `Selection.Type: llm` inside a strategies run: each turn the selection `Model` picks the
 * next speaker (the strategySelectorCall activity renders `Prompt` with `{{$agents}}` and
 * `{{$history}}`), the reply is parsed strictly (src/strategies/llm-selection.ts); an unusable
 * reply gets one correction, then the fallback rule (the agent after the last speaker) picks the speaker with a
 * warning. The speaker runs as a member turn (strategies-phase-run.ts) given the task and the
 * conversation so far; Termination is checked after every agent turn, and a run whose Termination
 * sets no MaxIterations stops after DEFAULT_LLM_MAX_TURNS turns (fuseraft gives no default cap).
 */
import { proxyActivities } from '@temporalio/workflow';
import { STRATEGY_MODEL_ACTIVITY } from '../activity-options';
import type { Activities } from '../../activities';
import { checkTerminationAfter } from '../../strategies/termination';
import { DEFAULT_LLM_MAX_TURNS, fallbackAgent, parseSelection, selectionCorrection, type HistoryTurn } from '../../strategies/llm-selection';
import type { ModelRef, StrategyConfig } from '../../strategies/types';
import { continuePhases, historyFull, memberTurn, phaseCarry, reportPhase, type MemberReply, type PhaseCtx } from './phase-run';

const acts = proxyActivities<Activities>(STRATEGY_MODEL_ACTIVITY);

export function modelIdOf(m: ModelRef | undefined): string {
  return typeof m === 'string' ? m : m?.ModelId ?? '';
}

/** A member's input: the task, then every turn so far labelled with its speaker. */
export function llmMemberInput(task: string, turns: readonly HistoryTurn[]): string {
  if (!turns.length) return task;
  return `# Task\n${task}\n\n# Conversation so far\n\n${turns.map((t) => `[${t.agent}]\n${t.text}`).join('\n\n')}`;
}

/** What an llm run carries across continue-as-new (patch phases-continue-as-new). */
interface LlmCarry { turns: HistoryTurn[]; calls: number; last?: MemberReply; next: number }

export async function runLlmSelection(ctx: PhaseCtx, config: StrategyConfig, names: readonly string[], task: string): Promise<MemberReply> {
  const sel = config.Selection;
  const modelId = modelIdOf(sel.Model);
  const cap = JSON.stringify(config.Termination ?? {}).includes('"MaxIterations"') ? undefined : DEFAULT_LLM_MAX_TURNS;
  const { carried, enabled } = phaseCarry<LlmCarry>(ctx);
  const turns: HistoryTurn[] = [...(carried?.turns ?? [])];
  let calls = carried?.calls ?? 0;
  let last: MemberReply | undefined = carried?.last;
  const from = carried?.next ?? 1;
  for (let i = from; ; i++) {
    // Patch phases-continue-as-new: the turns so far (the transcript) and the selector call count are carried.
    if (enabled && i > from && historyFull(ctx)) await continuePhases(ctx, { turns, calls, last, next: i } satisfies LlmCarry, `before turn ${i}`);
    const base = { bundle: ctx.input.bundle, agent_id: ctx.input.agent_id, model_id: modelId, ...(sel.Prompt !== undefined ? { prompt: sel.Prompt } : {}), task, history: turns };
    reportPhase(ctx, 'select', `turn ${i}: ${modelId} selects the next speaker`, { iteration: i, participants: [...names] });
    const first = await acts.strategySelectorCall({ ...base, turn: calls++ });
    ctx.run.addUsage(first.usage);
    let pick = parseSelection(first.reply, names);
    let how = 'selected by the model';
    if (!pick.ok) {
      const correction = selectionCorrection(pick.reason, names);
      const second = await acts.strategySelectorCall({ ...base, correction, turn: calls++ });
      ctx.run.addUsage(second.usage);
      const again = parseSelection(second.reply, names);
      if (again.ok) how = `selected after a correction (${pick.reason})`;
      else {
        const agent = fallbackAgent(names, turns[turns.length - 1]?.agent);
        ctx.run.warn(`llm selection turn ${i}: ${again.reason} after a correction (first reply: ${pick.reason}); fell back to ${agent} (the agent after the last speaker in Agents order)`);
        how = 'fallback after an unusable reply';
        pick = { ok: true, agent };
      }
      if (again.ok) pick = again;
    }
    const speaker = (pick as { agent: string }).agent;
    reportPhase(ctx, 'speak', `turn ${i}: ${speaker} speaks (${how})`, { iteration: i, speaker, selection: how, participants: [...names] });
    last = await memberTurn(ctx, speaker, `turn-${i}-${speaker}`, llmMemberInput(task, turns));
    turns.push({ agent: speaker, text: last.text });
    const t = checkTerminationAfter(config.Termination, { agent: speaker, text: last.text }, i);
    if (t.stop) {
      ctx.run.status.progress = { strategy: ctx.strategy, phase: 'done', iteration: i, speaker, participants: [...names], stopped: `terminated: ${t.strategy}: ${t.reason}` };
      return last;
    }
    if (cap !== undefined && i >= cap) {
      ctx.run.warn(`llm selection stopped after ${cap} agent turns: Termination sets no MaxIterations (set one, or a regex Termination, to end the session)`);
      ctx.run.status.progress = { strategy: ctx.strategy, phase: 'done', iteration: i, speaker, participants: [...names], stopped: `terminated: ${cap} turns without a Termination MaxIterations` };
      return last;
    }
  }
}
