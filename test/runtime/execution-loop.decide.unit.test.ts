/**
 * `decide` with `tool` (seed 003 call replacement through the tree-wide update): the payload check
 * and which pending decisions may be replaced by what. Pure (src/runtime/decisions.ts).
 */
import { decideArgsProblem, replacementProblem } from '../../src/runtime/decisions';
import type { PendingDecision } from '../../src/shared/contract';

const pending = (over: Partial<PendingDecision> = {}): PendingDecision => ({
  kind: 'approval', workflow_id: 'w-1', path: ['step-1-pay'], agent_id: 'payer', call_id: 'c1', tool: 'charge', arguments: {}, reason: 'approval_required', requested_at: '2026-01-01T00:00:00.000Z', ...over,
});

test('a decide payload with tool must name a tool', () => {
  expect(decideArgsProblem({ ref: 'c1', decision: 'approve', tool: 'refund' })).toBeUndefined();
  expect(decideArgsProblem({ ref: 'c1', decision: 'approve', tool: '' })).toMatch(/"tool" must name one of the holding agent's tools/);
  expect(decideArgsProblem({ ref: 'c1', decision: 'approve', tool: 3 as unknown as string })).toMatch(/"tool" must name/);
});

test('only a pending registry-tool call is replaced, and only by a tool of the agent holding it', () => {
  const tools = ['charge', 'refund'];
  expect(replacementProblem(pending(), 'refund', tools)).toBeUndefined();
  expect(replacementProblem(pending(), 'wire', tools)).toBe("cannot replace step-1-pay:c1 with 'wire': not a tool of payer; use one of charge, refund");
  expect(replacementProblem(pending({ tool: 'delegate_to_agent' }), 'refund', tools)).toBe("step-1-pay:c1 (delegate_to_agent) cannot be replaced: only calls of the agent's registry tools can (approve or reject it)");
  expect(replacementProblem(pending({ kind: 'route_approval', tool: 'route' }), 'refund', tools)).toBe('step-1-pay:c1 is a route approval: only a pending tool call can be replaced (approve or reject it)');
});
