/** Version precedence by the `semver` package at the edges publish depends on (pre-releases, build metadata, stray files). */
import * as fs from 'fs';
import * as path from 'path';
import { compareSemver, compileBundle, publishBundle } from '../../src/compiler';
import { EXAMPLE, tempRegistry } from './helpers';

const sign = (a: string, b: string): number => Math.sign(compareSemver(a, b));

describe('compareSemver at the edges', () => {
  test.each([
    ['1.0.0-2', '1.0.0-10', -1], // numeric identifiers compare numerically, not as text
    ['1.0.0-alpha.2', '1.0.0-alpha.10', -1],
    ['1.0.0-10', '1.0.0-alpha', -1], // numeric < alphanumeric
    ['1.0.0-Alpha', '1.0.0-alpha', -1], // ASCII order: uppercase first
    ['1.0.0-alpha-1', '1.0.0-alpha.1', 1], // '-' is part of the identifier: 'alpha-1' > 'alpha'
    ['1.0.0-rc.1', '1.0.0-rc.1.1', -1], // fewer identifiers first when the rest are equal
    ['1.0.0-rc.1+b.2', '1.0.0-rc.1+b.1', 0], // build metadata is ignored
    ['0.9.99', '0.10.0', -1],
    ['10.0.0', '9.99.99', 1],
    ['2.0.0-0', '1.99.99', 1], // a pre-release of a higher version is still higher
  ])('%s vs %s = %i', (a, b, want) => {
    expect(sign(a, b)).toBe(want);
    expect(sign(b, a)).toBe(-want || 0);
  });

  test('a name that is not a version compares as text', () => {
    expect(sign('latest', 'notes')).toBe(-1);
    expect(sign('01.0.0', '01.0.0')).toBe(0);
  });
});

describe('publish with pre-releases', () => {
  test('rc then release then a lower rc; a stray non-version payload does not block', () => {
    const dir = tempRegistry(EXAMPLE);
    const f = path.join(dir, 'agents', 'customer-support-agent.agent.md');
    const setVersion = (v: string): void => fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/^version: "[^"]+"/m, `version: "${v}"`));
    const publish = () => publishBundle(dir, compileBundle(dir, 'customer-support-agent').bundle!);
    setVersion('2.0.0-rc.2');
    expect(publish().ok).toBe(true);
    setVersion('2.0.0-rc.10');
    expect(publish().ok).toBe(true); // rc.10 > rc.2 numerically
    setVersion('2.0.0-rc.9');
    const lower = publish();
    expect(lower.ok).toBe(false);
    expect(lower.diagnostics[0].code).toBe('AGF061');
    expect(lower.diagnostics[0].message).toContain('highest published version 2.0.0-rc.10');
    const pub = path.join(dir, '.loom', 'published', 'customer-support-agent');
    fs.copyFileSync(path.join(pub, '2.0.0-rc.10.json'), path.join(pub, 'latest.json')); // text-wise above every version
    setVersion('2.0.0');
    expect(publish().ok).toBe(true);
  });
});
