/**
 * Provider-neutral model call shapes shared by the openai provider (openai-provider.ts) and the
 * model activity. Messages use the OpenAI chat-completions format. Types only.
 */
import type { JsonSchema } from '../compiler/types';

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string; name?: string }
  | { role: 'user'; content: string; name?: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[]; name?: string }
  | { role: 'tool'; content: string; tool_call_id: string };

export interface ModelToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export type ModelToolChoice = 'none' | 'auto' | 'required' | { name: string };

export interface ModelRequest {
  messages: ChatMessage[];
  tools?: ModelToolSpec[];
  tool_choice?: ModelToolChoice;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  max_tokens?: number;
  /** Default true when tools are given and the model supports it. */
  parallel_tool_calls?: boolean;
  /** Cancellation (the activity's cancellationSignal). */
  signal?: AbortSignal;
}

export interface ModelReplyToolCall {
  id: string;
  name: string;
  /** Raw JSON text as the model produced it (may be invalid JSON: the caller decides). */
  arguments: string;
}

export interface ModelUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ModelReply {
  content: string | null;
  tool_calls: ModelReplyToolCall[];
  usage: ModelUsage;
  finish_reason: string | null;
  /** Model name reported by the provider (falls back to the configured one). */
  model: string;
}
