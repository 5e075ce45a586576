/** Every examples/orchestrators registry compiles (one runnable orchestrator per policy and pattern). */
import * as path from 'path';
import { compileBundle } from '../../src/compiler';
import { workflowTypeFor } from '../../src/shared/dispatch';

const ROOT = path.resolve(__dirname, '..', '..', 'examples', 'orchestrators');
const EXAMPLES: [string, string, string][] = [
  ['sequential', 'pipeline', 'agfSequentialWorkflow'],
  ['parallel', 'weekend-planner', 'agfParallelWorkflow'],
  ['loop', 'refiner', 'agfLoopWorkflow'],
  ['batch', 'item-batcher', 'agfBatchWorkflow'],
  ['conditional', 'language-router', 'agfConditionalWorkflow'],
  ['vendor', 'fallback-chain', 'vendorPolicyWorkflow'],
  ['graph', 'support-triage', 'graphWorkflow'],
  ['swarm', 'swarm-lead', 'swarmWorkflow'],
  ['workflow', 'quarterly-analysis', 'taskDagWorkflow'],
  ['steps', 'contract-review', 'stepsWorkflow'],
];

test.each(EXAMPLES)('examples/orchestrators/%s (%s) compiles and dispatches to %s', (dir, root, type) => {
  const { bundle, diagnostics } = compileBundle(path.join(ROOT, dir), root);
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(bundle).toBeDefined();
  expect(workflowTypeFor(bundle!.agents[root])).toBe(type);
});
