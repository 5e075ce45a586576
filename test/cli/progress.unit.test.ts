/** `loom run` progress lines (src/operator/progress.ts): a strategies run names its speaker, position and route. */
import { progressLine, streamedIsOutput, treeDecisionLines } from '../../src/operator/progress';
import type { PendingDecision, RunStatus } from '../../src/shared/contract';

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

const member: PendingDecision = {
  kind: 'approval', workflow_id: 'pipe-1/step-2-charge', path: ['step-2-charge'], agent_id: 'charger', call_id: 'call_0_0',
  tool: 'charge_card', arguments: { amount: 40 }, reason: 'policies.require_human_approval', requested_at: '2026-11-26T10:00:00.000Z',
};

test('a decision pending in a member of the tree: said once, with the commands that answer it from the root', () => {
  const announced = new Set<string>();
  const s = status({ pattern: 'agf.sequential', pending_decisions: [member] });
  expect(treeDecisionLines(s, 'pipe-1', announced, true)).toEqual([
    '  waiting on a decision: step-2-charge · charger · approval call_0_0: charge_card {"amount":40} · since 2026-11-26T10:00:00.000Z · policies.require_human_approval',
    '    loom approve pipe-1 step-2-charge:call_0_0   |   loom reject pipe-1 step-2-charge:call_0_0 --reason TEXT',
  ]);
  expect(treeDecisionLines(s, 'pipe-1', announced, true)).toEqual([]);
});

test('the run\'s own approvals and escalation are left to their own lines; its route approvals and hints off', () => {
  const own: PendingDecision = { ...member, workflow_id: 'pipe-1', path: [] };
  const route: PendingDecision = { ...own, kind: 'route_approval', call_id: 'route_3', tool: 'route' };
  const esc: PendingDecision = { ...own, kind: 'escalation', call_id: undefined, queue: 'billing' };
  const lines = treeDecisionLines(status({ pending_decisions: [own, esc, route] }), 'pipe-1', new Set(), false);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^  waiting on a decision: \(this run\) · charger · route approval route_3: route/);
});
