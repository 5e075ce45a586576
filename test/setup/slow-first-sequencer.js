/**
 * Jest's test order: the longest files first, so that the two workers finish together instead of
 * one running a long file alone at the end. Jest's own sequencer does this from the timings it
 * cached on an earlier run; a fresh clone (the CI) has none, and jest then orders by file size,
 * which put 3-minute files behind hundreds of short ones. EXPECTED_S gives those files the
 * duration they took alone (seconds, rounded) so a fresh clone starts them first; a timing jest
 * has cached wins over the table, and a file that failed last time still runs first.
 */
const path = require('path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = path.resolve(__dirname, '..', '..');

/** Files that take a minute or more alone on 2 cores (the last fresh-clone CI, load ~2). */
const EXPECTED_S = {
  'test/outages/outages.test.ts': 199,
  'test/cli/runs.test.ts': 101,
  'test/runtime/react.long.test.ts': 100,
  'test/runtime/crash.test.ts': 88,
  'test/store/scale-out.test.ts': 78,
  'test/cli/demo.test.ts': 78,
  'test/library/pack-install.test.ts': 75,
  'test/library/package.test.ts': 57,
  'test/deploy.test.ts': 55,
  'test/strategies/scale.test.ts': 50,
};

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const size = (t) => t.context.hasteFS.getSize(t.path) ?? 0;
    const expected = (t) => {
      const cached = this.time(t);
      if (cached != null) return cached;
      const s = EXPECTED_S[path.relative(ROOT, t.path).split(path.sep).join('/')];
      return s === undefined ? undefined : s * 1000;
    };
    // As jest's own sort does: the cached duration on each test (jest runs a short, small set in band).
    for (const t of tests) t.duration = this.time(t);
    const keyed = tests.map((t) => ({ t, failed: this.hasFailed(t), ms: expected(t), bytes: size(t) }));
    keyed.sort((a, b) => {
      if (a.failed !== b.failed) return a.failed ? -1 : 1;
      // Known durations (cached or expected) first, longest first; then the rest by size.
      if ((a.ms != null) !== (b.ms != null)) return a.ms != null ? -1 : 1;
      if (a.ms != null && b.ms != null && a.ms !== b.ms) return b.ms - a.ms;
      return b.bytes - a.bytes;
    });
    return keyed.map((k) => k.t);
  }
}

module.exports = SlowFirstSequencer;
module.exports.EXPECTED_S = EXPECTED_S;
