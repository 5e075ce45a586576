/**
 * The `scripted` provider's reply selection: rules first (top to bottom), then `turns[turn]`,
 * then `after_last` (repeat_last | cycle). Pure and deterministic.
 */
import type { JsonObject, JsonValue, ScriptedModelConfig, ScriptedReply } from '../compiled/types';
import type { ToolCall } from './messages';
import { expandDeep, expandTemplate } from './template';

export interface ScriptedContext {
  /** 0-based number of assistant turns already taken. */
  turn: number;
  /** Text of the latest user/tool message. */
  lastMessage: string;
  /** Text of the first user message (the rendered run input). */
  inputText: string;
  /** The raw run input (for `{{input.x}}`). */
  input: JsonValue;
  /** Content of the latest tool result (for `{{last_tool_result}}`). */
  lastToolResult?: string;
  /** Latest result of each tool by tool name (for `{{tool_results.<tool>}}`). */
  toolResults?: Record<string, string>;
}

export function selectScriptedReply(cfg: ScriptedModelConfig, ctx: ScriptedContext): ScriptedReply | undefined {
  for (const rule of cfg.rules ?? []) {
    const w = rule.when ?? {};
    if (w.turn !== undefined && w.turn !== ctx.turn) continue;
    if (w.last_message_contains !== undefined && !ctx.lastMessage.toLowerCase().includes(w.last_message_contains.toLowerCase())) continue;
    if (w.input_contains !== undefined && !ctx.inputText.toLowerCase().includes(w.input_contains.toLowerCase())) continue;
    return rule.reply;
  }
  const turns = cfg.turns ?? [];
  if (turns.length === 0) return undefined;
  if (ctx.turn < turns.length) return turns[ctx.turn];
  return cfg.after_last === 'cycle' ? turns[ctx.turn % turns.length] : turns[turns.length - 1];
}

export interface ScriptedResult {
  content?: string;
  tool_calls?: ToolCall[];
}

/** Expand templates and assign call ids (`call_<turn>_<index>` unless fixed in the script). */
export function materializeReply(reply: ScriptedReply, ctx: ScriptedContext): ScriptedResult {
  const vars: Record<string, JsonValue | undefined> = {
    input: ctx.input,
    last_tool_result: ctx.lastToolResult ?? '',
    // Read only when a template names it (the context may build it on demand: it walks the conversation).
    get tool_results() {
      return ctx.toolResults ?? {};
    },
    message: ctx.lastMessage,
    turn: ctx.turn,
  };
  const out: ScriptedResult = {};
  if (reply.content !== undefined) {
    out.content = typeof reply.content === 'string' ? expandTemplate(reply.content, vars) : JSON.stringify(expandDeep(reply.content, vars));
  }
  if (reply.tool_calls && reply.tool_calls.length > 0) {
    out.tool_calls = reply.tool_calls.map((c, i) => ({
      id: c.id ? `${c.id}` : `call_${ctx.turn}_${i}`,
      name: c.name,
      arguments: expandDeep(c.arguments ?? {}, vars) as JsonObject,
    }));
  }
  return out;
}

/** Token usage of a scripted reply: given, or ~4 chars per token. */
export function scriptedUsage(reply: ScriptedReply, promptChars: number, completion: string): { prompt_tokens: number; completion_tokens: number } {
  return {
    prompt_tokens: reply.usage?.prompt_tokens ?? Math.ceil(promptChars / 4),
    completion_tokens: reply.usage?.completion_tokens ?? Math.ceil(completion.length / 4),
  };
}
