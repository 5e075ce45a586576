/** `loom run` progress lines (src/operator/progress.ts): a strategies run names its speaker, position and route. */
import { progressLine, streamedIsOutput } from '../../src/operator/progress';
import type { RunStatus } from '../../src/shared/contract';

const status = (over: Partial<RunStatus>): RunStatus => ({
  state: 'running', agent_id: 'team', version: '1.0.0', pattern: 'strategies', step: 3, turn: 3, pending_approvals: [], tool_calls_made: 0,
  token_usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 12 }, warnings: [], ...over,
});

test('a plain run: state, pattern, step, turn, tool calls, tokens', () => {
  expect(progressLine(status({ pattern: 'agf.react', progress: undefined }))).toBe('[running] agf.react step 3, turn 3, tool calls 0, tokens 12');
});

test('a strategies turn: the speaker, its state or node, and the keyword or signal that routed to it', () => {
  const p = { strategy: 'statemachine', iteration: 3, speaker: 'Developer', position: 'Implementation', last_signal: 'REVISION REQUIRED', routes: [] };
  expect(progressLine(status({ progress: p }))).toBe('[running] strategies step 3, turn 3, tool calls 0, tokens 12, speaker Developer at Implementation (route: "REVISION REQUIRED")');
});

test('no keyword (roundrobin): the router\'s reason for the last route', () => {
  const p = { strategy: 'roundrobin', iteration: 2, speaker: 'B', routes: [{ iteration: 1, agent: 'B', reason: 'round-robin after A' }] };
  expect(progressLine(status({ progress: p }))).toBe('[running] strategies step 3, turn 3, tool calls 0, tokens 12, speaker B (route: round-robin after A)');
});

test('streamedIsOutput: the streamed reply is the output when it is the same text or JSON equal to it (loom run then prints it once)', () => {
  expect(streamedIsOutput('{"item": "chairs",\n "done": true}', { done: true, item: 'chairs' })).toBe(true);
  expect(streamedIsOutput('  Paris is lovely.\n', 'Paris is lovely.')).toBe(true);
  expect(streamedIsOutput('Pricing your order now.', { item: 'chairs', done: true })).toBe(false);
  expect(streamedIsOutput('{"item": "chairs"}', { item: 'chairs', done: true })).toBe(false);
  expect(streamedIsOutput('Paris', 'Rome')).toBe(false);
});
