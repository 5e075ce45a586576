/** `loom status` lines for a strategies run (src/strategies/status.ts): phase, round and participants per strategy. */
import { strategyDetailsTail, strategyStatusLines } from '../../src/strategies/status';

describe('strategyStatusLines', () => {
  test('scattergather: phase, a single pass, participants, completed of participants and the concurrency bound', () => {
    expect(strategyStatusLines({ strategy: 'scattergather', phase: 'scatter', participants: ['Legal', 'Tech', 'Business'], completed: 1, max_concurrency: 2 })).toEqual([
      'strategy: scattergather  phase: scatter  round 1 of 1 (single pass)',
      'participants: Legal, Tech, Business',
      'completed 1 of 3  max concurrency 2',
    ]);
    expect(strategyStatusLines({ strategy: 'scattergather', phase: 'gather', participants: ['Legal'], synthesizer: 'Lead', max_concurrency: 0, stopped: 'complete: Lead gave the terminal output' })).toEqual([
      'strategy: scattergather  phase: gather  round 1 of 1 (single pass)',
      'participants: Legal  synthesizer: Lead',
      'max concurrency unlimited',
      'stopped: complete: Lead gave the terminal output',
    ]);
  });

  test('mapreduce: the split attempt, the mapped items', () => {
    expect(strategyStatusLines({ strategy: 'mapreduce', phase: 'split', splitter: 'S', attempt: 2, participants: ['S', 'M', 'R'] })).toEqual([
      'strategy: mapreduce  phase: split  round 1 of 1 (single pass)', 'participants: S, M, R  splitter: S', 'attempt 2',
    ]);
    expect(strategyStatusLines({ strategy: 'mapreduce', phase: 'map', mapper: 'M', items: 5, completed: 3, max_concurrency: 0, participants: ['S', 'M', 'R'] })[2]).toBe('completed 3 of 5  max concurrency unlimited');
    expect(strategyStatusLines({ strategy: 'mapreduce', phase: 'reduce', reducer: 'R', items: 5, participants: ['S', 'M', 'R'] })[2]).toBe('items 5');
  });

  test('adversarial: round of Rounds and the stage', () => {
    expect(strategyStatusLines({ strategy: 'adversarial', phase: 'critique', stage: 1, stages: 2, label: 'Design', generator: 'G', critic: 'C', participants: ['G', 'C'], rounds: 3, round: 2, outcomes: [] })).toEqual([
      'strategy: adversarial  phase: critique  round 2 of 3  stage 1 of 2 "Design"',
      'participants: G, C  generator: G  critic: C',
    ]);
  });

  test('magentic: round of MaxRoundCount, speaker, stalls and resets', () => {
    expect(strategyStatusLines({ strategy: 'magentic', phase: 'speak', round: 4, max_rounds: 20, stalls: 1, resets: 0, participants: ['Dev', 'Reviewer'], speaker: 'Dev' })).toEqual([
      'strategy: magentic  phase: speak  round 4 of 20', 'participants: Dev, Reviewer  speaking: Dev', 'stalls 1  resets 0',
    ]);
  });

  test('llm and the routing strategies: the turn; a routing run names its position', () => {
    expect(strategyStatusLines({ strategy: 'llm', phase: 'select', iteration: 3, participants: ['A', 'B'] })).toEqual(['strategy: llm  phase: select  turn 3', 'participants: A, B']);
    expect(strategyStatusLines({ strategy: 'graph', iteration: 2, speaker: 'Writer', position: 'write', last_signal: 'DONE', transcript_entries: 3 })).toEqual([
      'strategy: graph  position: write  turn 2', 'speaking: Writer', 'last signal: DONE',
    ]);
  });

  test('done: no round when the strategy has none; the stages and who took part', () => {
    expect(strategyStatusLines({ strategy: 'adversarial', phase: 'done', stages: 2, participants: ['G', 'C', 'G2'], outcomes: [], stopped: 'complete: G2 gave the terminal output' })).toEqual([
      'strategy: adversarial  phase: done', 'participants: G, C, G2', 'stopped: complete: G2 gave the terminal output',
    ]);
  });

  test('the Current Details tail: round and participants', () => {
    expect(strategyDetailsTail({ strategy: 'adversarial', phase: 'critique', round: 2, rounds: 3, participants: ['G', 'C'] })).toBe('round 2 of 3; participants: G, C');
    expect(strategyDetailsTail({ strategy: 'scattergather', phase: 'scatter', participants: ['A'] })).toBe('round 1 of 1 (single pass); participants: A');
    expect(strategyDetailsTail({ strategy: 'adversarial', phase: 'done' })).toBe('');
  });

  test('a progress without a strategy (other patterns) gives no lines', () => {
    expect(strategyStatusLines({ nodes: 3 })).toEqual([]);
    expect(strategyStatusLines(undefined)).toEqual([]);
  });
});
