/**
 * The PII engine (and the name tagger it loads, compromise: ~2 MB of lexicon, milliseconds per
 * text) stays out of the workflow sandbox: no module a workflow file imports (other than as a
 * type) reaches it, so redaction runs only in activities and never changes a workflow's commands
 * on replay.
 */
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');

function workflowImports(): { local: Set<string>; packages: Set<string> } {
  const local = new Set<string>();
  const packages = new Set<string>();
  const stack: string[] = [];
  const walkDir = (d: string): void => {
    for (const f of fs.readdirSync(d)) {
      const p = path.join(d, f);
      if (fs.statSync(p).isDirectory()) walkDir(p);
      else if (p.endsWith('.ts')) stack.push(p);
    }
  };
  walkDir(path.join(ROOT, 'src', 'workflows'));
  while (stack.length) {
    const file = stack.pop()!;
    if (local.has(file)) continue;
    local.add(file);
    const src = fs.readFileSync(file, 'utf8');
    // value imports and re-exports (`import type` / `export type` are erased by the compiler)
    for (const m of src.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)) {
      const spec = m[1];
      if (!spec.startsWith('.')) {
        packages.add(spec);
        continue;
      }
      const base = path.resolve(path.dirname(file), spec);
      const hit = [`${base}.ts`, path.join(base, 'index.ts')].find((c) => fs.existsSync(c));
      if (hit) stack.push(hit);
    }
  }
  return { local, packages };
}

test('no workflow module reaches the PII engine or compromise', () => {
  const { local, packages } = workflowImports();
  expect(local.size).toBeGreaterThan(10); // the walk did find the workflow code
  const rel = [...local].map((f) => path.relative(ROOT, f).split(path.sep).join('/'));
  expect(rel).toContain('src/workflows/react.ts');
  expect(rel.filter((f) => /^src\/policies\/pii|^src\/activities\//.test(f))).toEqual([]);
  expect([...packages].filter((p) => p === 'compromise' || p.startsWith('compromise/'))).toEqual([]);
});
