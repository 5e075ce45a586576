import { GraphScheduler, SELF } from '../../src/orchestration/graph';
import type { GraphPattern } from '../../src/compiled/types';

const pattern = (edges: GraphPattern['edges']): Pick<GraphPattern, 'nodes' | 'edges'> => ({
  nodes: [{ id: 'charge', agent_ref: 'a' }, { id: 'refund-desk', agent_ref: 'b' }, { id: 'notify', agent_ref: 'c' }, { id: 'audit', agent_ref: 'd' }],
  edges,
});

test('an error edge is traversed only when its source fails, handing the target {error, node}', () => {
  const g = new GraphScheduler(pattern([
    { from: SELF, to: 'charge' },
    { from: 'charge', to: 'notify' },
    { from: 'charge', to: 'refund-desk', on: 'error' },
  ]));
  g.markRunning(SELF);
  expect(g.complete(SELF, 'go', 'in')).toEqual(['charge']);
  g.markRunning('charge');
  expect(g.hasErrorEdges('charge')).toBe(true);
  expect(g.failInto('charge', 'failed: card declined', 'in')).toEqual(['refund-desk']);
  expect(g.readyNodes()).toEqual(['refund-desk']);
  expect(g.inputsFor('refund-desk')).toEqual({ charge: { error: 'failed: card declined', node: 'charge' } });
  expect(g.node('notify').status).toBe('idle'); // the success edge was not taken
  g.markRunning('refund-desk');
  expect(g.complete('refund-desk', 'refunded', 'in')).toEqual([]);
  expect(g.output()).toBe('refunded'); // the failed node is not a sink
});

test('a completing source never takes its error edges; error edges do not make joins wait', () => {
  const g = new GraphScheduler(pattern([
    { from: SELF, to: 'charge' },
    { from: 'charge', to: 'notify' },
    { from: 'charge', to: 'audit', on: 'error' },
    { from: 'notify', to: 'audit' },
  ]));
  g.markRunning(SELF);
  g.complete(SELF, 'go', 'in');
  g.markRunning('charge');
  expect(g.complete('charge', 'ok', 'in')).toEqual(['notify']);
  expect(g.node('audit').status).toBe('idle');
  g.markRunning('notify');
  expect(g.complete('notify', 'sent', 'in')).toEqual(['audit']);
  expect(g.readyNodes()).toEqual(['audit']);
  expect(g.inbound.audit).toEqual(['notify']);
  expect(g.backEdges.size).toBe(0);
});

test('error edge conditions see the failure as `result`; none holding leaves the failure to escalation', () => {
  const g = new GraphScheduler(pattern([
    { from: SELF, to: 'charge' },
    { from: 'charge', to: 'refund-desk', on: 'error', condition: "result_contains('declined')" },
  ]));
  g.markRunning(SELF);
  g.complete(SELF, 'go', 'in');
  g.markRunning('charge');
  expect(g.failInto('charge', 'timed out after node_timeout (5s)', 'in')).toEqual([]);
  expect(g.node('charge').status).toBe('failed');
  expect(g.readyNodes()).toEqual([]);
});
