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

test('`loom validate examples` (a folder of registries) reports no error, and no warning but AGL030 (declared, not yet enforced) and AGL060/AGL061 (code the worker registers, checked by it)', async () => {
  const { validatePaths } = await import('../../src/compiler');
  const examples = path.resolve(__dirname, '..', '..', 'examples');
  // AGL030 is the honest note on fields the examples show off before the runtime acts on them
  // (observability, memory, …); any other finding in an example is a mistake in the example.
  // AGL060/AGL061: tools and vendor policies written in code, which a validate without the worker's
  // code cannot check (the plugin's compile does): exactly the examples' code tools and policy.
  const all = validatePaths([examples]);
  expect(all.filter((d) => !['AGL030', 'AGL060', 'AGL061'].includes(d.code)).map((d) => `${d.file}:${d.line} ${d.code} ${d.message}`)).toEqual([]);
  expect(all.filter((d) => d.code === 'AGL060' || d.code === 'AGL061').map((d) => `${path.basename(d.file)} ${d.code} ${/`([^`]+)`/.exec(d.message)?.[1]}`).sort()).toEqual([
    'fallback-chain.agent.md AGL061 x-agentloom.fallback',
    'order-desk.agent.md AGL060 lookup_order',
    'refund-desk.agent.md AGL060 refund_order',
  ]);
  expect(all.some((d) => d.code === 'AGL030')).toBe(true);
  // It does look inside every registry: a broken copy of the demo next to a good one is reported.
  const fs = await import('fs');
  const os = await import('os');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-regs-'));
  fs.cpSync(path.join(examples, 'demo'), path.join(tmp, 'good'), { recursive: true });
  fs.cpSync(path.join(examples, 'demo'), path.join(tmp, 'nested', 'bad'), { recursive: true });
  const agentFile = path.join(tmp, 'nested', 'bad', 'agents', 'trip-planner.agent.md');
  fs.writeFileSync(agentFile, fs.readFileSync(agentFile, 'utf8').replace('model: trip-planner-model', 'model: no-such-model'));
  const ds = validatePaths([tmp]);
  const errors = ds.filter((d) => d.severity === 'error');
  expect(errors.map((d) => d.code)).toEqual(['AGF014']);
  expect(errors[0].file).toContain(path.join('nested', 'bad', 'agents', 'trip-planner.agent.md'));
  fs.rmSync(tmp, { recursive: true, force: true });
});
