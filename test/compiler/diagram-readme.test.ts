/**
 * Documented diagrams cannot drift (issue 13): every ```mermaid block of docs/diagrams.md (the page the
 * README's diagrams moved to) is labelled on the line
 * before it — `<!-- loom diagram AGENT --registry DIR -->` (compared with what `loom diagram` prints for
 * that agent today) or `<!-- test/fixtures/diagrams/NAME.mmd -->` (a golden file of a test run) — and
 * equals it; every example registry has at least one diagram on that page.
 */
import * as fs from 'fs';
import * as path from 'path';
import { compileBundle } from '../../src/compiler';
import { bundleDiagram, toMermaid } from '../../src/compiler/diagram';

const ROOT = path.join(__dirname, '..', '..');
const readme = fs.readFileSync(path.join(ROOT, 'docs', 'diagrams.md'), 'utf8');
const blocks = [...readme.matchAll(/(?:^|\n)([^\n]*)\n```mermaid\n([\s\S]*?)```/g)].map((m) => ({ label: m[1], text: m[2] }));

test('docs/diagrams.md has labelled mermaid blocks', () => {
  expect(blocks.length).toBeGreaterThan(20);
  expect(blocks.filter((b) => !/^<!-- (loom diagram \S+ --registry \S+|test\/fixtures\/diagrams\/\S+\.mmd) -->$/.test(b.label)).map((b) => b.label)).toEqual([]);
});

describe.each(blocks.map((b) => [b.label, b] as const))('%s', (_label, b) => {
  test('equals what it is labelled with', () => {
    const cmd = /^<!-- loom diagram (\S+) --registry (\S+) -->$/.exec(b.label);
    if (cmd) {
      const { bundle, diagnostics } = compileBundle(path.join(ROOT, cmd[2]), cmd[1]);
      if (!bundle) throw new Error(`${cmd[2]} ${cmd[1]} does not compile: ${diagnostics.map((d) => d.message).join('; ')}`);
      expect(b.text).toBe(toMermaid(bundleDiagram(bundle)));
    } else {
      const file = /^<!-- (\S+) -->$/.exec(b.label)![1];
      expect(b.text).toBe(fs.readFileSync(path.join(ROOT, file), 'utf8'));
    }
  });
});

test('every example registry has a diagram in docs/diagrams.md', () => {
  const regs = ['examples/demo', 'examples/customer-support', 'examples/execution-loop',
    ...['orchestrators', 'strategies'].flatMap((g) => fs.readdirSync(path.join(ROOT, 'examples', g), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `examples/${g}/${e.name}`))];
  const shown = new Set(blocks.map((b) => /--registry (\S+) -->/.exec(b.label)?.[1]).filter(Boolean));
  expect(regs.filter((r) => !shown.has(r))).toEqual([]);
});
