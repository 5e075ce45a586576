/**
 * What the Web UI shows on each Timer Started event: the summaries of the timers in the compat
 * histories recorded on each side of patch wait-timer-summary (real dev-server runs, recorded by
 * `npm run replay:compat -- --record`). After the patch the run deadline and the graph's
 * execution_timeout timers are named; before it they were not.
 */
import * as fs from 'fs';
import * as path from 'path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { defaultPayloadConverter } from '@temporalio/common';
import { FIXTURE_DIR } from './run-compat';
import { deadlineTimerSummary } from '../../src/workflows/shell/deadline';
import { graphTimerSummary } from '../../src/workflows/graph-run';

/** The summary of every timer started in a recorded history ('' for an unnamed timer), in order. */
function timerSummaries(file: string): string[] {
  const h = historyFromJSON(JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, file), 'utf8')));
  return (h.events ?? [])
    .filter((e) => e.timerStartedEventAttributes)
    .map((e) => (e.userMetadata?.summary ? String(defaultPayloadConverter.fromPayload(e.userMetadata.summary)) : ''));
}

test('the run deadline timer is named after the patch, and was not before it', () => {
  expect(timerSummaries('react-deadline-timer@current/root.json')[0]).toBe('run deadline (runtime.timeout_seconds, 3600 s left)');
  expect(timerSummaries('react-deadline-timer@e381ca7/root.json')[0]).toBe('');
});

test('the graph names its execution_timeout and the node it waits on after the patch, and did not before it', () => {
  const after = timerSummaries('graph-cycle-mid-node@current/root.json');
  expect(after.length).toBeGreaterThanOrEqual(2);
  for (const s of after) expect(s).toMatch(/^graph execution_timeout \(600 s, \d+ s left\) while node \S+ runs \(node_timeout 300 s\)$/);
  expect(after.some((s) => s.includes('node writer runs'))).toBe(true);
  expect(timerSummaries('graph-cycle-mid-node@e381ca7/root.json').every((s) => s === '')).toBe(true);
});

test('the summaries say which limit, how much is left and what runs', () => {
  expect(deadlineTimerSummary('member', 120)).toBe('run deadline while a member runs (120 s left)');
  expect(graphTimerSummary(600, 540, ['review', 'draft'], 300)).toBe('graph execution_timeout (600 s, 540 s left) while nodes review, draft run (node_timeout 300 s)');
  expect(graphTimerSummary(600, 1, [], 300)).toBe('graph execution_timeout (600 s, 1 s left)');
});
