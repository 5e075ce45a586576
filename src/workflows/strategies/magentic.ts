/**
 * fuseraft's `Selection.Type: magentic` inside a strategies run: the manager model (Magentic.Model,
 * called through the strategySelectorCall activity) runs magentic_orientation once, then each
 * round magentic_ledger_update (complete? stalling? facts) and magentic_select_speaker (who, with
 * what focused instruction), and the chosen participant runs as a member turn. MaxStallCount
 * consecutive stalling rounds replan (a new orientation); past MaxResetCount replans the session
 * ends with a stall message; MaxRoundCount caps the rounds. Every manager reply is strict JSON
 * (src/strategies/magentic.ts); an invalid one gets one correction, then a documented fallback
 * (raw text as plan; a stalling round; the next agent in order). EnablePlanReview waits durably for `loom approve` / `loom reject --reason
 * "<edited plan>"` on call id `plan-<n>`. Termination is ignored (compile warning).
 */
import { proxyActivities } from '@temporalio/workflow';
import { STRATEGY_MODEL_ACTIVITY } from '../activity-options';
import type { Activities } from '../../activities';
import type { JsonObject } from '../../compiled/types';
import { fallbackAgent, type HistoryTurn } from '../../strategies/llm-selection';
import {
  afterLedger, DEFAULT_MANAGER_INSTRUCTIONS, ledgerPrompt, magenticOf, managerCorrection, orientationPrompt, parseLedger, parseOrientation, parseSpeaker,
  participantInput, speakerPrompt, type Orientation, type Parsed, type StallState,
} from '../../strategies/magentic';
import type { MagenticConfig } from '../../strategies/types';
import { modelIdOf } from './llm';
import { continuePhases, historyFull, memberTurn, phaseCarry, reportPhase, type MemberReply, type PhaseCtx } from './phase-run';

const acts = proxyActivities<Activities>(STRATEGY_MODEL_ACTIVITY);

/** What strategies.ts's run offers for a durable operator decision (route approvals use it too). */
interface AsksOperator {
  askRoute(callId: string, args: JsonObject, reason: string): Promise<{ decision: 'approved' | 'rejected'; reason?: string; by?: string }>;
}

/** What a magentic run carries across continue-as-new (patch phases-continue-as-new). */
interface MagenticCarry { turns: HistoryTurn[]; calls: number; reviews: number; orientation: Orientation; stall: StallState; last?: MemberReply; next: number }

export async function runMagentic(ctx: PhaseCtx, config: MagenticConfig, names: readonly string[], task: string): Promise<MemberReply> {
  const m = magenticOf(config);
  const modelId = modelIdOf(m.Model);
  const { carried, enabled } = phaseCarry<MagenticCarry>(ctx);
  const turns: HistoryTurn[] = [...(carried?.turns ?? [])];
  let calls = carried?.calls ?? 0;
  let reviews = carried?.reviews ?? 0;
  // The round status shows (0 while orienting, before round 1).
  let at = carried?.next ?? 0;

  /** One manager call, with one correction when its reply is not the JSON asked for. */
  const ask = async <T>(what: string, prompt: string, parse: (text: string) => Parsed<T>): Promise<{ ok: true; value: T } | { ok: false; reason: string; text: string }> => {
    const base = { bundle: ctx.input.bundle, agent_id: ctx.input.agent_id, model_id: modelId, prompt, instructions: m.Instructions ?? DEFAULT_MANAGER_INSTRUCTIONS, task, history: turns };
    const first = await acts.strategySelectorCall({ ...base, turn: calls++ });
    ctx.run.addUsage(first.usage);
    const p1 = parse(first.reply);
    if (p1.ok) return p1;
    const second = await acts.strategySelectorCall({ ...base, correction: managerCorrection(p1.reason), turn: calls++ });
    ctx.run.addUsage(second.usage);
    const p2 = parse(second.reply);
    if (p2.ok) return p2;
    ctx.run.warn(`magentic ${what}: invalid manager reply after a correction (${p2.reason})`);
    return { ...p2, text: second.reply };
  };

  const orient = async (replan?: Orientation): Promise<Orientation> => {
    const r = await ask(replan ? 'replan' : 'orientation', orientationPrompt(replan), parseOrientation);
    // Fallback: the manager's raw text is the plan.
    return r.ok ? r.value : { task_summary: task, facts: replan?.facts ?? '', plan: r.text, next_step: '', completion_check: 'the task is done' };
  };

  const review = async (o: Orientation): Promise<Orientation> => {
    if (!m.EnablePlanReview) return o;
    const run = ctx.run as unknown as Partial<AsksOperator>;
    if (typeof run.askRoute !== 'function') throw ctx.run.fail('magentic: EnablePlanReview needs the strategies run (no operator channel here)', 'UnsupportedStrategy');
    reviews += 1;
    reportPhase(ctx, 'plan-review', `waiting for the operator to approve the plan (plan-${reviews})`, { plan: o.plan, round: at, max_rounds: m.MaxRoundCount, participants: [...names] });
    const a = await run.askRoute(`plan-${reviews}`, { plan: o.plan, next_step: o.next_step }, 'magentic plan review (EnablePlanReview): approve, or reject with the edited plan as the reason');
    if (a.decision === 'approved') return o;
    if (!a.reason?.trim()) throw ctx.run.fail(`magentic: the operator rejected the plan${a.by ? ` (${a.by})` : ''} without an edited plan`, 'PlanRejected', ctx.run.status.progress);
    ctx.run.details(`plan-${reviews}: the operator's edited plan replaces the manager's`);
    return { ...o, plan: a.reason };
  };

  // A continued run (patch phases-continue-as-new) resumes with its carried plan, stall counts and turns.
  if (!carried) reportPhase(ctx, 'orientation', `${modelId} orients the team`, { round: 0, max_rounds: m.MaxRoundCount, participants: [...names] });
  let o = carried?.orientation ?? await review(await orient());
  let stall: StallState = carried?.stall ?? { stalls: 0, resets: 0 };
  let last: MemberReply | undefined = carried?.last;
  const where = (round: number): JsonObject => ({ round, max_rounds: m.MaxRoundCount, stalls: stall.stalls, resets: stall.resets, participants: [...names] });
  const first = carried?.next ?? 1;
  for (let round = first; round <= m.MaxRoundCount; round++) {
    at = round;
    if (enabled && round > first && historyFull(ctx)) {
      await continuePhases(ctx, { turns, calls, reviews, orientation: o, stall, last, next: round } satisfies MagenticCarry, `before round ${round}`);
    }
    reportPhase(ctx, 'ledger', `round ${round}: ${modelId} updates the ledger`, where(round));
    const l = await ask(`round ${round} ledger`, ledgerPrompt(o), parseLedger);
    // Fallback: an unreadable ledger counts as a stalling, unfinished round.
    const ledger = l.ok ? l.value : { task_complete: false, stalling: true, facts: o.facts, reason: l.reason };
    o = { ...o, facts: ledger.facts };
    if (ledger.task_complete && last) {
      ctx.run.status.progress = { strategy: ctx.strategy, phase: 'done', ...where(round), stopped: `complete: the manager's ledger says the task is complete (${ledger.reason})` };
      return last;
    }
    const step = afterLedger(stall, ledger.stalling, m.MaxStallCount, m.MaxResetCount);
    stall = step.state;
    if (step.kind === 'stop') {
      ctx.run.warn(step.message);
      ctx.run.status.progress = { strategy: ctx.strategy, phase: 'done', ...where(round), stopped: `stalled: ${step.message}` };
      return { agent: 'manager', text: step.message, output: step.message };
    }
    if (step.kind === 'replan') {
      reportPhase(ctx, 'replan', `round ${round}: stalled; replan ${stall.resets} of ${m.MaxResetCount}`, where(round));
      o = await review(await orient(o));
    }
    reportPhase(ctx, 'select', `round ${round}: ${modelId} selects the next speaker`, where(round));
    const s = await ask(`round ${round} speaker`, speakerPrompt(o, names), (t) => parseSpeaker(t, names));
    // Fallback: the participant after the last speaker, told the plan's next step.
    const choice = s.ok ? s.value : { next_speaker: fallbackAgent(names, last?.agent), instruction: o.next_step || o.plan };
    reportPhase(ctx, 'speak', `round ${round}: ${choice.next_speaker} works`, { ...where(round), speaker: choice.next_speaker });
    last = await memberTurn(ctx, choice.next_speaker, `round-${round}-${choice.next_speaker}`, participantInput(task, turns, choice.instruction));
    turns.push({ agent: last.agent, text: last.text });
  }
  ctx.run.warn(`magentic stopped after MaxRoundCount ${m.MaxRoundCount} round(s) without the ledger saying the task is complete`);
  ctx.run.status.progress = { strategy: ctx.strategy, phase: 'done', ...where(m.MaxRoundCount), stopped: `MaxRoundCount ${m.MaxRoundCount} reached` };
  return last ?? { agent: 'manager', text: '', output: '' };
}
