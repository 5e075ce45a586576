/**
 * Vendor execution policies written in code and registered through AgentloomPlugin's `policies`
 * (src/plugin/agentloom-plugin.ts): the example policy module (examples/orchestrators/vendor/
 * fallback-policy.ts) registered under an id the core has never known runs an agent that names it,
 * compiled by the plugin's own compile (which knows the id); the example registry's fallback-chain
 * runs with the example's registration; an id no worker registers fails the run naming it and the
 * worker's registered ids.
 */
import { Worker } from '@temporalio/worker';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { connectTestTemporal, type TestTemporal } from '../helpers/temporal';
import { agentDefinitions, Definitions, scripted } from '../helpers/definitions';
import { AgentloomPlugin } from '../../src/plugin/agentloom-plugin';
import { prepareCompiled, startPrepared } from '../../src/operator/runs';
import type { AgentRunResult } from '../../src/shared/contract';
import type { CompiledBundle } from '../../src/compiled/types';

const ROOT = path.resolve(__dirname, '..', '..');
const VENDOR = path.join(ROOT, 'examples', 'orchestrators', 'vendor');
const POLICY = path.join(VENDOR, 'fallback-policy.ts');

const saved = ['LOOM_STORE_DIR', 'LOOM_WORKFLOWS_PATH', 'LOOM_WORKFLOW_BUNDLE'].map((k) => [k, process.env[k]] as const);
let t: TestTemporal;
let home: string;
let defs: Definitions;
beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-policies-'));
  process.env.LOOM_STORE_DIR = path.join(home, 'store');
  delete process.env.LOOM_WORKFLOWS_PATH;
  t = await connectTestTemporal('library-policies');
  defs = new Definitions();
  defs.addAll(agentDefinitions({ agent_id: 'first', model: scripted({ turns: [{ content: 'first answered' }] }, 'first-model') }));
  defs.addAll(agentDefinitions({ agent_id: 'second', model: scripted({ turns: [{ content: 'second answered' }] }, 'second-model') }));
  defs.addAll(agentDefinitions({
    agent_id: 'chain', model: scripted({ turns: [{ content: 'unused' }] }, 'chain-model'),
    front: { execution_policy: { id: 'x-example.fallback', config: { order: ['b', 'a'] } }, local_agents: [{ alias: 'a', agent_ref: 'first' }, { alias: 'b', agent_ref: 'second' }] },
  }));
  defs.addAll(agentDefinitions({ agent_id: 'mystery', model: scripted({ turns: [{ content: 'unused' }] }, 'mystery-model'), front: { execution_policy: { id: 'x-acme.none', config: {} } } }));
});
afterAll(async () => {
  await t?.close();
  defs?.remove();
  for (const [k, v] of saved) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  fs.rmSync(home, { recursive: true, force: true });
});

async function start(bundle: CompiledBundle, agent: string) {
  return startPrepared(t.client, await prepareCompiled(bundle, agent, () => 'q'), t.taskQueue);
}

test('policies registered through the plugin run; the plugin compiles agents naming them; an unregistered id fails naming it', async () => {
  const plugin = new AgentloomPlugin({ policies: { 'x-example.fallback': POLICY, 'x-agentloom.fallback': POLICY }, dataConverter: null });
  // The plugin's compile knows its ids: the agent naming one compiles, one naming another does not.
  const chain = plugin.compile(defs.dir, 'chain');
  expect(chain.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const refused = plugin.compile(defs.dir, 'mystery');
  expect(refused.bundle).toBeUndefined();
  expect(refused.diagnostics.map((d) => d.message).join('\n')).toMatch(/`x-acme\.none` is not registered by the worker.*registered: x-agentloom\.fallback, x-example\.fallback/);
  const example = plugin.compile(VENDOR, 'fallback-chain');
  expect(example.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  // The unregistered one, compiled without the worker's policies (a warning defers the check to the run).
  const mystery = defs.compile('mystery');

  const worker = await Worker.create({ connection: t.nativeConnection, namespace: 'default', taskQueue: t.taskQueue, plugins: [plugin] });
  await worker.runUntil(async () => {
    // config.order tries b (second) first: the example policy's own reading of its config.
    const res = (await (await start(chain.bundle!, 'chain')).result()) as AgentRunResult;
    expect(res.output).toBe('second answered');
    const ex = (await (await start(example.bundle!, 'fallback-chain')).result()) as AgentRunResult;
    expect(typeof ex.output).toBe('string');
    const failed = await (await start(mystery, 'mystery')).result().then(() => undefined, (e: Error) => e);
    const text = [failed?.message, (failed?.cause as Error | undefined)?.message].join(' ');
    expect(text).toMatch(/execution policy 'x-acme\.none' is not implemented by this worker \(registered vendor policies: x-agentloom\.fallback, x-example\.fallback\)/);
  });
});
