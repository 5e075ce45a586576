import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { compileBundle } from '../../src/compiler';
import { BODY, baseAgent, tempRegistry } from './helpers';

function graphAgent(edgeOn: unknown) {
  const reg = tempRegistry();
  const a = baseAgent('pay-graph');
  a.orchestration = { pattern: { type: 'graph', nodes: [{ id: 'charge', agent_ref: 'plain-agent' }, { id: 'desk', agent_ref: 'plain-agent' }], edges: [{ from: '$self', to: 'charge' }, { from: 'charge', to: 'desk', on: edgeOn }] } };
  fs.writeFileSync(path.join(reg, 'agents', 'pay-graph.agent.md'), `---\n${YAML.stringify(a)}---\n${BODY}`);
  return compileBundle(reg, 'pay-graph');
}

test('an error edge (`on: error`) compiles into the graph pattern', () => {
  const { bundle, diagnostics } = graphAgent('error');
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const p = bundle!.agents['pay-graph'].orchestration.pattern as { edges: unknown[] };
  expect(p.edges).toEqual([{ from: '$self', to: 'charge' }, { from: 'charge', to: 'desk', on: 'error' }]);
});

test('any other `on` value is refused with the allowed one', () => {
  const { bundle, diagnostics } = graphAgent('failure');
  expect(bundle).toBeUndefined();
  const d = diagnostics.find((x) => x.field === 'orchestration.pattern.edges[1].on');
  expect(d?.severity).toBe('error');
  expect(d?.message).toMatch(/error/);
});
