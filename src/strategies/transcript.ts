/**
 * The shared transcript's window, pure (used by the workflow's in-memory mode and by the store
 * activity, src/activities/transcript.ts): entries capped in length, the most recent ones within
 * a count and a character budget, and the text a member reads (task, then the conversation).
 */
import type { JsonObject, JsonValue } from '../compiled/types';
import type { BlobRef } from '../shared/contract';
import type { RebuildRequest } from './compaction';

/** Entries kept, characters per entry, characters in all. */
export const TRANSCRIPT_LIMITS = { entries: 24, entry_chars: 4000, total_chars: 32000 };

export interface TranscriptEntry { agent: string; text: string; kind: 'agent' | 'context' }

/** One entry as the transcript keeps it (long texts capped with a note of what was cut). */
export function capEntry(e: TranscriptEntry): TranscriptEntry {
  const n = TRANSCRIPT_LIMITS.entry_chars;
  return e.text.length > n ? { ...e, text: `${e.text.slice(0, n)}\n[… ${e.text.length - n} more characters]` } : e;
}

/**
 * The window: the longest run of most recent (capped) entries within the limits, at least one.
 * `newestFirst` lists entries from the latest back. Dropping the oldest entry after each append
 * (the in-workflow mode) keeps exactly this window, since a shorter suffix never breaks a limit.
 */
export function windowOf(newestFirst: readonly TranscriptEntry[]): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  let total = 0;
  for (const e of newestFirst) {
    if (out.length && (out.length + 1 > TRANSCRIPT_LIMITS.entries || total + e.text.length > TRANSCRIPT_LIMITS.total_chars)) break;
    out.push(e);
    total += e.text.length;
  }
  return out.reverse();
}

/**
 * A member's input: the task, then the context rebuilt after a compaction (compaction.ts), then the
 * conversation so far (the latest orchestrator message last).
 */
export function conversationText(taskText: string, window: readonly TranscriptEntry[], omitted: number, rebuilt?: string): string {
  const parts = [`# Task\n${taskText}`];
  if (rebuilt) parts.push(rebuilt);
  if (window.length) {
    parts.push(`# Conversation so far${omitted ? ` (${omitted} earlier entries omitted)` : ''}\n\n${window.map((e) => `[${e.kind === 'context' ? 'orchestrator' : e.agent}]\n${e.text}`).join('\n\n')}`);
  }
  return parts.join('\n\n');
}

/** Where the stored chain ends and how many entries it holds. */
export interface StoredTranscript { head: BlobRef | null; size: number }
export interface TranscriptState {
  /** In-workflow mode: the window. Store mode: the entries added since the last member input was built. */
  window: TranscriptEntry[];
  omitted: number;
  /** Store mode only. */
  stored?: StoredTranscript;
}

/** What the transcript activity needs to write the first message of one member run. */
export interface MemberInputSpec {
  agent_id: string;
  context?: JsonObject;
  extra?: string;
  /** The agent has a Context spec (context-spec.ts): it reads its sources, its own turns (`own`) and the orchestrator's latest messages, not the shared window. */
  context_spec?: { agent: string; own?: { n?: number }; sources?: string };
}
export interface MemberInputsRequest {
  bundle: BlobRef;
  task: JsonValue;
  transcript: StoredTranscript;
  /** Entries to store after `transcript.head`, oldest first. */
  append: TranscriptEntry[];
  members: MemberInputSpec[];
  /** fuseraft's lossless compaction (state machine runs with a shared workspace): once the window omits entries, members read the context rebuilt from the evidence log. */
  rebuild?: RebuildRequest;
}
export interface MemberInputsResult { transcript: StoredTranscript; inputs: BlobRef[] }
