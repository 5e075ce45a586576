/**
 * `backend.embeddings` of a KB or collection file is checked at compile time (schemas/kb.schema.json,
 * schemas/collection.schema.json; decisions 255, 259): a complete block compiles into the bundle
 * unchanged, a block without `model`, with a non-http base_url or with a key in `api_key_env` is an
 * error on that file.
 */
import * as fs from 'fs';
import * as path from 'path';
import { compileBundle, formatDiagnostic } from '../../src/compiler';
import { tempRegistry } from '../compiler/helpers';

const KB = (embeddings: string) => `---
kb_id: product-docs
version: 1.0.0
status: active
description: Official product help center articles.
retrieval: { search_mode: semantic, max_chunks: 5 }
backend:
  type: inline
  embeddings: ${embeddings}
  documents:
    - { id: reset, title: Reset your password, text: "Go to Settings." }
---
`;

function compileWithKb(embeddings: string) {
  const reg = tempRegistry();
  fs.writeFileSync(path.join(reg, 'knowledge', 'product-docs.kb.md'), KB(embeddings));
  return compileBundle(reg, 'customer-support-agent');
}

test('a complete backend.embeddings block compiles into the source', () => {
  const r = compileWithKb('{ base_url: "http://127.0.0.1:8080/v1", model: text-embedding-3-small, api_key_env: EMBEDDINGS_KEY }');
  const errs = r.diagnostics.filter((d) => d.severity === 'error');
  expect(errs.map(formatDiagnostic)).toEqual([]);
  const kb = r.bundle!.agents['customer-support-agent'].knowledge.refs.find((k) => k.kb_id === 'product-docs')!;
  expect(kb.backend.embeddings).toEqual({ base_url: 'http://127.0.0.1:8080/v1', model: 'text-embedding-3-small', api_key_env: 'EMBEDDINGS_KEY' });
});

test.each([
  ['no model', '{ base_url: "http://127.0.0.1:8080/v1" }', /model/],
  ['a base_url that is not http(s)', '{ base_url: "ftp://h/v1", model: m }', /base_url|pattern/],
  ['a key instead of a variable name', '{ base_url: "http://h/v1", model: m, api_key_env: "sk-live-123" }', /api_key_env|pattern/],
  ['an unknown field', '{ base_url: "http://h/v1", model: m, dims: 3 }', /dims/],
])('%s is an error on the KB file', (_what, block, re) => {
  const errs = compileWithKb(block).diagnostics.filter((d) => d.severity === 'error');
  expect(errs.length).toBeGreaterThan(0);
  expect(errs.map(formatDiagnostic).join('\n')).toMatch(/product-docs\.kb\.md/);
  expect(errs.map(formatDiagnostic).join('\n')).toMatch(re);
});
