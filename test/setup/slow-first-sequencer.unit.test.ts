/**
 * The suite's test order (test/setup/slow-first-sequencer.js, jest.config.js testSequencer): on a
 * fresh clone the known long files run first, longest first, then the rest by size; a duration
 * jest cached wins over the table; a file that failed last time runs first.
 */
import * as fs from 'fs';
import * as path from 'path';

const SlowFirst = require('./slow-first-sequencer') as { new (): { sort(tests: FakeTest[]): FakeTest[]; _cache: Map<unknown, Record<string, [number, number]>> }; EXPECTED_S: Record<string, number> };

const ROOT = path.resolve(__dirname, '..', '..');

interface FakeTest { path: string; context: { config: { cache: boolean }; hasteFS: { getSize(p: string): number } } }

function tests(files: Record<string, number>): FakeTest[] {
  const context = { config: { cache: false }, hasteFS: { getSize: (p: string) => files[path.relative(ROOT, p)] ?? 0 } };
  return Object.keys(files).map((f) => ({ path: path.join(ROOT, f), context }));
}
const names = (ts: FakeTest[]): string[] => ts.map((t) => path.relative(ROOT, t.path));

test('a fresh clone: the known long files first, longest first, then the rest by size (biggest first)', () => {
  const order = names(new SlowFirst().sort(tests({
    'test/a/small.test.ts': 100,
    'test/cli/demo.test.ts': 10,
    'test/a/big.test.ts': 90_000,
    'test/outages/outages.test.ts': 20,
    'test/strategies/scale.test.ts': 5,
  })));
  expect(order).toEqual(['test/outages/outages.test.ts', 'test/cli/demo.test.ts', 'test/strategies/scale.test.ts', 'test/a/big.test.ts', 'test/a/small.test.ts']);
});

test('a duration jest cached wins over the table, and a file that failed last time runs first', () => {
  const ts = tests({ 'test/outages/outages.test.ts': 1, 'test/a/quick.test.ts': 1, 'test/a/was-slow.test.ts': 1, 'test/a/failed.test.ts': 1 });
  const seq = new SlowFirst();
  // jest's perf cache: [status (0 = failed, 1 = passed), duration ms] by test path.
  seq._cache.set(ts[0].context, {
    [path.join(ROOT, 'test/outages/outages.test.ts')]: [1, 30_000],
    [path.join(ROOT, 'test/a/was-slow.test.ts')]: [1, 400_000],
    [path.join(ROOT, 'test/a/quick.test.ts')]: [1, 2_000],
    [path.join(ROOT, 'test/a/failed.test.ts')]: [0, 1_000],
  });
  expect(names(seq.sort(ts))).toEqual(['test/a/failed.test.ts', 'test/a/was-slow.test.ts', 'test/outages/outages.test.ts', 'test/a/quick.test.ts']);
});

test('every file the table names exists (a moved or renamed file is updated there)', () => {
  expect(Object.keys(SlowFirst.EXPECTED_S).filter((f) => !fs.existsSync(path.join(ROOT, f)))).toEqual([]);
});
