/**
 * Conversation message shapes shared by the react workflow, the model activity and the message
 * store. Pure types and helpers (no I/O, no Temporal): workflow code may import this module.
 */
import type { JsonObject, JsonValue } from '../compiled/types';
import type { BlobRef } from '../shared/contract';

export interface ToolCall {
  id: string;
  name: string;
  arguments: JsonObject;
}

export type Role = 'user' | 'assistant' | 'tool';

export interface Message {
  role: Role;
  content: string;
  /** Assistant messages: the calls the model asked for. */
  tool_calls?: ToolCall[];
  /** Tool messages: the call answered, and the tool name. */
  tool_call_id?: string;
  name?: string;
  /** Tool messages: true when the call failed, was refused or rejected. */
  is_error?: boolean;
}

/**
 * One node of the append-only, content-addressed conversation chain. Each node names the
 * previous head, so a conversation is identified by its head ref alone.
 */
export interface ChainNode {
  format: 'agentloom.msg/v1';
  prev: string | null;
  /** Hash of the first node (the run input); null for the first node itself. */
  root: string | null;
  /** 0-based position in the conversation. */
  n: number;
  msg: Message;
}

/** Something to append before a model turn: an already stored message blob, or an inline message. */
export type AppendItem = { ref: BlobRef } | { message: Message };

export function toolResultText(value: JsonValue | undefined): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
