/**
 * examples/strategies/turn-taking: seed 002's `sequential` and `roundrobin` selection (the seed's
 * composite termination pasted unchanged) over scripted members, run offline on a real Temporal
 * dev server: the turns each selection takes and the answer it ends with.
 */
import * as path from 'path';
import { compileBundle } from '../../src/compiler';
import type { AgentRunResult } from '../../src/shared/contract';
import { recordingHarness } from './dev-server';

const dev = recordingHarness('turn-taking');
const dir = path.resolve(__dirname, '..', '..', 'examples', 'strategies', 'turn-taking');

describe('examples/strategies/turn-taking', () => {
  test.each([
    // sequential: each member once, in the order of Agents; the last one's reply is the answer.
    ['incident-pipeline', 'Incident note: the 3 March nightly export failed when its disk filled up; it was re-run after space was freed, and disk use now alerts at 80%.', ['turn-1-Outliner', 'turn-2-Writer', 'turn-3-Editor']],
    // roundrobin: Writer, Reviewer, Writer, Reviewer: the Reviewer's second reply says APPROVED (the regex termination).
    ['release-note-loop', 'Both points are covered.\nAPPROVED', ['turn-1-Writer', 'turn-2-Reviewer', 'turn-3-Writer', 'turn-4-Reviewer']],
  ])('%s compiles without a finding and runs offline to its answer', async (root, output, turns) => {
    const { bundle, diagnostics } = compileBundle(dir, root);
    expect(diagnostics).toEqual([]);
    const wf = await dev.start(bundle!, bundle!.agents[root].interface.input.examples![0]);
    expect(((await wf.result()) as AgentRunResult).output).toBe(output);
    expect(await dev.turns(wf.workflowId)).toEqual(turns);
  });
});

// Last in the file: both runs replay deterministically on this code.
test('every run of this file replays without nondeterminism', async () => {
  expect(dev.started.length).toBe(2);
  const outcomes = await dev.replayStarted();
  expect(outcomes.filter((o) => o.error)).toEqual([]);
  expect(outcomes).toHaveLength(2);
}, 120_000);
