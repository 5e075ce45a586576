/**
 * Knowledge backends that live outside the bundle (the Agent Definition Specification's knowledge), read in
 * activities so the workflow sees only results:
 *  - `files`: `backend.path`, a folder of documents (.md, .markdown, .txt; sub-folders too), each
 *    split into paragraph chunks (src/runtime/knowledge-search.ts). A relative path resolves
 *    against LOOM_KNOWLEDGE_DIR, else the worker's working directory (the bundle stays machine independent). A document's
 *    first `# ` heading is its title; its id is its path inside the folder.
 *  - `http`: `backend.url` answers `GET <url>?q=<query>&limit=<n>` with a JSON list of
 *    `{id, title?, text}` (or `{documents: [...]}`); its hits are ranked with the rest.
 * Files are re-read when they change (mtime); folders are listed on every search.
 *
 * `searchSources` ranks per each source's search_mode: `keyword` BM25 only
 * (MiniSearch), `semantic` cosine similarity of embeddings (src/activities/embeddings.ts, cached
 * in the shared store by content hash), `hybrid` both fused by reciprocal rank fusion.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { CompiledKnowledge } from '../compiled/types';
import type { SecretRef } from '../compiled/types';
import { chunkDocument, chunkLimit, fuseRanks, inlineChunks, rankByVector, rankChunks, searchKnowledge, searchModeOf, type KnowledgeChunk, type KnowledgeHit } from '../runtime/knowledge-search';
import type { BlobStore } from '../store/types';
import { Context } from '@temporalio/activity';
import { embeddingsConfig, embedTexts, requireEmbeddings } from './embeddings';
import { readSecret } from '../platform/secrets';

const DOC_EXT = new Set(['.md', '.markdown', '.txt']);
const MAX_FILES = 2000;
const cache = new Map<string, { mtimeMs: number; chunks: KnowledgeChunk[] }>();

/** The folder a `files` backend reads. */
export function filesRoot(kb: CompiledKnowledge): string {
  const p = typeof kb.backend.path === 'string' ? kb.backend.path : '';
  if (!p) throw new Error(`knowledge base ${kb.kb_id}: backend type files needs \`path\` (a folder of .md/.txt documents)`);
  return path.isAbsolute(p) ? p : path.resolve(process.env.LOOM_KNOWLEDGE_DIR ?? process.cwd(), p);
}

/** Every chunk of a `files` backend's documents. */
export async function fileChunks(kb: CompiledKnowledge): Promise<KnowledgeChunk[]> {
  const root = filesRoot(kb);
  const stat = await fs.promises.stat(root).catch(() => undefined);
  if (!stat?.isDirectory()) throw new Error(`knowledge base ${kb.kb_id}: ${root} is not a folder (backend.path; relative paths resolve against LOOM_KNOWLEDGE_DIR or the worker's working directory)`);
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of (await fs.promises.readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      if (files.length >= MAX_FILES || e.name.startsWith('.')) continue;
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) await walk(abs);
      else if (e.isFile() && DOC_EXT.has(path.extname(e.name).toLowerCase())) files.push(abs);
    }
  };
  await walk(root);
  const out: KnowledgeChunk[] = [];
  for (const abs of files) {
    const { mtimeMs } = await fs.promises.stat(abs);
    const key = `${kb.kb_id}\0${abs}`;
    let hit = cache.get(key);
    if (!hit || hit.mtimeMs !== mtimeMs) {
      const text = await fs.promises.readFile(abs, 'utf8');
      const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim();
      hit = { mtimeMs, chunks: chunkDocument(kb.kb_id, path.relative(root, abs).split(path.sep).join('/'), text, title) };
      cache.set(key, hit);
    }
    out.push(...hit.chunks);
  }
  return out;
}

/** The documents an `http` backend returns for `query`. */
export async function httpChunks(kb: CompiledKnowledge, query: string, limit: number, secrets?: Readonly<Record<string, SecretRef>>): Promise<KnowledgeChunk[]> {
  const url = typeof kb.backend.url === 'string' ? kb.backend.url : '';
  if (!/^https?:\/\//.test(url)) throw new Error(`knowledge base ${kb.kb_id}: backend type http needs \`url\` (http:// or https://)`);
  const u = new URL(url);
  u.searchParams.set('q', query);
  u.searchParams.set('limit', String(limit));
  const headers: Record<string, string> = { accept: 'application/json' };
  // backend.credentials_ref: a bearer token read from the secret store here, never carried in the bundle.
  if (typeof kb.backend.credentials_ref === 'string') headers.authorization = `Bearer ${readSecret(kb.backend.credentials_ref, secrets)}`;
  const res = await fetch(u, { headers, signal: AbortSignal.timeout(15_000) });
  if (!res.ok) throw new Error(`knowledge base ${kb.kb_id}: ${u.origin}${u.pathname} answered HTTP ${res.status}`);
  const body = (await res.json()) as unknown;
  const list = Array.isArray(body) ? body : Array.isArray((body as { documents?: unknown })?.documents) ? (body as { documents: unknown[] }).documents : [];
  return list.flatMap((d, i) => {
    const o = (d ?? {}) as { id?: unknown; title?: unknown; text?: unknown };
    if (typeof o.text !== 'string') return [];
    return chunkDocument(kb.kb_id, typeof o.id === 'string' ? o.id : `${kb.kb_id}#${i}`, o.text, typeof o.title === 'string' ? o.title : undefined);
  });
}

/** Chunks of every active non-inline source for `query` (inline documents come with the bundle). */
export async function backendChunks(sources: readonly CompiledKnowledge[], query: string, limit: number, secrets?: Readonly<Record<string, SecretRef>>): Promise<KnowledgeChunk[]> {
  const out: KnowledgeChunk[] = [];
  for (const kb of sources) {
    if (kb.status === 'disabled') continue;
    if (kb.backend.type === 'files') out.push(...(await fileChunks(kb)));
    else if (kb.backend.type === 'http') out.push(...(await httpChunks(kb, query, limit, secrets)));
  }
  return out;
}

export interface SearchOptions {
  limit?: number;
  secrets?: Readonly<Record<string, SecretRef>>;
  /** Where chunk embeddings are cached (default: the process's shared store). */
  store?: BlobStore;
  signal?: AbortSignal;
}

/**
 * Search the active sources for `query`. All `keyword`: BM25 scores as before. Otherwise the
 * lists are fused by reciprocal rank fusion (src/runtime/knowledge-search.ts fuseRanks): one BM25
 * list over the chunks of keyword and hybrid sources, and one cosine list per embeddings endpoint
 * over the chunks of semantic and hybrid sources (so a hybrid chunk scores in both).
 */
export async function searchSources(sources: readonly CompiledKnowledge[], query: string, opts: SearchOptions = {}): Promise<KnowledgeHit[]> {
  const active = sources.filter((kb) => kb.status !== 'disabled');
  const limit = chunkLimit(active, opts.limit);
  const extra = await backendChunks(active, query, limit, opts.secrets);
  const modes = new Map(active.map((kb) => [kb.kb_id, searchModeOf(kb)]));
  // hybrid without an embeddings endpoint ranks by BM25 alone (it has a lexical half already), said in the worker log; semantic without one fails.
  for (const kb of active) {
    if (modes.get(kb.kb_id) !== 'hybrid' || embeddingsConfig(`knowledge base ${kb.kb_id}`, kb.backend)) continue;
    modes.set(kb.kb_id, 'keyword');
    activityLog()?.warn(`knowledge base ${kb.kb_id}: search_mode hybrid without an embeddings endpoint (backend.embeddings or LOOM_EMBEDDINGS_BASE_URL/LOOM_EMBEDDINGS_MODEL): ranked by BM25 only`);
  }
  if ([...modes.values()].every((m) => m === 'keyword')) return searchKnowledge([...active], query, opts.limit, extra);
  const ids = new Set(active.map((kb) => kb.kb_id));
  const all = [...active.flatMap(inlineChunks), ...extra.filter((c) => ids.has(c.kb_id))];
  const lists: KnowledgeHit[][] = [];
  const lexical = all.filter((c) => modes.get(c.kb_id) !== 'semantic');
  if (lexical.length) lists.push(rankChunks(lexical, query, lexical.length));
  // One vector list per embeddings endpoint+model (vectors of different models are not comparable).
  const groups = new Map<string, { cfg: ReturnType<typeof requireEmbeddings>; chunks: KnowledgeChunk[] }>();
  for (const kb of active) {
    const mode = modes.get(kb.kb_id);
    if (mode === 'keyword') continue;
    const cfg = requireEmbeddings(`knowledge base ${kb.kb_id}`, kb.backend, `search_mode ${mode}`);
    const key = `${cfg.base_url}\0${cfg.model}`;
    const g = groups.get(key) ?? { cfg, chunks: [] };
    g.chunks.push(...all.filter((c) => c.kb_id === kb.kb_id && c.text.trim()));
    groups.set(key, g);
  }
  for (const { cfg, chunks } of groups.values()) {
    if (!chunks.length) continue;
    const vectors = await embedTexts(cfg, [query, ...chunks.map((c) => (c.title ? `${c.title}\n${c.text}` : c.text))], opts.store, opts.signal);
    lists.push(rankByVector(chunks, vectors.slice(1), vectors[0], chunks.length));
  }
  return fuseRanks(lists, limit);
}

function activityLog(): Context['log'] | undefined {
  try {
    return Context.current().log;
  } catch {
    return undefined; // outside an activity (unit tests, the CLI)
  }
}
