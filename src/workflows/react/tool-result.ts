/** A tool result the model reads as an error (refused, blocked, rejected or failed calls). */
import type { AppendItem, Message, ToolCall } from '../../runtime/messages';

export function errorResult(call: ToolCall, text: string): AppendItem {
  return { message: { role: 'tool', content: `error: ${text}`, tool_call_id: call.id, name: call.name, is_error: true } satisfies Message };
}
