/**
 * Keyword search over an agent's knowledge sources with inline documents (the `search_knowledge`
 * builtin tool). Pure: terms of the query scored against each document's title (×2) and text,
 * best first, at most `max_chunks` (the source's `retrieval.max_chunks`, default 5).
 */
import type { CompiledKnowledge } from '../compiler/types';

export interface KnowledgeHit {
  kb_id: string;
  id: string;
  title?: string;
  text: string;
  score: number;
}

const STOP = new Set(['the', 'and', 'for', 'you', 'your', 'are', 'was', 'were', 'how', 'what', 'can', 'with', 'this', 'that', 'from', 'have', 'has', 'not', 'but', 'our', 'its', 'his', 'her', 'who', 'why', 'when']);

export function terms(text: string): string[] {
  return [...new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((t) => t.length > 2 && !STOP.has(t)))];
}

interface InlineDoc {
  id?: unknown;
  title?: unknown;
  text?: unknown;
}

export function searchKnowledge(sources: CompiledKnowledge[], query: string, limit?: number): KnowledgeHit[] {
  const q = terms(query);
  if (!q.length) return [];
  const hits: KnowledgeHit[] = [];
  let max = limit ?? 0;
  for (const kb of sources) {
    if (kb.status === 'disabled' || kb.backend.type !== 'inline') continue;
    if (limit === undefined) max = Math.max(max, kb.retrieval?.max_chunks ?? 5);
    const docs = Array.isArray(kb.backend.documents) ? (kb.backend.documents as InlineDoc[]) : [];
    docs.forEach((d, i) => {
      const title = typeof d.title === 'string' ? d.title : undefined;
      const text = typeof d.text === 'string' ? d.text : '';
      const inTitle = new Set(terms(title ?? ''));
      const inText = new Set(terms(text));
      let score = 0;
      for (const t of q) score += (inTitle.has(t) ? 2 : 0) + (inText.has(t) ? 1 : 0);
      if (score > 0) hits.push({ kb_id: kb.kb_id, id: typeof d.id === 'string' ? d.id : `${kb.kb_id}#${i}`, ...(title ? { title } : {}), text, score });
    });
  }
  return hits.sort((a, b) => b.score - a.score || a.kb_id.localeCompare(b.kb_id) || a.id.localeCompare(b.id)).slice(0, Math.max(1, max || 5));
}
