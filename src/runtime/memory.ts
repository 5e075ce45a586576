/**
 * Memory collections (the Agent Definition Specification's "memory"), the pure part: the namespace a collection reads and
 * writes for this actor and session (`{actorId}`/`{sessionId}` substituted), keyword ranking of
 * stored entries against the current message (or cosine ranking of their embeddings), the block injected into the model context, and
 * what a writeback extracts from a run per `writeback.strategy`.
 */
import { cosine } from './vectors';
import { WRITEBACK_STRATEGIES } from '../compiled/types';


export interface MemoryEntry {
  /** Content address of the entry (text + source): a retried writeback stores it once. */
  id: string;
  text: string;
  /** ISO time of the writeback. */
  at: string;
  source: { session_id: string; message: number; agent_id: string };
}

export interface MemoryContext { actorId: string; sessionId: string }

export const MAX_SUMMARY = 600;
/** Entries given to the model per collection. */
export const MEMORY_READ_LIMIT = 5;

/** `backend.namespace` with `{actorId}` and `{sessionId}` filled in (default `{collection}/{actorId}`); any other placeholder is an error naming it. */
export function memoryNamespace(collectionId: string, pattern: string | undefined, ctx: MemoryContext): string {
  const p = pattern ?? `${collectionId}/{actorId}`;
  const unknown = /\{(?!actorId\}|sessionId\})([^}]*)\}/.exec(p);
  if (unknown) throw new Error(`collection ${collectionId}: backend.namespace '${p}' uses {${unknown[1]}}; only {actorId} and {sessionId} are substituted`);
  return p.replace(/\{actorId\}/g, ctx.actorId).replace(/\{sessionId\}/g, ctx.sessionId);
}

function words(s: string): Set<string> {
  return new Set(s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 2));
}

/** Entries sharing words with `query`, most shared words first (newest first on ties); entries sharing none are left out. */
export function keywordSearch(entries: MemoryEntry[], query: string, limit = MEMORY_READ_LIMIT): MemoryEntry[] {
  const q = words(query);
  return entries
    .map((e, i) => ({ e, i, score: [...words(e.text)].filter((w) => q.has(w)).length }))
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || b.i - a.i)
    .slice(0, limit)
    .map((r) => r.e);
}

/**
 * Entries by cosine similarity of their vectors (`vectors[i]` for `entries[i]`) to the query's,
 * best first (newest first on ties), at most `limit`; entries under `minCosine` left out. Used
 * when a collection names an embeddings endpoint (`backend.embeddings`); without one, memory search stays lexical.
 */
export function semanticSearch(entries: MemoryEntry[], vectors: readonly (readonly number[])[], queryVector: readonly number[], limit = MEMORY_READ_LIMIT, minCosine = 0.05): MemoryEntry[] {
  return entries
    .map((e, i) => ({ e, i, score: cosine(vectors[i] ?? [], queryVector) }))
    .filter((r) => r.score >= minCosine)
    .sort((a, b) => b.score - a.score || b.i - a.i)
    .slice(0, limit)
    .map((r) => r.e);
}

/** The model-context block of what was read, per collection (empty when nothing was found). */
export function memoryBlock(found: { collection_id: string; entries: MemoryEntry[] }[]): string {
  const parts = found.filter((f) => f.entries.length).map((f) => `## ${f.collection_id}\n${f.entries.map((e) => `- ${e.text}`).join('\n')}`);
  return parts.length ? `# Memory\n${parts.join('\n')}` : '';
}

/** What a writeback stores from a finished run; unknown strategies are refused by name. */
export function writebackText(strategy: string | undefined, message: string, answer: string): string {
  const s = strategy ?? 'summary';
  if (s === 'output') return answer;
  if (s === 'summary') return answer.length > MAX_SUMMARY ? `${answer.slice(0, MAX_SUMMARY)}…` : answer;
  if (s === 'exchange') return `user: ${message}\nassistant: ${answer}`;
  throw new Error(`writeback.strategy '${s}' is not one of ${WRITEBACK_STRATEGIES.join(', ')}`);
}

/**
 * What a run or a chat session does with memory (the Agent Definition Specification's "memory"): read collections before the
 * model answers, write collections with `writeback.enabled` after it, session-scoped collections
 * to delete at session end. `mode: none` turns all of it off.
 */
export interface MemoryUse { reads: boolean; writes: boolean; sessionScoped: boolean }

interface MemoryDecl {
  mode: string;
  read_collections: { scope: string }[];
  write_collections: { scope: string; writeback: { enabled: boolean } }[];
}

export function memoryUse(m: MemoryDecl | undefined): MemoryUse {
  const on = m !== undefined && m.mode !== 'none';
  return {
    reads: on && m.read_collections.length > 0,
    writes: on && m.write_collections.some((c) => c.writeback.enabled),
    sessionScoped: on && [...m.read_collections, ...m.write_collections].some((c) => c.scope === 'session'),
  };
}

/** The tool name a writeback waiting for approval shows under (`loom inbox`, status pending_approvals). */
export const WRITEBACK_TOOL = 'memory_writeback';

/** A writeback's approval call id: `memory-<message>-<collection>` (a single run is message 1). */
export function writebackCallId(message: number, collectionId: string): string {
  return `memory-${message}-${collectionId}`;
}

/** A writeback waiting for approve/reject, as status and the inbox show it. */
export interface WritebackRequest { call_id: string; collection_id: string; namespace: string; entry: MemoryEntry; requested_at: string }

export function writebackApproval(w: WritebackRequest): { call_id: string; tool: string; arguments: { collection: string; namespace: string; text: string }; reason: string; requested_at: string } {
  return {
    call_id: w.call_id, tool: WRITEBACK_TOOL, arguments: { collection: w.collection_id, namespace: w.namespace, text: w.entry.text },
    reason: `collection ${w.collection_id} has writeback.approval_required: true`, requested_at: w.requested_at,
  };
}

/** Refusal of an approve that corrects or replaces a writeback (approved as extracted, or rejected). */
export const WRITEBACK_AS_EXTRACTED = 'a memory writeback is approved as extracted: --args and --tool do not apply (reject it instead)';

/** The warning of a writeback that was not written: rejected (by whom, why) or unanswered. */
export function writebackNotWritten(callId: string, collectionId: string, outcome: { rejected: true; by?: string; reason?: string } | { timeoutSeconds: number }): string {
  const why = 'rejected' in outcome ? `rejected${outcome.by ? ` by ${outcome.by}` : ''} (${outcome.reason})` : `no answer within ${outcome.timeoutSeconds} s`;
  return `memory writeback ${callId} to ${collectionId} not written: ${why}`;
}
