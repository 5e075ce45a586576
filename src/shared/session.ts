/**
 * The contract of a chat session (the Agent Definition Specification's "state"; src/workflows/session.ts): its input, the
 * `sessionMessage` update that takes one user message and returns the reply, and the state it
 * carries across continue-as-new. Types and definitions only, so the workflow, the activities and
 * the CLI (`loom chat`, `loom send`) take them from one place, with the zod schema of the message. The wire name never changes.
 */
import { defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import type { JsonValue } from '../compiled/types';
import type { BlobRef, RunOptions, TokenUsage } from './contract';

/** Workflow type of a chat session (not an agent pattern: it answers each message inside itself or with the agent's own workflow). */
export const SESSION_WORKFLOW_TYPE = 'sessionWorkflow';
/** An idle session ends after this long without a message unless the session input says otherwise. */
export const DEFAULT_IDLE_TIMEOUT_SECONDS = 3600;

export interface SessionInput {
  bundle: BlobRef;
  agent_id: string;
  /** Who is chatting: `{actorId}` in memory collection namespaces (default `anonymous`). */
  actor_id?: string;
  /** Seconds without a message after which the session ends (durable timer; default DEFAULT_IDLE_TIMEOUT_SECONDS). */
  idle_timeout_seconds?: number;
  /** Passed to every turn's run (approval timeout and so on). */
  options?: RunOptions;
  /** Tests/bench: continue-as-new after this many messages in one execution (besides Temporal's suggestion). */
  continue_as_new_every?: number;
  /** Set by continue-as-new. */
  carried?: SessionCarry;
}

/** What a session keeps between messages: references and counters only. */
export interface SessionCarry {
  /** Head of the session's message chain (state.session_history: session); null when nothing is kept. */
  head: BlobRef | null;
  /** The stored scratchpad (state.working_state: session). */
  scratchpad: BlobRef | null;
  /** Messages answered so far (over all executions). */
  messages: number;
  executions: number;
  usage: TokenUsage;
  /** Memory writebacks waiting for a human (carried so a decision can arrive in a later execution). */
  writebacks?: PendingMemoryWrite[];
}

/** A memory writeback (collection `writeback.approval_required: true`) waiting for approve/reject. */
export interface PendingMemoryWrite {
  call_id: string;
  collection_id: string;
  namespace: string;
  /** The entry to store (src/runtime/memory.ts MemoryEntry). */
  entry: { id: string; text: string; at: string; source: { session_id: string; message: number; agent_id: string } };
  requested_at: string;
}

export interface SessionMessage {
  text: string;
}
export const SESSION_MESSAGE_SHAPE = '{"text": non-empty string}';
export const SessionMessageSchema: z.ZodType<SessionMessage> = z.object({ text: z.string().refine((t) => t.trim() !== '', 'a session message needs non-empty text') }).strict();

export interface SessionReply {
  /** The turn's output (the agent's final answer). */
  output: JsonValue;
  /** 1 for the first message of the session. */
  message: number;
  /** Earlier messages given to the model / left out to fit state.max_state_tokens. */
  kept: number;
  dropped: number;
  /** Scratchpad entries given to the model / left out. */
  notes_kept: number;
  notes_dropped: number;
  /** Which execution of the session answered (grows with continue-as-new). */
  execution: number;
  /** The run the turn ran in: the session itself for a turn that is one model call, else its child workflow `SESSION/message-N`. */
  workflow_id: string;
  /** Memory: entries read per collection, collections written, writebacks waiting for approval (call ids). */
  memory?: { read: Record<string, number>; written: string[]; pending: string[] };
}

/** Send one user message; returns the reply once the agent's turn has run. Refused (with the reason) for empty text or an ending session. */
export const sessionMessageUpdate = defineUpdate<SessionReply, [SessionMessage]>('sessionMessage');
