/**
 * fuseraft's `Selection.Type: llm`, pure: the selection prompt (fuseraft's `Prompt` with
 * `{{$agents}}` and `{{$history}}`, or a built-in one), strict parsing of the selector's reply (one
 * agent name, case-insensitive), the one correction an unusable reply gets, and the fallback rule
 * after it (the agent after the last speaker in `Agents` order). The workflow
 * (src/workflows/strategies/llm.ts) sequences selector calls and member turns around these.
 */

/** The built-in prompt when `Prompt` is omitted (fuseraft's example prompt). */
export const DEFAULT_SELECTION_PROMPT = [
  'You are an orchestrator. Given the agents:',
  '{{$agents}}',
  '',
  'And the conversation:',
  '{{$history}}',
  '',
  'Which agent should respond next? Reply with only the agent name.',
].join('\n');

/** How many recent turns `{{$history}}` holds (fuseraft says "recent conversation": the task plus the last 20 turns). */
export const SELECTION_HISTORY_TURNS = 20;

/** Agent turns an llm selection runs when Termination sets no MaxIterations (fuseraft gives no default cap; a run must end). */
export const DEFAULT_LLM_MAX_TURNS = 50;

export interface SelectableAgent { name: string; description?: string }
export interface HistoryTurn { agent: string; text: string }

/** `{{$agents}}`: one line per agent, `- Name: description`. */
export function renderAgents(agents: readonly SelectableAgent[]): string {
  return agents.map((a) => `- ${a.name}${a.description ? `: ${a.description}` : ''}`).join('\n');
}

/** `{{$history}}`: the task, then the last SELECTION_HISTORY_TURNS turns as `[Name]: text`. */
export function renderHistory(task: string, turns: readonly HistoryTurn[]): string {
  const recent = turns.slice(-SELECTION_HISTORY_TURNS);
  const omitted = turns.length - recent.length;
  return [`[user]: ${task}`, ...(omitted > 0 ? [`(${omitted} earlier turn(s) omitted)`] : []), ...recent.map((t) => `[${t.agent}]: ${t.text}`)].join('\n');
}

/** The selection prompt: `template` (or the built-in one) with both placeholders filled. */
export function selectionPrompt(template: string | undefined, agents: readonly SelectableAgent[], task: string, turns: readonly HistoryTurn[]): string {
  return (template ?? DEFAULT_SELECTION_PROMPT)
    .split('{{$agents}}').join(renderAgents(agents))
    .split('{{$history}}').join(renderHistory(task, turns));
}

export type SelectionParse = { ok: true; agent: string } | { ok: false; reason: string };

/**
 * The selector's reply as one of `names`: the whole reply (trimmed, surrounding quotes, `*`, `_`,
 * backticks and a final `.` removed) equal to a name, case-insensitive. Anything else — prose,
 * two names, an unknown name — is refused with the reason.
 */
export function parseSelection(reply: string, names: readonly string[]): SelectionParse {
  const cleaned = reply.trim().replace(/^[\s"'`*_]+|[\s"'`*_.]+$/g, '');
  if (!cleaned) return { ok: false, reason: 'the reply is empty' };
  const hit = names.find((n) => n.toLowerCase() === cleaned.toLowerCase());
  if (hit) return { ok: true, agent: hit };
  const shown = cleaned.length > 80 ? `${cleaned.slice(0, 80)}…` : cleaned;
  return { ok: false, reason: `"${shown}" is not one of the agents (${names.join(', ')})` };
}

/** The correction appended to the prompt for the one retry. */
export function selectionCorrection(reason: string, names: readonly string[]): string {
  return `Your previous reply could not be used: ${reason}. Reply with exactly one of these agent names and nothing else: ${names.join(', ')}.`;
}

/** The fallback rule: after a failed correction, the agent after `lastSpeaker` in `Agents` order (the first on the first turn). */
export function fallbackAgent(names: readonly string[], lastSpeaker: string | undefined): string {
  const i = lastSpeaker === undefined ? -1 : names.indexOf(lastSpeaker);
  return names[(i + 1) % names.length];
}
