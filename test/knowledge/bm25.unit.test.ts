/**
 * BM25 ranking of knowledge chunks (src/runtime/knowledge-search.ts, MiniSearch): on a small
 * corpus whose order follows from BM25's parts — both terms beat one; a rarer term (higher IDF)
 * beats a common one; a short document beats a long one for the same term (length
 * normalisation) — where counting overlapping words would tie three of the four.
 */
import { chunkDocument, rankChunks, searchKnowledge, type KnowledgeChunk } from '../../src/runtime/knowledge-search';

const filler = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
const corpus: KnowledgeChunk[] = [
  { kb_id: 'kb', id: 'long-refund', text: `refund ${filler}` },
  { kb_id: 'kb', id: 'both', text: 'refund window thirty days' },
  { kb_id: 'kb', id: 'short-refund', text: 'refund policy applies' },
  { kb_id: 'kb', id: 'window-only', text: 'window size setting' },
];

test('BM25 order: both terms, then the rarer term, then the common term short before long', () => {
  expect(rankChunks(corpus, 'refund window', 10).map((h) => h.id)).toEqual(['both', 'window-only', 'short-refund', 'long-refund']);
});

test('scores fall strictly along that order; limit keeps the best; no match, no hit', () => {
  const hits = rankChunks(corpus, 'refund window', 10);
  for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThan(hits[i].score);
  expect(rankChunks(corpus, 'refund window', 2).map((h) => h.id)).toEqual(['both', 'window-only']);
  expect(rankChunks(corpus, 'password', 10)).toEqual([]);
});

test('a title match counts double', () => {
  const docs: KnowledgeChunk[] = [
    { kb_id: 'kb', id: 'in-text', title: 'Billing', text: 'how to reset a password' },
    { kb_id: 'kb', id: 'in-title', title: 'Password', text: 'how to reset a login' },
  ];
  expect(rankChunks(docs, 'password', 5).map((h) => h.id)).toEqual(['in-title', 'in-text']);
});

test('documents are chunked by paragraphs; every chunk is searchable with its own id', () => {
  const text = ['Refunds take five days.', 'x'.repeat(50), 'Passwords are reset in Settings.'].join('\n\n');
  const chunks = chunkDocument('kb', 'guide', text, 'Guide', 40);
  expect(chunks.map((c) => c.id)).toEqual(['guide#1', 'guide#2', 'guide#3', 'guide#4']);
  expect(rankChunks(chunks, 'passwords settings', 1).map((h) => h.id)).toEqual(['guide#4']);
  expect(chunkDocument('kb', 'small', 'one paragraph')).toEqual([{ kb_id: 'kb', id: 'small', text: 'one paragraph' }]);
});

test('disabled sources are not searched; chunks read from other backends join the index', () => {
  const kb = { kb_id: 'files-kb', version: '1', status: 'active' as const, required: false, citations_required: false, backend: { type: 'files', path: 'docs' } };
  const extra = [{ kb_id: 'files-kb', id: 'a.md', text: 'refund window' }, { kb_id: 'unknown', id: 'b.md', text: 'refund window' }];
  expect(searchKnowledge([kb], 'refund', undefined, extra).map((h) => `${h.kb_id}/${h.id}`)).toEqual(['files-kb/a.md']);
  expect(searchKnowledge([{ ...kb, status: 'disabled' as const }], 'refund', undefined, extra)).toEqual([]);
});
