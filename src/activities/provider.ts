/**
 * The interface every model backend implements (the scripted model, OpenAI-compatible servers and
 * the native providers in providers/): what a provider receives for one model turn and what it
 * returns. The model activity (model.ts) calls it.
 */
import type { CompiledAgent, CompiledModel, JsonSchema, JsonValue } from '../compiled/types';
import type { Message, ToolCall } from '../runtime/messages';
import type { ModelPrefs } from '../runtime/agent-view';

/** What a provider receives. */
export interface ProviderRequest {
  model: CompiledModel;
  agent: CompiledAgent;
  instructions: string;
  conversation: Message[];
  tools: { name: string; description: string; parameters: JsonSchema }[];
  prefs: ModelPrefs;
  turn: number;
  input: JsonValue;
  signal?: AbortSignal;
  /** Streaming: a tool call complete in the stream (awaited before the stream is read further). */
  onCall?: (call: ToolCall) => Promise<void>;
  /** Streaming: reply text as it arrives. */
  onText?: (delta: string) => void;
}
export interface ProviderReply {
  content?: string;
  tool_calls?: ToolCall[];
  usage: { prompt_tokens: number; completion_tokens: number };
}
export type Provider = (req: ProviderRequest) => Promise<ProviderReply>;
