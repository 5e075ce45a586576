/**
 * The compiler parses plain front matter with js-yaml (fast) and builds the positioned `yaml`
 * Document only when a diagnostic needs a position. Both must read every file the same way.
 */
import * as fs from 'fs';
import * as path from 'path';
import fc from 'fast-check';
import { parseDocument, stringify } from 'yaml';
import { parseFast } from '../../src/compiler/source';

const ROOT = path.resolve(__dirname, '../..');

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...markdownFiles(p));
    else if (e.name.endsWith('.md')) out.push(p);
  }
  return out;
}

function frontMatter(text: string): string | undefined {
  const m = /^---[ \t]*\r?\n([\s\S]*?)^---[ \t]*$/m.exec(text);
  return m ? m[1] : undefined;
}

/** Compare as the compiler emits them: JSON (so -0 and 0 are the same number). */
const asJson = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

function slow(fm: string): unknown {
  const doc = parseDocument(fm, { uniqueKeys: true, strict: true });
  return doc.errors.length ? undefined : doc.toJS({ maxAliasCount: 50 });
}

test('fast and positioned parsers agree on every example and fixture file', () => {
  const files = [...markdownFiles(path.join(ROOT, 'examples')), ...markdownFiles(path.join(ROOT, 'test/fixtures'))];
  expect(files.length).toBeGreaterThan(100);
  let fastPathed = 0;
  for (const f of files) {
    const fm = frontMatter(fs.readFileSync(f, 'utf8'));
    if (fm === undefined) continue;
    const fast = parseFast(fm);
    if (fast === undefined) continue;
    fastPathed++;
    expect({ file: f, data: asJson(fast) }).toEqual({ file: f, data: asJson(slow(fm)) });
  }
  expect(fastPathed).toBeGreaterThan(files.length / 2);
});

test('anchors, aliases, tags, digit separators and duplicate keys take the positioned path', () => {
  expect(parseFast('a: &x 1\nb: *x\n')).toBeUndefined();
  expect(parseFast('a: !!str 1\n')).toBeUndefined();
  expect(parseFast('n: 1_000\n')).toBeUndefined();
  expect(parseFast('a: 1\na: 2\n')).toBeUndefined();
  expect(parseFast('- not a mapping\n')).toBeUndefined();
  expect(parseFast('a: [unclosed\n')).toBeUndefined();
});

test('YAML 1.2 core scalars read the same (property)', () => {
  const scalar = fc.oneof(
    fc.constantFrom('~', 'null', 'Null', 'true', 'True', 'FALSE', '0x1F', '0o17', '017', '+12', '-0', '.5', '1e3', '-.inf', '.NaN', '1.0.0', 'yes', 'no', 'on', '2024-01-01', "'quoted'", '"esc\\tape"', ''),
    fc.integer().map(String),
    fc.double({ noNaN: true }).map(String),
    fc.string({ maxLength: 12 }).filter((s) => !/[&*!:#{}[\],\n\r`'"%@|>?-]/.test(s) && s.trim() === s && s !== ''),
  );
  fc.assert(
    fc.property(fc.dictionary(fc.stringMatching(/^[a-z][a-z_]{0,8}$/), scalar, { minKeys: 1, maxKeys: 6 }), (d) => {
      const fm = Object.entries(d).map(([k, v]) => `${k}: ${v}`).join('\n') + '\n';
      const fast = parseFast(fm);
      if (fast === undefined) return true; // the positioned path handles it
      expect(asJson(fast)).toEqual(asJson(slow(fm)));
      return true;
    }),
    { numRuns: 400 },
  );
});

test('any JSON value written by a YAML serializer reads the same (property)', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.stringMatching(/^[a-z][a-z_]{0,8}$/), fc.jsonValue({ maxDepth: 3 }), { minKeys: 1, maxKeys: 5 }), (d) => {
      const fm = stringify(d);
      const fast = parseFast(fm);
      if (fast === undefined) return true;
      expect(asJson(fast)).toEqual(asJson(slow(fm)));
      return true;
    }),
    { numRuns: 300 },
  );
});
