/**
 * Semantic and hybrid knowledge search (issue 11.2; decisions 255, 256) against the local
 * OpenAI-compatible test server's deterministic /v1/embeddings (test/helpers/openai-server.ts):
 * a semantic query finds the document that shares no word with it, where BM25's top hit is
 * another; hybrid fuses both rankings by reciprocal rank fusion; chunk vectors are cached in the
 * store by content hash, so a corpus is embedded once; no embeddings endpoint is a clear refusal.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { CompiledKnowledge } from '../../src/compiled/types';
import { FileBlobStore } from '../../src/store/file';
import { searchSources } from '../../src/activities/knowledge';
import { embeddingsConfig } from '../../src/activities/embeddings';
import { cosine, fuseRanks, rankChunks, searchModeOf, sourcesWithAgentRetrieval } from '../../src/runtime/knowledge-search';
import { startFakeOpenAI, type FakeOpenAIServer } from '../helpers/openai-server';

let server: FakeOpenAIServer;
let store: FileBlobStore;
beforeAll(async () => {
  server = await startFakeOpenAI({ concepts: { reimbursement: 'refund', refunds: 'refund', paid: 'refund' } });
  store = new FileBlobStore(fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'embed-store-')));
});
afterAll(() => server.close());

const docs = [
  { id: 'refunds', title: 'Refunds', text: 'Refunds are paid to the original card within 30 days.' },
  { id: 'forms', title: 'Forms', text: 'A reimbursement request form costs nothing to submit; fees apply to shipping.' },
  { id: 'passwords', title: 'Passwords', text: 'Reset a password from the Settings page.' },
];
const kb = (mode: 'keyword' | 'semantic' | 'hybrid', id = `kb-${mode}`): CompiledKnowledge => ({
  kb_id: id, version: '1', status: 'active', required: false, citations_required: false,
  retrieval: { search_mode: mode }, backend: { type: 'inline', documents: docs, embeddings: { base_url: server.baseUrl, model: 'fake-embed' } },
});
const embedRequests = () => server.requests.filter((r) => r.url.startsWith('/v1/embeddings'));
const inputs = () => embedRequests().flatMap((r) => r.body.input as string[]);

test('keyword (BM25) ranks the form first; semantic ranks the refunds article, which shares no word with the query', async () => {
  const q = 'I want a reimbursement';
  expect((await searchSources([kb('keyword')], q, { store })).map((h) => h.id)).toEqual(['forms']);
  expect(embedRequests()).toHaveLength(0);
  const hits = await searchSources([kb('semantic')], q, { store });
  expect(hits[0].id).toBe('refunds');
  expect(rankChunks([{ kb_id: 'x', id: 'refunds', text: docs[0].text }], q, 5)).toEqual([]);
  expect(hits.map((h) => h.id)).not.toContain('passwords');
  const reqs = embedRequests();
  expect(reqs.length).toBeGreaterThan(0);
  expect(reqs[0].body.model).toBe('fake-embed');
  expect(inputs()).toEqual(expect.arrayContaining([q, `Refunds\n${docs[0].text}`]));
});

test('chunk vectors are cached in the store: a second search embeds only the new query', async () => {
  const before = inputs().length;
  await searchSources([kb('semantic')], 'money for a purchase', { store });
  expect(inputs().slice(before)).toEqual(['money for a purchase']);
});

test('hybrid: reciprocal rank fusion of BM25 and cosine ranks (in both lists beats one)', async () => {
  const hits = await searchSources([kb('hybrid')], 'I want a reimbursement', { store });
  expect(hits.map((h) => h.id).slice(0, 2)).toEqual(['forms', 'refunds']);
  expect(hits[0].score).toBeCloseTo(1 / 61 + 1 / 62, 10);
  expect(hits[1].score).toBeCloseTo(1 / 61, 10);
});

test('fusion, cosine and the search mode rules', () => {
  expect(cosine([1, 0], [1, 0])).toBe(1);
  expect(cosine([1, 0], [0, 1])).toBe(0);
  expect(cosine([0, 0], [1, 1])).toBe(0);
  const h = (id: string) => ({ kb_id: 'k', id, text: '', score: 0 });
  expect(fuseRanks([[h('a'), h('b')], [h('b'), h('c')]], 5).map((x) => x.id)).toEqual(['b', 'a', 'c']);
  const plain: CompiledKnowledge = { ...kb('keyword'), retrieval: undefined };
  expect(searchModeOf(plain)).toBe('keyword');
  expect(searchModeOf(sourcesWithAgentRetrieval({ refs: [plain], retrieval: { search_mode: 'semantic' } })[0])).toBe('semantic');
  // a source's own setting wins over the agent-level one
  expect(searchModeOf(sourcesWithAgentRetrieval({ refs: [kb('keyword')], retrieval: { search_mode: 'semantic' } })[0])).toBe('keyword');
});

test('no embeddings endpoint: a refusal that says where to name one; a malformed block names the field', async () => {
  const bare: CompiledKnowledge = { ...kb('semantic'), backend: { type: 'inline', documents: docs } };
  const saved = { b: process.env.LOOM_EMBEDDINGS_BASE_URL, m: process.env.LOOM_EMBEDDINGS_MODEL };
  delete process.env.LOOM_EMBEDDINGS_BASE_URL;
  delete process.env.LOOM_EMBEDDINGS_MODEL;
  try {
    await expect(searchSources([bare], 'refund', { store })).rejects.toThrow(/knowledge base kb-semantic: search_mode semantic needs an embeddings endpoint: add backend.embeddings \{ base_url, model \}.*LOOM_EMBEDDINGS_BASE_URL and LOOM_EMBEDDINGS_MODEL/);
  } finally {
    if (saved.b !== undefined) process.env.LOOM_EMBEDDINGS_BASE_URL = saved.b;
    if (saved.m !== undefined) process.env.LOOM_EMBEDDINGS_MODEL = saved.m;
  }
  expect(embeddingsConfig('kb x', { type: 'inline' }, { LOOM_EMBEDDINGS_BASE_URL: 'http://127.0.0.1:1/v1', LOOM_EMBEDDINGS_MODEL: 'm', LOOM_EMBEDDINGS_API_KEY_ENV: 'EMB_KEY' })).toEqual({ base_url: 'http://127.0.0.1:1/v1', model: 'm', api_key_env: 'EMB_KEY' });
  expect(() => embeddingsConfig('kb x', { type: 'inline', embeddings: { model: 'm' } })).toThrow(/kb x: backend.embeddings must be \{ base_url/);
  expect(() => embeddingsConfig('kb x', { type: 'inline', embeddings: { base_url: 'http://h/v1', model: 'm', api_key_env: 'sk-secret' } })).toThrow(/NAME of an environment variable/);
});

test('an api_key_env that is unset fails before any request, naming the variable only', async () => {
  const withKey: CompiledKnowledge = { ...kb('semantic', 'kb-keyed'), backend: { type: 'inline', documents: [{ id: 'new', text: 'a text never embedded before' }], embeddings: { base_url: server.baseUrl, model: 'fake-embed', api_key_env: 'LOOM_TEST_UNSET_EMBED_KEY' } } };
  const n = embedRequests().length;
  await expect(searchSources([withKey], 'never', { store })).rejects.toThrow(/env LOOM_TEST_UNSET_EMBED_KEY \(api_key_env\) is not set/);
  expect(embedRequests()).toHaveLength(n);
  process.env.LOOM_TEST_EMBED_KEY = 'test-embed-key-123';
  try {
    const keyed = { ...withKey, backend: { ...withKey.backend, embeddings: { base_url: server.baseUrl, model: 'fake-embed', api_key_env: 'LOOM_TEST_EMBED_KEY' } } };
    await searchSources([keyed], 'never embedded', { store });
    expect(embedRequests().at(-1)!.headers.authorization).toBe('Bearer test-embed-key-123');
  } finally {
    delete process.env.LOOM_TEST_EMBED_KEY;
  }
});

test('hybrid without an embeddings endpoint ranks by BM25 alone (decision 257); semantic without one is refused', async () => {
  const saved = { b: process.env.LOOM_EMBEDDINGS_BASE_URL, m: process.env.LOOM_EMBEDDINGS_MODEL };
  delete process.env.LOOM_EMBEDDINGS_BASE_URL;
  delete process.env.LOOM_EMBEDDINGS_MODEL;
  try {
    const n = embedRequests().length;
    const hybrid: CompiledKnowledge = { ...kb('hybrid'), backend: { type: 'inline', documents: docs } };
    const keyword: CompiledKnowledge = { ...kb('keyword'), kb_id: 'kb-hybrid' };
    expect(await searchSources([hybrid], 'I want a reimbursement', { store })).toEqual(await searchSources([keyword], 'I want a reimbursement', { store }));
    expect(embedRequests()).toHaveLength(n);
  } finally {
    if (saved.b !== undefined) process.env.LOOM_EMBEDDINGS_BASE_URL = saved.b;
    if (saved.m !== undefined) process.env.LOOM_EMBEDDINGS_MODEL = saved.m;
  }
});

test('endpoint failures: 5xx/429 retryable (Temporal retries the activity), other 4xx not; the key never in the message', async () => {
  const { embedTexts } = await import('../../src/activities/embeddings');
  const cfg = { base_url: server.baseUrl, model: 'fake-embed', api_key_env: 'LOOM_TEST_EMBED_KEY2' };
  process.env.LOOM_TEST_EMBED_KEY2 = 'sk-embedsecret-0123456789';
  try {
    server.failEmbeddings(503);
    const e503 = await embedTexts(cfg, ['fresh text one'], store).then(() => undefined, (e: unknown) => e as { type?: string; nonRetryable?: boolean; message: string });
    expect(e503).toMatchObject({ type: 'EmbeddingsHttp503', nonRetryable: false });
    expect(e503!.message).toMatch(/embeddings request to http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings \(model fake-embed\) failed: HTTP 503/);
    server.failEmbeddings(400);
    const e400 = await embedTexts(cfg, ['fresh text one'], store).then(() => undefined, (e: unknown) => e as { type?: string; nonRetryable?: boolean; message: string });
    expect(e400).toMatchObject({ type: 'EmbeddingsHttp400', nonRetryable: true });
    expect(`${e503!.message} ${e400!.message}`).not.toContain('embedsecret');
    // After the failures nothing was cached: the next call embeds it.
    expect(await embedTexts(cfg, ['fresh text one'], store)).toHaveLength(1);
  } finally {
    delete process.env.LOOM_TEST_EMBED_KEY2;
  }
});

test('a corpus is embedded in batches of EMBED_BATCH, once: a second pass reads every vector from the store', async () => {
  const { embedTexts, EMBED_BATCH } = await import('../../src/activities/embeddings');
  const cfg = { base_url: server.baseUrl, model: 'fake-embed-batch' };
  const texts = Array.from({ length: 2 * EMBED_BATCH + 2 }, (_, i) => `document number ${i} about topic ${i % 7}`);
  const n = embedRequests().length;
  const first = await embedTexts(cfg, texts, store);
  expect(embedRequests().slice(n).map((r) => (r.body.input as string[]).length)).toEqual([EMBED_BATCH, EMBED_BATCH, 2]);
  expect(await embedTexts(cfg, texts, store)).toEqual(first);
  expect(embedRequests()).toHaveLength(n + 3);
});
