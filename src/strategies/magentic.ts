/**
 * fuseraft's `Selection.Type: magentic`, pure: fuseraft's defaults, the manager's three prompts
 * (magentic_orientation, magentic_ledger_update, magentic_select_speaker) and the strict parsing of
 * their JSON replies (a reply that is not the JSON asked for is refused with the reason, so the
 * workflow corrects it once), the focused member input, and the stall/reset bookkeeping.
 * The workflow (src/workflows/strategies/magentic.ts) sequences manager calls and member turns.
 */
import { extractJsonObject } from './json';
import type { MagenticConfig } from './types';

export const MAGENTIC_DEFAULTS = { MaxRoundCount: 20, MaxStallCount: 3, MaxResetCount: 2, EnablePlanReview: false } as const;

export function magenticOf(c: MagenticConfig): Required<Omit<MagenticConfig, 'Instructions'>> & { Instructions?: string } {
  return {
    Model: c.Model,
    ...(c.Instructions !== undefined ? { Instructions: c.Instructions } : {}),
    MaxRoundCount: c.MaxRoundCount ?? MAGENTIC_DEFAULTS.MaxRoundCount,
    MaxStallCount: c.MaxStallCount ?? MAGENTIC_DEFAULTS.MaxStallCount,
    MaxResetCount: c.MaxResetCount ?? MAGENTIC_DEFAULTS.MaxResetCount,
    EnablePlanReview: c.EnablePlanReview ?? MAGENTIC_DEFAULTS.EnablePlanReview,
  };
}

export const DEFAULT_MANAGER_INSTRUCTIONS = 'You are the manager of a team of agents. You gather facts, make a plan, pick the right agent for each step and decide when the task is complete. Reply with JSON only.';

export interface Orientation { task_summary: string; facts: string; plan: string; next_step: string; completion_check: string }
export interface Ledger { task_complete: boolean; stalling: boolean; facts: string; reason: string }
export interface SpeakerChoice { next_speaker: string; instruction: string }

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

// {{$agents}} and {{$history}} are filled by the manager-call activity (agent descriptions are in the bundle).
const TEAM = '# Team\n{{$agents}}\n\n# Conversation\n{{$history}}';

export function orientationPrompt(replan?: { plan: string; facts: string }): string {
  const head = replan
    ? `magentic_orientation (replan): the team stalled on the plan below. Gather the facts established so far and make a new plan that avoids the stall.\n\n# Previous plan\n${replan.plan}\n\n# Facts so far\n${replan.facts}`
    : 'magentic_orientation: read the task and the conversation, then brief the team.';
  return `${head}\n\n${TEAM}\n\nReply with a JSON object: {"task_summary": string, "facts": string, "plan": string, "next_step": string, "completion_check": string}`;
}

export function ledgerPrompt(o: Orientation): string {
  return `magentic_ledger_update: assess progress against the plan.\n\n# Plan\n${o.plan}\n\n# Completion check\n${o.completion_check}\n\n# Facts\n${o.facts}\n\n${TEAM}\n\nReply with a JSON object: {"task_complete": boolean, "stalling": boolean, "facts": string, "reason": string}`;
}

export function speakerPrompt(o: Orientation, names: readonly string[]): string {
  return `magentic_select_speaker: pick the participant for the next step and give them one focused, concrete instruction.\n\n# Plan\n${o.plan}\n\n# Facts\n${o.facts}\n\n${TEAM}\n\nReply with a JSON object: {"next_speaker": one of ${names.map((n) => JSON.stringify(n)).join(', ')}, "instruction": string}`;
}

function fields(text: string, spec: Record<string, 'string' | 'boolean'>): Parsed<Record<string, string | boolean>> {
  const obj = extractJsonObject(text);
  if (!obj) return { ok: false, reason: 'the reply carries no JSON object' };
  const out: Record<string, string | boolean> = {};
  for (const [k, t] of Object.entries(spec)) {
    const v = obj[k];
    if (typeof v !== t) return { ok: false, reason: `field "${k}" must be a ${t}${v === undefined ? ' (it is missing)' : ` (it is ${JSON.stringify(v)})`}` };
    out[k] = v as string | boolean;
  }
  return { ok: true, value: out };
}

export function parseOrientation(text: string): Parsed<Orientation> {
  return fields(text, { task_summary: 'string', facts: 'string', plan: 'string', next_step: 'string', completion_check: 'string' }) as Parsed<Orientation>;
}

export function parseLedger(text: string): Parsed<Ledger> {
  return fields(text, { task_complete: 'boolean', stalling: 'boolean', facts: 'string', reason: 'string' }) as Parsed<Ledger>;
}

export function parseSpeaker(text: string, names: readonly string[]): Parsed<SpeakerChoice> {
  const r = fields(text, { next_speaker: 'string', instruction: 'string' }) as Parsed<SpeakerChoice>;
  if (!r.ok) return r;
  const hit = names.find((n) => n.toLowerCase() === r.value.next_speaker.trim().toLowerCase());
  if (!hit) return { ok: false, reason: `next_speaker "${r.value.next_speaker}" is not one of the participants (${names.join(', ')})` };
  return { ok: true, value: { next_speaker: hit, instruction: r.value.instruction } };
}

export function managerCorrection(reason: string): string {
  return `Your previous reply could not be used: ${reason}. Reply again with only the JSON object asked for.`;
}

/** The participant's input: the task, the conversation so far and the manager's instruction. */
export function participantInput(task: string, turns: readonly { agent: string; text: string }[], instruction: string): string {
  const conv = turns.length ? `\n\n# Conversation so far\n\n${turns.map((t) => `[${t.agent}]\n${t.text}`).join('\n\n')}` : '';
  return `# Task\n${task}${conv}\n\n# Instruction from the manager\n${instruction}`;
}

export interface StallState { stalls: number; resets: number }
export type StallStep = { kind: 'continue'; state: StallState } | { kind: 'replan'; state: StallState } | { kind: 'stop'; state: StallState; message: string };

/** After a ledger update: count consecutive stalls; MaxStallCount of them replans, past MaxResetCount replans it stops. */
export function afterLedger(s: StallState, stalling: boolean, maxStall: number, maxReset: number): StallStep {
  const stalls = stalling ? s.stalls + 1 : 0;
  if (stalls < maxStall) return { kind: 'continue', state: { stalls, resets: s.resets } };
  if (s.resets >= maxReset) {
    return { kind: 'stop', state: { stalls, resets: s.resets }, message: `magentic stalled: ${stalls} consecutive round(s) without progress after ${s.resets} replan(s) (MaxStallCount ${maxStall}, MaxResetCount ${maxReset})` };
  }
  return { kind: 'replan', state: { stalls: 0, resets: s.resets + 1 } };
}
