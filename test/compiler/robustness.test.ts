/** Pathological inputs and fast-check mutations: the compiler returns diagnostics, never throws, and stays bounded in time. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import fc from 'fast-check';
import { compileBundle, validatePaths } from '../../src/compiler';
import { parseSource } from '../../src/compiler/source';
import { BASE, EXAMPLE, tempRegistry } from './helpers';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bad-'));
const write = (name: string, content: string | Buffer): string => {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, content);
  return f;
};
const codesOf = (f: string): string[] => validatePaths([f], { registry: BASE }).map((d) => d.code);

describe('pathological files', () => {
  it('empty file → LOOM004', () => expect(codesOf(write('empty.agent.md', ''))).toContain('LOOM004'));
  it('binary junk → LOOM003', () => expect(codesOf(write('bin.agent.md', Buffer.from([0, 1, 2, 255, 254, 0, 7])))).toContain('LOOM003'));
  it('invalid UTF-8 → LOOM003', () => expect(codesOf(write('latin.agent.md', Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a])))).toContain('LOOM003'));
  it('front matter that is a scalar → LOOM006', () => expect(codesOf(write('scalar.agent.md', '---\njust a string\n---\n# Purpose\n'))).toContain('LOOM006'));
  it('unclosed front matter → LOOM004', () => expect(codesOf(write('open.agent.md', '---\nagent_id: x\n'))).toContain('LOOM004'));
  it('missing file → LOOM001', () => expect(codesOf(path.join(tmp, 'nope.agent.md'))).toContain('LOOM001'));
  it('a directory named like a file → LOOM001 or LOOM008', () => {
    const d = path.join(tmp, 'dir.agent.md');
    fs.mkdirSync(d, { recursive: true });
    expect(validatePaths([d]).length).toBeGreaterThan(0);
  });
  it('unreadable file → LOOM001', () => {
    const f = write('secret.agent.md', '---\na: 1\n---\n');
    fs.chmodSync(f, 0o000);
    let readable = true;
    try { fs.readFileSync(f); } catch { readable = false; }
    const codes = codesOf(f);
    fs.chmodSync(f, 0o644);
    if (!readable) expect(codes).toContain('LOOM001');
    else expect(codes).not.toContain('LOOM001'); // running as root: the file is readable
  });
  it('5 MB file → LOOM002 without parsing it (timing: npm run bench:compile)', () => {
    const f = write('huge.agent.md', '---\nagent_id: x\n---\n' + 'a'.repeat(5 * 1024 * 1024));
    expect(codesOf(f)).toEqual(['LOOM002']);
  });
  it('billion laughs alias bomb → LOOM007, bounded', () => {
    const lines = ['---', 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    const names = 'bcdefghij'.split('');
    let prev = 'a';
    for (const n of names) { lines.push(`${n}: &${n} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`); prev = n; }
    lines.push('---', '# Purpose', 'x');
    expect(codesOf(write('bomb.agent.md', lines.join('\n')))).toContain('LOOM007');
  });
  it('deeply nested YAML does not crash', () => {
    const deep = '---\nmeta: ' + '['.repeat(2000) + ']'.repeat(2000) + '\n---\n';
    expect(() => codesOf(write('deep.agent.md', deep))).not.toThrow();
  });
  it('a registry folder full of junk still returns diagnostics', () => {
    const dir = tempRegistry(EXAMPLE);
    fs.writeFileSync(path.join(dir, 'tools', 'junk.tool.md'), Buffer.from([0, 0, 0]));
    fs.writeFileSync(path.join(dir, 'models', 'x.model.md'), '---\n: : :\n---');
    const r = compileBundle(dir, 'customer-support-agent');
    expect(r.bundle).toBeDefined(); // junk files outside the closure do not block this agent
    expect(validatePaths([dir]).filter((d) => d.severity === 'error').length).toBeGreaterThanOrEqual(2);
  });
});

describe('property: mutated valid files never throw', () => {
  const original = fs.readFileSync(path.join(EXAMPLE, 'agents', 'customer-support-agent.agent.md'), 'utf8');
  const lines = original.split('\n');
  const dir = tempRegistry(EXAMPLE);
  const target = path.join(dir, 'agents', 'customer-support-agent.agent.md');
  const junk = fc.oneof(
    fc.constantFrom('', '---', ':', '- ', '  ', '&a', '*a', '!!binary', '{', '[', '"', "'", '# Rules', 'null', '~', '\t', 'x: [1, {a: }', 'status: 7', 'tools: 3', 'ref: nowhere'),
    fc.string({ maxLength: 20 }),
  );
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: junk }),
    fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), text: junk }),
    fc.record({ kind: fc.constant('indent' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  );

  it('compileBundle returns diagnostics (or a bundle) for any mutation', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 6 }), (muts) => {
        let ls = [...lines];
        for (const m of muts) {
          const i = ls.length ? m.at % ls.length : 0;
          if (m.kind === 'delete') ls.splice(i, 1);
          else if (m.kind === 'insert') ls.splice(i, 0, m.text);
          else if (m.kind === 'replace') ls[i] = m.text;
          else if (m.kind === 'indent') ls[i] = '  ' + (ls[i] ?? '');
          else ls = ls.slice(0, i);
        }
        fs.writeFileSync(target, ls.join('\n'));
        const r = compileBundle(dir, 'customer-support-agent');
        expect(Array.isArray(r.diagnostics)).toBe(true);
        if (!r.bundle) expect(r.diagnostics.some((d) => d.severity === 'error')).toBe(true);
        for (const d of r.diagnostics) {
          expect(d.line).toBeGreaterThanOrEqual(1);
          expect(typeof d.code).toBe('string');
          expect(d.message).not.toContain('internal compiler error');
        }
      }),
      { numRuns: 150, seed: 42 },
    );
  });

  it('parseSource never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (s) => {
        const ds: unknown[] = [];
        expect(() => parseSource('---\n' + s + '\n---\n' + s, 'x.agent.md', ds as never)).not.toThrow();
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});
