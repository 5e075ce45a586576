/**
 * The `files` and `http` knowledge backends (src/activities/knowledge.ts): a folder of documents
 * chunked and ranked with the inline ones; a local HTTP endpoint's documents ranked the same way.
 */
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import type { CompiledKnowledge } from '../../src/compiled/types';
import { backendChunks, fileChunks } from '../../src/activities/knowledge';
import { searchKnowledge } from '../../src/runtime/knowledge-search';

const kb = (kb_id: string, backend: CompiledKnowledge['backend']): CompiledKnowledge => ({ kb_id, version: '1', status: 'active', required: false, citations_required: false, backend });

test('files: every .md/.txt document of the folder (sub-folders too), titled by its heading, chunked, searchable', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-files-'));
  fs.mkdirSync(path.join(dir, 'billing'));
  fs.writeFileSync(path.join(dir, 'billing', 'refunds.md'), '# Refunds\n\nA duplicate charge is refunded within five days.\n');
  fs.writeFileSync(path.join(dir, 'passwords.txt'), 'Reset your password in Settings > Security.');
  fs.writeFileSync(path.join(dir, 'image.png'), 'not a document');
  const source = kb('help', { type: 'files', path: dir });
  const chunks = await fileChunks(source);
  expect(chunks.map((c) => `${c.id}:${c.title ?? ''}`)).toEqual(['billing/refunds.md:Refunds', 'passwords.txt:']);
  const hits = searchKnowledge([source], 'duplicate charge refunded', undefined, await backendChunks([source], 'duplicate charge refunded', 5));
  expect(hits.map((h) => `${h.kb_id}/${h.id}`)).toEqual(['help/billing/refunds.md']);
  // A relative path resolves against LOOM_KNOWLEDGE_DIR.
  process.env.LOOM_KNOWLEDGE_DIR = path.dirname(dir);
  try {
    expect((await fileChunks(kb('help', { type: 'files', path: path.basename(dir) }))).length).toBe(2);
  } finally {
    delete process.env.LOOM_KNOWLEDGE_DIR;
  }
  await expect(fileChunks(kb('gone', { type: 'files', path: path.join(dir, 'missing') }))).rejects.toThrow(/gone: .*missing is not a folder/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('http: GET url?q=&limit= returns documents, ranked with the inline ones', async () => {
  const asked: string[] = [];
  const srv = http.createServer((req, res) => {
    asked.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ documents: [{ id: 'kb-7', title: 'Refund window', text: 'Refunds are possible for thirty days.' }, { id: 'kb-8', text: 'Unrelated text.' }] }));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  try {
    const remote = kb('remote', { type: 'http', url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/search` });
    const local = kb('local', { type: 'inline', documents: [{ id: 'p', title: 'Passwords', text: 'Reset the password.' }] });
    const extra = await backendChunks([remote, local], 'refund window', 3);
    expect(asked).toEqual(['/search?q=refund+window&limit=3']);
    expect(searchKnowledge([remote, local], 'refund window', 3, extra).map((h) => `${h.kb_id}/${h.id}`)).toEqual(['remote/kb-7']);
  } finally {
    srv.close();
  }
});
