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

/**
 * Files that take half a minute or more, in seconds: the last fresh-clone CI on 2 cores (load ~2),
 * less what the suite no longer does there (the pack is shared: test/library/pack.ts; the first
 * file that asks packs, so pack-install's figure keeps it and starter's and package's do not;
 * temporal-spans replays a sample of the compat fixtures; the two outages overlap). The compat fixture replay ran last in
 * that CI, alone on one worker for three minutes: a file this long must start first.
 * The ten slowest files take their figures of the latest such CI (crash 96, deploy 68, tracing 52,
 * web-ui 43, escalation-restart 49); outages, demo and runs are that CI's less what they no longer
 * wait for (one store outage instead of two in a row, demo's two tests overlapping, the built CLI
 * instead of ts-node starts: that CI's figure times the ratio measured back to back on a loaded
 * machine); outages now asks first for the built CLI
 * (test/helpers/built-cli.ts), so it carries the shared pack (~40 s) that pack-install carried.
 * Files made shorter since take that CI's figure times the ratio measured before and after on one
 * machine: crash (its three tests overlap), connection-tls (its three overlap, the built worker) and
 * escalation-restart (the suite's server deletes runs within a second: test/setup/global-setup.ts,
 * 20 s, so it left the table); web-ui is that CI's less the 20 s wait for a text that must not appear,
 * cli/runs that CI's 82 s less the 46 s its delete test no longer waits, deploy that CI's 72 s less its
 * workflow bundle step (~10 s on an idle machine), which now runs beside its tsc.
 */
const EXPECTED_S = {
  'test/compat/fixtures.replay.test.ts': 178,
  'test/outages/outages.test.ts': 130,
  'test/runtime/crash.test.ts': 36,
  'test/library/starter.test.ts': 92,
  'test/telemetry/temporal-spans.test.ts': 75,
  'test/deploy.test.ts': 60,
  'test/strategies/compaction.test.ts': 57,
  'test/telemetry/tracing.test.ts': 52,
  'test/orchestration/strategies.int.test.ts': 51,
  'test/store/scale-out.test.ts': 44,
  'test/orchestration/policies.int.test.ts': 43,
  'test/library/client-ops.test.ts': 41,
  'test/cli/runs.test.ts': 36,
  'test/library/pack-install.test.ts': 40,
  'test/cli/inbox.test.ts': 40,
  'test/strategies/evidence-runtime.test.ts': 39,
  'test/artifacts/ephemeral.test.ts': 38,
  'test/cli/demo.test.ts': 35,
  'test/library/package.test.ts': 35,
  'test/cli/dev.test.ts': 35,
  'test/orchestration/patterns.int.test.ts': 35,
  'test/strategies/scale.test.ts': 33,
  'test/codec/web-ui.test.ts': 30,
  'test/library/connection-tls.test.ts': 30,
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
