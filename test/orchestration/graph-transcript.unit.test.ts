/** The graph transcript in the pure scheduler (issue 14): entries in completion order, read by edge conditions. */
import { GraphScheduler, SELF } from '../../src/orchestration/graph';
import { graphTranscriptText } from '../../src/activities/graph-messages';

const cyclic = () => new GraphScheduler({
  max_node_executions: 10,
  nodes: [{ id: 'drafter', agent_ref: 'd' }, { id: 'reviewer', agent_ref: 'r' }, { id: 'publish', agent_ref: 'p' }],
  edges: [
    { from: SELF, to: 'drafter' },
    { from: 'drafter', to: 'reviewer' },
    { from: 'reviewer', to: 'drafter', condition: "transcript_last.output != 'ok' and len(transcript) < 5" },
    { from: 'reviewer', to: 'publish', condition: "transcript_last.output == 'ok' and transcript.1.node == 'drafter'" },
  ],
});

test('every completion appends {node, visit, output}; conditions read transcript and transcript_last', () => {
  const g = cyclic();
  g.markRunning(SELF);
  g.complete(SELF, 'plan', 'in');
  g.markRunning('drafter');
  g.complete('drafter', 'draft 1', 'in');
  g.markRunning('reviewer');
  expect(g.complete('reviewer', 'more numbers', 'in')).toEqual(['drafter']);
  g.markRunning('drafter');
  g.complete('drafter', 'draft 2', 'in');
  g.markRunning('reviewer');
  expect(g.complete('reviewer', 'ok', 'in')).toEqual(['publish']);
  expect(g.state.transcript).toEqual([
    { node: SELF, visit: 1, output: 'plan' },
    { node: 'drafter', visit: 1, output: 'draft 1' },
    { node: 'reviewer', visit: 1, output: 'more numbers' },
    { node: 'drafter', visit: 2, output: 'draft 2' },
    { node: 'reviewer', visit: 2, output: 'ok' },
  ]);
});

test('the transcript bounds a cycle through len(transcript)', () => {
  const g = cyclic();
  g.markRunning(SELF);
  g.complete(SELF, 'plan', 'in');
  g.markRunning('drafter');
  g.complete('drafter', 'd1', 'in');
  g.markRunning('reviewer');
  expect(g.complete('reviewer', 'no', 'in')).toEqual(['drafter']); // 3 entries
  g.markRunning('drafter');
  g.complete('drafter', 'd2', 'in');
  g.markRunning('reviewer');
  expect(g.complete('reviewer', 'no', 'in')).toEqual([]); // 5 entries: the back-edge no longer holds
});

test("a node's first message lists the transcript window oldest first, naming node and visit", () => {
  expect(graphTranscriptText([], 0)).toBe('');
  expect(graphTranscriptText([{ agent: '$self (visit 1)', text: 'plan' }, { agent: 'drafter (visit 1)', text: 'd1' }], 2)).toBe(
    '# Graph transcript (2 earlier entries omitted)\n\n[$self (visit 1)]\nplan\n\n[drafter (visit 1)]\nd1',
  );
});
