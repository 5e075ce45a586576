/**
 * The js-yaml fast path refuses a front matter only where YAML can read `&`, `*` or `!` as an
 * anchor, alias or tag (the start of a node), not wherever the characters appear: `3 * 140` in a
 * value stays fast. Whatever the fast path accepts holds no anchor, alias or tag for the
 * positioned parser either (checked on generated YAML).
 */
import fc from 'fast-check';
import { isAlias, isNode, parseDocument, visit } from 'yaml';
import { parseFast } from '../../src/compiler/source';

const asJson = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

/** What the positioned parser reads, and whether it saw an anchor, alias or explicit tag (undefined: it refused the text). */
function positioned(fm: string): { data: unknown; properties: boolean } | undefined {
  const doc = parseDocument(fm, { uniqueKeys: true, strict: true });
  if (doc.errors.length) return undefined;
  let properties = false;
  visit(doc, (_key, node) => {
    // Implicit tags and no anchor read as undefined: only what the text wrote is set.
    if (isAlias(node) || (isNode(node) && (node.anchor != null || node.tag != null))) properties = true;
  });
  return { data: doc.toJS({ maxAliasCount: 50 }), properties };
}

test('operators and punctuation inside values stay on the fast path', () => {
  const fm = [
    'tool_id: calculator',
    'description: Evaluate an arithmetic expression (+ - * / parentheses, decimals). Returns the number.',
    "expression: '{{input.nights}} * {{input.rate}} + ({{input.nights}} + 1) * {{input.daily}}'",
    'note: Fish & chips! Really',
    '',
  ].join('\n');
  const fast = parseFast(fm);
  expect(fast).toBeDefined();
  expect(asJson(fast)).toEqual(positioned(fm)?.data);
});

test.each([
  'a: &x 1\nb: *x\n', 'a: !!str 1\n', 'a: ! 12\n', 'l:\n  - *a\n', 'l:\n  - - &a 1\n', 'x: [a, *b]\n', 'x: {a: *b}\n',
  'x: [*b]\n', 'x: {? *a : 1}\n', '? *a\n: 1\n', 'x:\n  *a\n', 'x: |\n  *bold*\n', 'x: [a,\n  *b]\n',
])('%j takes the positioned path', (fm) => {
  expect(parseFast(fm)).toBeUndefined();
});

test('nothing the fast path accepts has an anchor, alias or tag for the positioned parser (property)', () => {
  // Mappings whose values are made of YAML's indicators and plain text, one entry a line.
  const token = fc.constantFrom('x', '1', ' ', '3 * 4', '(+ - * /)', 'a & b', 'hi!', '*a', '&a ', '!!str ', '! ', '- ', ': ', '? ', ',', '[', ']', '{', '}', "'", '"', '#');
  const value = fc.array(token, { minLength: 1, maxLength: 5 }).map((t) => t.join(''));
  const entry = fc.tuple(fc.constantFrom('', '  ', '- '), value).map(([lead, v]) => (lead === '  ' ? `  ${v}` : lead === '- ' ? `  - ${v}` : v));
  fc.assert(
    fc.property(fc.array(entry, { minLength: 1, maxLength: 6 }), (values) => {
      const fm = values.map((v, i) => (v.startsWith('  ') ? `k${i}:\n${v}` : `k${i}: ${v}`)).join('\n') + '\n';
      const fast = parseFast(fm);
      if (fast === undefined) return;
      const slow = positioned(fm);
      if (slow === undefined) return; // the positioned parser refuses it: nothing to compare
      // What the fast path guards is only this; the two parsers' readings of real files are compared in yaml-fastpath.test.ts.
      expect({ fm, properties: slow.properties }).toEqual({ fm, properties: false });
    }),
    { numRuns: 3000 },
  );
});
