/** docs/layout.md names real files, and scripts/layers.js places every folder of src/ exactly once. */
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.join(__dirname, '../..');
const { LAYERS } = require('../../scripts/layers') as { LAYERS: { name: string; folders: string[] }[] };

test('every path docs/layout.md names exists', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/layout.md'), 'utf8');
  const paths = [...doc.matchAll(/`((?:src|scripts)\/[^`\s]+)`/g)].map((m) => m[1]);
  expect(paths.length).toBeGreaterThan(30);
  expect(paths.filter((p) => !fs.existsSync(path.join(ROOT, p)))).toEqual([]);
});

test('scripts/layers.js places every folder of src/ once, and docs/layout.md lists each', () => {
  const folders = fs.readdirSync(path.join(ROOT, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const placed = LAYERS.flatMap((l) => l.folders);
  expect([...placed].sort()).toEqual(folders);
  expect(new Set(placed).size).toBe(placed.length);
  const doc = fs.readFileSync(path.join(ROOT, 'docs/layout.md'), 'utf8');
  expect(folders.filter((f) => !doc.includes(`\`src/${f}/\``))).toEqual([]);
});
