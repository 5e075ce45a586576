/**
 * Knowledge search (the `search_knowledge` builtin tool, and required sources injected into the
 * model context): documents split into chunks, ranked with BM25 by MiniSearch (its BM25+ variant,
 * title field boosted ×2, no fuzzy or prefix matching), best first, at most
 * `max_chunks` (the source's `retrieval.max_chunks`, default 5). Pure: callers hand it the
 * documents (inline ones come with the bundle; the `files` and `http` backends are read by
 * src/activities/knowledge.ts).
 */
import MiniSearch from 'minisearch';
import type { CompiledKnowledge } from '../compiled/types';
import { cosine } from './vectors';

export interface KnowledgeHit {
  kb_id: string;
  id: string;
  title?: string;
  text: string;
  score: number;
}

/** One searchable unit: a document, or a chunk of one (id `doc#n`). */
export interface KnowledgeChunk {
  kb_id: string;
  id: string;
  title?: string;
  text: string;
}

const STOP = new Set(['the', 'and', 'for', 'you', 'your', 'are', 'was', 'were', 'how', 'what', 'can', 'with', 'this', 'that', 'from', 'have', 'has', 'not', 'but', 'our', 'its', 'his', 'her', 'who', 'why', 'when']);

/** Lower-cased words of 3+ letters or digits, stop words left out (index and query alike). */
export function terms(text: string): string[] {
  return [...new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((t) => t.length > 2 && !STOP.has(t)))];
}

interface InlineDoc {
  id?: unknown;
  title?: unknown;
  text?: unknown;
}

/** Characters per chunk: a chunk is whole paragraphs up to this size (a longer paragraph is cut). */
export const CHUNK_CHARS = 1200;

/** A document split into chunks of whole paragraphs (ids `id`, or `id#1`, `id#2`… when split). */
export function chunkDocument(kb_id: string, id: string, text: string, title?: string, size = CHUNK_CHARS): KnowledgeChunk[] {
  const paras = text.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);
  const parts: string[] = [];
  let cur = '';
  for (const p of paras) {
    for (let i = 0; i < p.length; i += size) {
      const piece = p.slice(i, i + size);
      if (cur && cur.length + piece.length + 2 > size) { parts.push(cur); cur = ''; }
      cur = cur ? `${cur}\n\n${piece}` : piece;
    }
  }
  if (cur) parts.push(cur);
  if (parts.length <= 1) return [{ kb_id, id, ...(title ? { title } : {}), text: parts[0] ?? '' }];
  return parts.map((t, n) => ({ kb_id, id: `${id}#${n + 1}`, ...(title ? { title } : {}), text: t }));
}

/** The chunks of a source's inline documents (other backends: none here, see src/activities/knowledge.ts). */
export function inlineChunks(kb: CompiledKnowledge): KnowledgeChunk[] {
  if (kb.backend.type !== 'inline') return [];
  const docs = Array.isArray(kb.backend.documents) ? (kb.backend.documents as InlineDoc[]) : [];
  return docs.flatMap((d, i) => chunkDocument(kb.kb_id, typeof d.id === 'string' ? d.id : `${kb.kb_id}#${i}`, typeof d.text === 'string' ? d.text : '', typeof d.title === 'string' ? d.title : undefined));
}

/** BM25 ranking of `chunks` for `query` (one index over all of them), best first, at most `limit`. */
export function rankChunks(chunks: readonly KnowledgeChunk[], query: string, limit: number): KnowledgeHit[] {
  const q = terms(query);
  if (!q.length || !chunks.length) return [];
  const index = new MiniSearch<KnowledgeChunk & { key: number }>({
    idField: 'key',
    fields: ['title', 'text'],
    tokenize: (s) => terms(s),
    processTerm: (t) => t,
  });
  index.addAll(chunks.map((c, key) => ({ ...c, key })));
  return index
    .search(q.join(' '), { boost: { title: 2 }, combineWith: 'OR', prefix: false, fuzzy: false })
    .map((r) => ({ c: chunks[r.id as number], score: r.score }))
    .sort((a, b) => b.score - a.score || a.c.kb_id.localeCompare(b.c.kb_id) || a.c.id.localeCompare(b.c.id))
    .slice(0, Math.max(1, limit))
    .map(({ c, score }) => ({ kb_id: c.kb_id, id: c.id, ...(c.title ? { title: c.title } : {}), text: c.text, score }));
}

/** The result limit: `limit`, else the largest `retrieval.max_chunks` of the sources (default 5). */
export function chunkLimit(sources: readonly CompiledKnowledge[], limit?: number): number {
  return limit ?? (sources.length ? Math.max(...sources.map((kb) => kb.retrieval?.max_chunks ?? 5)) : 5);
}

/** Search the active sources' inline documents (plus `extra` chunks read from other backends). */
export function searchKnowledge(sources: CompiledKnowledge[], query: string, limit?: number, extra: readonly KnowledgeChunk[] = []): KnowledgeHit[] {
  const active = sources.filter((kb) => kb.status !== 'disabled');
  const ids = new Set(active.map((kb) => kb.kb_id));
  const chunks = [...active.flatMap(inlineChunks), ...extra.filter((c) => ids.has(c.kb_id))];
  return rankChunks(chunks, query, chunkLimit(active, limit));
}

/** The size bound of the required-knowledge block in the model context (characters). */
export const REQUIRED_KNOWLEDGE_CHARS = 8000;

/**
 * The block `required: true` sources add to the model's instructions on every turn (the Agent Definition Specification:
 * "the KB is injected directly into the model context on every run"): every chunk with its
 * citation id `[kb_id/id]`, and when they exceed `maxChars`, the chunks BM25 ranks best for the
 * run's input that fit (the rest named as left out). Empty when there are no chunks.
 */
export function requiredKnowledgeBlock(chunks: readonly KnowledgeChunk[], query: string, maxChars = REQUIRED_KNOWLEDGE_CHARS): string {
  if (!chunks.length) return '';
  const render = (c: KnowledgeChunk) => `[${c.kb_id}/${c.id}]${c.title ? ` ${c.title}` : ''}\n${c.text}`;
  const total = chunks.reduce((n, c) => n + render(c).length + 2, 0);
  let chosen: readonly KnowledgeChunk[] = chunks;
  if (total > maxChars) {
    const ranked = rankChunks(chunks, query, chunks.length).map((h) => chunks.find((c) => c.kb_id === h.kb_id && c.id === h.id)!);
    const rest = chunks.filter((c) => !ranked.includes(c));
    const picked: KnowledgeChunk[] = [];
    let used = 0;
    for (const c of [...ranked, ...rest]) {
      const n = render(c).length + 2;
      if (used + n > maxChars) continue;
      picked.push(c);
      used += n;
    }
    chosen = chunks.filter((c) => picked.includes(c));
  }
  const left = chunks.length - chosen.length;
  return [
    '# Required knowledge',
    'Ground your answer in these sources and cite them by their id in square brackets, e.g. [' + `${chosen[0]?.kb_id ?? chunks[0].kb_id}/${chosen[0]?.id ?? chunks[0].id}` + '].',
    ...chosen.map(render),
    ...(left ? [`(${left} more chunk(s) of the required sources left out to keep this block under ${maxChars} characters; search_knowledge finds them.)`] : []),
  ].join('\n\n');
}

/** Citations are required: `interface.output.provenance.citations_required`, or an active source's `citations_required`. */
export function citationsRequired(agent: { interface: { output: { provenance?: { citations_required?: boolean } } }; knowledge: { refs: CompiledKnowledge[] } }): boolean {
  return agent.interface.output.provenance?.citations_required === true || agent.knowledge.refs.some((k) => k.citations_required && k.status !== 'disabled');
}

/**
 * Why a final answer does not count as cited, or undefined when it does: it must contain a
 * citation `[kb_id/…]` of one of the agent's sources, or name the id of one of their documents
 * quoted or in brackets (e.g. a `suggested_articles` item, `[refunds]`). `chunks`: the documents known (ids `doc` or `doc#n`).
 */
export function citationProblem(answer: string, sources: readonly CompiledKnowledge[], chunks: readonly KnowledgeChunk[]): string | undefined {
  const active = sources.filter((k) => k.status !== 'disabled');
  if (active.some((k) => answer.includes(`[${k.kb_id}/`))) return undefined;
  // A bare id counts only quoted (a JSON string such as a suggested_articles item) or in brackets:
  // ids are often plain words ("refunds") that an uncited answer contains anyway.
  const ids = new Set(chunks.map((c) => c.id.replace(/#\d+$/, '')));
  for (const id of ids) if (answer.includes(`"${id}"`) || answer.includes(`[${id}]`)) return undefined;
  const example = chunks[0] ? `[${chunks[0].kb_id}/${chunks[0].id.replace(/#\d+$/, '')}]` : `[${active[0]?.kb_id ?? 'kb'}/document-id]`;
  return `the answer cites none of the agent's knowledge sources (${active.map((k) => k.kb_id).join(', ') || 'none declared'}), and citations are required: cite each source the answer rests on by its id in square brackets, e.g. ${example}`;
}

// ---------------------------------------------------------------------------------------------
// Semantic and hybrid search (the embeddings endpoint comes from the registry definition, the mode from the
// source's `retrieval.search_mode`): the vectors come from src/activities/embeddings.ts.
// ---------------------------------------------------------------------------------------------

export type SearchMode = 'keyword' | 'semantic' | 'hybrid';

/**
 * A source's search mode: its compiled `retrieval.search_mode` (the KB file's, tightened by the
 * agent's per-ref `retrieval`), else the agent-level `knowledge.retrieval.search_mode` (the Agent Definition Specification:
 * "applies to all refs unless overridden per ref"), else `keyword`.
 */
export function searchModeOf(kb: CompiledKnowledge, agentRetrieval?: { search_mode?: unknown } | null): SearchMode {
  const m = kb.retrieval?.search_mode ?? agentRetrieval?.search_mode;
  return m === 'semantic' || m === 'hybrid' ? m : 'keyword';
}

export { cosine };

/** Reciprocal rank fusion's constant (Cormack et al. 2009): a hit at rank r (1-based) adds 1 / (RRF_K + r). */
export const RRF_K = 60;
/** Below this cosine a chunk is not a semantic hit (vectors of unrelated text are near 0). */
export const MIN_COSINE = 0.05;

/** Chunks by cosine similarity of their vectors to `queryVector`, best first (ties by kb/id), at most `limit`; chunks under MIN_COSINE left out. */
export function rankByVector(chunks: readonly KnowledgeChunk[], vectors: readonly (readonly number[])[], queryVector: readonly number[], limit: number): KnowledgeHit[] {
  return chunks
    .map((c, i) => ({ c, score: cosine(vectors[i] ?? [], queryVector) }))
    .filter((r) => r.score >= MIN_COSINE)
    .sort((a, b) => b.score - a.score || a.c.kb_id.localeCompare(b.c.kb_id) || a.c.id.localeCompare(b.c.id))
    .slice(0, Math.max(1, limit))
    .map(({ c, score }) => ({ kb_id: c.kb_id, id: c.id, ...(c.title ? { title: c.title } : {}), text: c.text, score }));
}

/**
 * Reciprocal rank fusion of ranked lists (each best first): a chunk's score is the sum over the
 * lists it is in of 1 / (RRF_K + rank). Best first (ties by kb/id), at most `limit`.
 */
export function fuseRanks(lists: readonly (readonly KnowledgeHit[])[], limit: number): KnowledgeHit[] {
  const acc = new Map<string, { hit: KnowledgeHit; score: number }>();
  for (const list of lists) {
    list.forEach((h, r) => {
      const k = `${h.kb_id}\0${h.id}`;
      const cur = acc.get(k) ?? { hit: h, score: 0 };
      cur.score += 1 / (RRF_K + r + 1);
      acc.set(k, cur);
    });
  }
  return [...acc.values()]
    .sort((a, b) => b.score - a.score || a.hit.kb_id.localeCompare(b.hit.kb_id) || a.hit.id.localeCompare(b.hit.id))
    .slice(0, Math.max(1, limit))
    .map(({ hit, score }) => ({ ...hit, score }));
}

/**
 * The agent's sources as the search sees them: each with the agent-level `knowledge.retrieval`
 * under its own compiled `retrieval` (the per-source settings win), so a tool call's context
 * carries the agent's search_mode with the refs.
 */
export function sourcesWithAgentRetrieval(knowledge: { refs: CompiledKnowledge[]; retrieval?: object } | undefined): CompiledKnowledge[] {
  const refs = knowledge?.refs ?? [];
  const agentLevel = knowledge?.retrieval as CompiledKnowledge['retrieval'] | undefined;
  if (!agentLevel || !Object.keys(agentLevel).length) return refs;
  return refs.map((kb) => ({ ...kb, retrieval: { ...agentLevel, ...(kb.retrieval ?? {}) } }));
}

// ---------------------------------------------------------------------------------------------
// grounding_required: a deterministic check of the final answer against what was retrieved
// ---------------------------------------------------------------------------------------------

/** Grounding is required: the agent-level `knowledge.retrieval.grounding_required`, or an active source's `retrieval.grounding_required`. */
export function groundingRequired(agent: { knowledge: { refs: CompiledKnowledge[]; retrieval?: object } }): boolean {
  const top = agent.knowledge.retrieval as { grounding_required?: unknown } | undefined;
  return top?.grounding_required === true || agent.knowledge.refs.some((k) => k.status !== 'disabled' && k.retrieval?.grounding_required === true);
}

/** Share of the answer's content words that must occur in the chunks it cites. */
export const GROUNDING_MIN_OVERLAP = 0.5;

/** The chunks a tool result holds (a search_knowledge result: a JSON list of `{kb_id, id, text}`), none for any other result. */
export function chunksInToolResult(content: string): KnowledgeChunk[] {
  let v: unknown;
  try {
    v = JSON.parse(content);
  } catch {
    return [];
  }
  if (!Array.isArray(v)) return [];
  return v.flatMap((o) => {
    const c = (o ?? {}) as Record<string, unknown>;
    return typeof c.kb_id === 'string' && typeof c.id === 'string' && typeof c.text === 'string' ? [{ kb_id: c.kb_id, id: c.id, text: c.text, ...(typeof c.title === 'string' ? { title: c.title } : {}) }] : [];
  });
}

/** The prose of an answer: a JSON answer's string values (keys, other values and document ids in `ids` are not claims), else the text. */
function answerProse(answer: string, ids: ReadonlySet<string>): string {
  try {
    const v = JSON.parse(answer) as unknown;
    if (v && typeof v === 'object') {
      const out: string[] = [];
      const walk = (x: unknown): void => {
        if (typeof x === 'string') {
          if (!ids.has(x)) out.push(x); // a cited document id (e.g. a suggested_articles item) is not a claim
        } else if (Array.isArray(x)) x.forEach(walk);
        else if (x && typeof x === 'object') Object.values(x).forEach(walk);
      };
      walk(v);
      return out.join('\n');
    }
  } catch {
    // not JSON: the text itself
  }
  return answer;
}

/**
 * Why a final answer is not grounded, or undefined when it is. `retrieved`: the
 * chunks this run actually gave the model (search results in the conversation, the required
 * knowledge block). Grounded means: (1) something was retrieved; (2) the answer cites at least
 * one retrieved chunk (`[kb_id/id]`, `[kb_id/doc]` for any of its chunks, or a retrieved document
 * id quoted or in brackets); (3) every `[kb_id/…]` citation of the agent's sources names a
 * retrieved chunk; (4) at least GROUNDING_MIN_OVERLAP of the answer's content words (terms(),
 * citations left out) occur in the cited chunks' titles and texts.
 */
export function groundingProblem(answer: string, sources: readonly CompiledKnowledge[], retrieved: readonly KnowledgeChunk[]): string | undefined {
  const active = sources.filter((k) => k.status !== 'disabled');
  if (!retrieved.length) return `grounding is required but no knowledge was retrieved in this run: search the agent's knowledge sources (${active.map((k) => k.kb_id).join(', ') || 'none declared'}) with search_knowledge and answer only from what they return, citing each chunk used as [kb_id/id]`;
  const doc = (id: string) => id.replace(/#\d+$/, '');
  const kbIds = new Set(active.map((k) => k.kb_id));
  const cited = new Set<KnowledgeChunk>();
  const invented: string[] = [];
  for (const m of answer.matchAll(/\[([^\]/\s]+)\/([^\]\s]+)\]/g)) {
    if (!kbIds.has(m[1])) continue;
    const hits = retrieved.filter((c) => c.kb_id === m[1] && (c.id === m[2] || doc(c.id) === m[2]));
    if (hits.length) hits.forEach((c) => cited.add(c));
    else invented.push(m[0]);
  }
  for (const c of retrieved) if (answer.includes(`"${doc(c.id)}"`) || answer.includes(`[${doc(c.id)}]`) || answer.includes(`[${c.id}]`)) cited.add(c);
  if (invented.length) return `the answer cites ${[...new Set(invented)].join(', ')}, which this run did not retrieve; grounding is required: cite only chunks that search_knowledge (or the required knowledge) returned`;
  if (!cited.size) return `the answer cites none of the chunks retrieved in this run and grounding is required: cite the chunks the answer rests on as [kb_id/id], e.g. [${retrieved[0].kb_id}/${retrieved[0].id}]`;
  const prose = answerProse(answer, new Set(retrieved.map((c) => doc(c.id)))).replace(/\[[^\]]*\]/g, ' ');
  const words = terms(prose);
  if (!words.length) return undefined;
  const support = new Set([...cited].flatMap((c) => terms(`${c.title ?? ''} ${c.text}`)));
  const supported = words.filter((w) => support.has(w)).length;
  if (supported / words.length >= GROUNDING_MIN_OVERLAP) return undefined;
  const missing = words.filter((w) => !support.has(w)).slice(0, 8);
  return `the answer is not supported by the chunks it cites (${[...cited].map((c) => `${c.kb_id}/${c.id}`).join(', ')}): ${supported} of its ${words.length} content words occur in them, ${Math.round(GROUNDING_MIN_OVERLAP * 100)}% are needed (unsupported: ${missing.join(', ')}); grounding is required: state only what the retrieved chunks say`;
}
