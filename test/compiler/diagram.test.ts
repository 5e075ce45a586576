/**
 * Diagrams: one golden Mermaid file per pattern (test/fixtures/diagrams/<case>.mmd, built from the
 * small agents of diagram-cases.ts and read by eye), the dot rendering, back-edges found by depth-first
 * search, and every agent of every example registry diagrammed.
 */
import * as fs from 'fs';
import * as path from 'path';
import { compileBundle, loadRegistry } from '../../src/compiler';
import { agentDiagram, bundleDiagram, conditionText, toDot, toMermaid } from '../../src/compiler/diagram';
import { CASES } from './diagram-cases';

const ROOT = path.resolve(__dirname, '..', '..');
const GOLDEN = path.join(ROOT, 'test', 'fixtures', 'diagrams');

describe('golden Mermaid per pattern', () => {
  for (const [name, agent] of Object.entries(CASES)) {
    it(name, () => {
      expect(toMermaid(agentDiagram(agent))).toBe(fs.readFileSync(path.join(GOLDEN, `${name}.mmd`), 'utf8'));
    });
  }
});

test('dot: shapes, labels escaped, back-edges dashed', () => {
  expect(toDot(agentDiagram(CASES.loop))).toBe(`digraph "loop v1.0.0" {
  rankdir=TB;
  "input" [label="input", shape=oval];
  "s1" [label="writer", shape=box];
  "s2" [label="checker", shape=box];
  "check" [label="exit when checker.output.score ≥ 0.8", shape=diamond];
  "output" [label="output", shape=oval];
  "input" -> "s1";
  "s1" -> "s2";
  "s2" -> "check";
  "check" -> "s1" [label="repeat (max 3)", style=dashed];
  "check" -> "output" [label="exit"];
}
`);
  expect(toDot(agentDiagram(CASES.conditional))).toContain('"route" -> "r1" [label="parent.input.lang = \\"en\\""];');
});

test('only the edge that closes a cycle is a back-edge, whatever the declaration order', () => {
  const d = agentDiagram(CASES.keywordGraph);
  expect(d.edges.filter((e) => e.back).map((e) => `${e.from}->${e.to}`)).toEqual(['g_test->g_code']);
  expect(agentDiagram(CASES.workflow).edges.some((e) => e.back)).toBe(false);
});

test('conditions read as OR of AND groups with operators', () => {
  expect(conditionText([{ args_match: { 'a.x': { gt: 1, lte: 5 }, 'a.y': 'z' } }, { args_match: { 'b.k': { in: ['p', 'q'] } } }]))
    .toBe('a.x > 1 and a.x ≤ 5 and a.y = "z" or b.k in ["p","q"]');
});

describe('every agent of every example registry', () => {
  const registries = ['examples/demo', 'examples/customer-support',
    ...['orchestrators', 'strategies'].flatMap((g) => fs.readdirSync(path.join(ROOT, 'examples', g), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `examples/${g}/${e.name}`))];
  for (const reg of registries) {
    it(reg, () => {
      const dir = path.join(ROOT, reg);
      const ids = [...loadRegistry(dir).entries.agent.keys()];
      expect(ids.length).toBeGreaterThan(0);
      for (const id of ids) {
        const { bundle, diagnostics } = compileBundle(dir, id);
        if (!bundle) throw new Error(`${reg} ${id} does not compile: ${diagnostics.map((x) => x.message).join('; ')}`);
        const text = toMermaid(bundleDiagram(bundle));
        expect(text).toMatch(/^---\ntitle: .+\n---\nflowchart TD\n/);
        expect(text).toContain('input(["input"])');
        expect(text).toMatch(/ --> output|-->\|"[^"]*"\| output/); // every diagram reaches the output
      }
    });
  }
});
