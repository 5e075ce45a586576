/**
 * Limits accounting for a react run (hard constraints, the Agent Format). Pure.
 *
 * Definitions: a *turn* is one model call (correction turns included); a *step* is one action of
 * the loop: a model turn or a tool call (executed, refused or rejected). `max_steps` bounds steps,
 * `runtime.max_turns` bounds turns, `runtime.max_tool_calls` bounds tool calls of the run and
 * each tool's `max_calls_per_run` bounds calls of that tool.
 */
export interface Counters {
  turn: number;
  step: number;
  tool_calls: number;
  per_tool: Record<string, number>;
}

export interface Limits {
  max_steps?: number;
  max_turns?: number;
  max_tool_calls?: number;
  per_tool: Record<string, number | undefined>;
}

export function newCounters(): Counters {
  return { turn: 0, step: 0, tool_calls: 0, per_tool: {} };
}

/** Why another model turn may not start, or undefined when it may. */
export function turnBlocked(c: Counters, l: Limits): string | undefined {
  if (l.max_turns !== undefined && c.turn >= l.max_turns) return `runtime.max_turns (${l.max_turns}) reached before a final answer`;
  if (l.max_steps !== undefined && c.step >= l.max_steps) return `max_steps (${l.max_steps}) reached before a final answer`;
  return undefined;
}

/** Why a tool call may not run, or undefined when it may (does not count it). */
export function toolCallBlocked(c: Counters, l: Limits, tool: string): string | undefined {
  if (l.max_steps !== undefined && c.step >= l.max_steps) return `max_steps (${l.max_steps}) reached: the call was not run`;
  if (l.max_tool_calls !== undefined && c.tool_calls >= l.max_tool_calls) {
    return `runtime.max_tool_calls (${l.max_tool_calls}) reached: no more tool calls in this run; answer with what you have`;
  }
  const per = l.per_tool[tool];
  if (per !== undefined && (c.per_tool[tool] ?? 0) >= per) {
    return `tool ${tool}: max_calls_per_run (${per}) reached; do not call it again in this run`;
  }
  return undefined;
}

/** Count one tool call (any outcome) against the limits. */
export function countToolCall(c: Counters, tool: string): void {
  c.tool_calls += 1;
  c.step += 1;
  c.per_tool[tool] = (c.per_tool[tool] ?? 0) + 1;
}

export function countTurn(c: Counters): void {
  c.turn += 1;
  c.step += 1;
}

/** True when no tool call can run any more (the model is then asked for a final answer). */
export function toolsExhausted(c: Counters, l: Limits): boolean {
  return l.max_tool_calls !== undefined && c.tool_calls >= l.max_tool_calls;
}
