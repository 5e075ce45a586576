/**
 * Semantic memory search (issue 12.4; decision 259): a collection whose `backend.embeddings`
 * names an endpoint is searched by cosine similarity of embeddings (the test server's
 * deterministic /v1/embeddings), so an entry sharing no word with the message is found, where the
 * keyword search finds nothing; entry vectors are cached in the store; without the block the
 * collection stays keyword-searched even when LOOM_EMBEDDINGS_* is set.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { CompiledCollection } from '../../src/compiled/types';
import { FileBlobStore } from '../../src/store/file';
import { memoryEntry, searchCollection } from '../../src/activities/memory';
import { keywordSearch, semanticSearch } from '../../src/runtime/memory';
import { startFakeOpenAI, type FakeOpenAIServer } from '../helpers/openai-server';

let server: FakeOpenAIServer;
let store: FileBlobStore;
beforeAll(async () => {
  server = await startFakeOpenAI({ concepts: { refunds: 'refund', reimbursements: 'refund' } });
  store = new FileBlobStore(fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'mem-embed-')));
});
afterAll(() => server.close());

const src = { session_id: 's', message: 1, agent_id: 'a' };
const entries = [
  memoryEntry('Prefers aisle seats on long flights', src, '2026-01-01T00:00:00Z'),
  memoryEntry('Reimbursements are paid to the card on file', src, '2026-01-02T00:00:00Z'),
  memoryEntry('Speaks Portuguese and English', src, '2026-01-03T00:00:00Z'),
];
const coll = (backend: CompiledCollection['backend']): CompiledCollection => ({ collection_id: 'prefs', version: '1', status: 'active', scope: 'project', backend, writeback: { enabled: false } });
const embedInputs = () => server.requests.filter((r) => r.url.startsWith('/v1/embeddings')).flatMap((r) => r.body.input as string[]);

test('a collection naming an embeddings endpoint is searched by cosine: the entry sharing no word is found', async () => {
  const q = 'where do my refunds go?';
  expect(keywordSearch(entries, q)).toEqual([]);
  const semantic = coll({ type: 'memory', embeddings: { base_url: server.baseUrl, model: 'fake-embed' } });
  const found = await searchCollection(semantic, entries, q, store);
  expect(found.map((e) => e.text)).toEqual(['Reimbursements are paid to the card on file']);
  expect(embedInputs()).toEqual([q, ...entries.map((e) => e.text)]);
  // Entry vectors are cached in the store: the next search embeds only its query.
  await searchCollection(semantic, entries, 'refunds to which card', store);
  expect(embedInputs().slice(4)).toEqual(['refunds to which card']);
});

test('without backend.embeddings: keyword search, even with LOOM_EMBEDDINGS_* set; a malformed block is refused by name', async () => {
  process.env.LOOM_EMBEDDINGS_BASE_URL = server.baseUrl;
  process.env.LOOM_EMBEDDINGS_MODEL = 'fake-embed';
  try {
    const n = embedInputs().length;
    expect((await searchCollection(coll({ type: 'memory' }), entries, 'aisle seats please', store)).map((e) => e.text)).toEqual(['Prefers aisle seats on long flights']);
    expect(embedInputs()).toHaveLength(n);
  } finally {
    delete process.env.LOOM_EMBEDDINGS_BASE_URL;
    delete process.env.LOOM_EMBEDDINGS_MODEL;
  }
  await expect(searchCollection(coll({ type: 'memory', embeddings: { model: 'x' } }), entries, 'q', store)).rejects.toThrow(/collection prefs: backend.embeddings must be/);
});

test('semanticSearch: best first, newest first on ties, low similarity left out, limit kept', () => {
  const v = [[1, 0], [1, 0], [0, 1]];
  expect(semanticSearch(entries, v, [1, 0]).map((e) => e.text)).toEqual([entries[1].text, entries[0].text]);
  expect(semanticSearch(entries, v, [1, 0], 1)).toHaveLength(1);
  expect(semanticSearch(entries, v, [0, 0])).toEqual([]);
});

test('with policies.pii_redaction the embeddings endpoint gets the redacted message and entries only', async () => {
  const semantic = coll({ type: 'memory', embeddings: { base_url: server.baseUrl, model: 'fake-embed-pii' } });
  const withPii = [memoryEntry('Send refunds to ada.lovelace@example.com', src, '2026-01-04T00:00:00Z')];
  const n = embedInputs().length;
  await searchCollection(semantic, withPii, 'refunds to bob@example.org please', store, { piiRedaction: true });
  const sent = embedInputs().slice(n).join('\n');
  expect(sent).toContain('[EMAIL]');
  expect(sent).not.toMatch(/ada\.lovelace|bob@example/);
});
