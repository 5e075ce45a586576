/**
 * Replays every history recorded by `npm run replay:compat -- --record` (listed in
 * test/fixtures/histories/compat/manifest.json: complete runs of the compat scenarios, recorded on
 * the commit before each patch and on a commit after it) against the CURRENT workflow bundle.
 * Together with test/compat/patch-coverage.unit.test.ts this proves both sides of every patch.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Worker } from '@temporalio/worker';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { NO_TELEMETRY_SINKS, workflowBundlePath } from '../helpers/temporal';
import { FIXTURE_DIR, readManifest } from './run-compat';
import { describeReplayError } from './run-compat';

// Replays every recorded fixture (over 100 histories) in one test: minutes on a loaded 2-core machine, past jest's default.
test('every recorded compat fixture replays against the current workflow bundle', async () => {
  const manifest = readManifest();
  expect(manifest.length).toBeGreaterThanOrEqual(50);
  const histories = manifest.map((e) => ({ workflowId: e.workflow_id, history: historyFromJSON(JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, e.file), 'utf8'))) }));
  const failures: string[] = [];
  let replayed = 0;
  for await (const r of Worker.runReplayHistories({ workflowBundle: { codePath: workflowBundlePath() }, replayName: 'compat-fixtures', sinks: NO_TELEMETRY_SINKS }, histories)) {
    replayed++;
    if (r.error) failures.push(`${manifest[replayed - 1]?.file ?? r.workflowId}: ${describeReplayError(r.error)}`);
  }
  expect(replayed).toBe(histories.length);
  expect(failures).toEqual([]);
}, 600_000);
