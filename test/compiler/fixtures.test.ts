/** Table-driven invalid corpus: every fixture carries `<- CODE` markers on the line the diagnostic must point at. */
import * as fs from 'fs';
import * as path from 'path';
import { validatePaths, CODES } from '../../src/compiler';
import { BASE, INVALID } from './helpers';

interface Case { file: string; code: string; line: number }

function cases(): Case[] {
  const out: Case[] = [];
  for (const f of fs.readdirSync(INVALID).sort()) {
    const lines = fs.readFileSync(path.join(INVALID, f), 'utf8').split('\n');
    lines.forEach((l, i) => {
      const m = /<- ([A-Z]+\d+)( \(line above\))?/.exec(l);
      if (m) out.push({ file: f, code: m[1], line: m[2] ? i : i + 1 });
    });
  }
  return out;
}

const table = cases();

describe('invalid corpus (test/fixtures/invalid)', () => {
  it('has at least one marked fixture per file and covers many codes', () => {
    const files = fs.readdirSync(INVALID);
    for (const f of files) expect(table.some((c) => c.file === f)).toBe(true);
    expect(new Set(table.map((c) => c.code)).size).toBeGreaterThanOrEqual(60);
  });

  it.each(table.map((c) => [c.file, c.code, c.line] as const))('%s reports %s at line %d', (file, code, line) => {
    const ds = validatePaths([path.join(INVALID, file)], { registry: BASE });
    const hit = ds.find((d) => d.code === code && d.line === line);
    if (!hit) throw new Error(`expected ${code} at line ${line}, got:\n${ds.map((d) => `${d.line}:${d.column} ${d.code} ${d.message}`).join('\n')}`);
    expect(hit.severity).toBe(CODES[code].severity);
    expect(hit.column).toBeGreaterThanOrEqual(1);
    expect(hit.message.length).toBeGreaterThan(10);
  });

  it('every documented code except compile/publish-only ones has a fixture', () => {
    const covered = new Set(table.map((c) => c.code));
    // REG008 (tenant.md) and AGL042 (no tenant.md) need a registry of their own: test/compiler/tenant.test.ts
    const elsewhere = ['LOOM001', 'LOOM002', 'LOOM003', 'LOOM007', 'LOOM008', 'LOOM009', 'LOOM010', 'AGF060', 'AGF061', 'AGF062', 'AGL012', 'REG008', 'AGL042',
      // need an MCP server (test/mcp/mcp-compile.unit.test.ts) or a region-tagged model (test/policies/compile-policies.unit.test.ts)
      'AGF130', 'AGF131', 'AGF140',
      // need a judge model, a collection backend or a tenant of their own: test/compiler/guard-residency.unit.test.ts
      'AGF560', 'AGF561', 'AGF562', 'AGL560',
      // need the worker's code tools and policies: test/library/code-registry.unit.test.ts
      'AGF192', 'AGF193', 'AGL060', 'AGL061'];
    const missing = Object.keys(CODES).filter((c) => !covered.has(c) && !elsewhere.includes(c));
    expect(missing).toEqual([]);
  });

  it('reports all problems of a file at once', () => {
    const file = path.join(INVALID, 'AGF022-not-granted.agent.md');
    const ds = validatePaths([file], { registry: BASE });
    expect(ds.filter((d) => d.severity === 'error').length).toBeGreaterThanOrEqual(1);
    const multi = validatePaths([path.join(INVALID, 'AGF057-cycle.agent.md'), path.join(INVALID, 'AGF058-byname.agent.md')], { registry: BASE });
    expect(multi.some((d) => d.code === 'AGF057')).toBe(true);
    expect(multi.some((d) => d.code === 'AGF058')).toBe(true);
  });
});
