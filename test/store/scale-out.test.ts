/**
 * Scale-out proof (issue 12 point 2): a real PostgreSQL started by the test is the only thing two
 * worker processes and the client share — each worker has its own working folder and LOOM_HOME,
 * the CLI a third one, no folder is shared but the ledger the side-effecting tool writes (outside
 * all three). 20 runs (18 single agents, an agf.parallel fan-out of three, and one waiting for a
 * tool approval given by `loom approve` from the third folder) complete while one worker is
 * SIGKILLed mid-way, and every ledger_append takes effect exactly once.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { CompiledAgent, CompiledTool } from '../../src/compiled/types';
import type { RunStatus } from '../../src/shared/contract';
import { connectTestTemporal, temporalAddress, TestTemporal } from '../helpers/temporal';
import { startTestPostgres, TestPostgres } from '../helpers/postgres';
import { killAllWorkers, readEffects, readMarkers, spawnWorker, until } from '../helpers/spawn-worker';
import { spawnCli, userEnv } from '../cli/harness';
import { agent, builtinTool, scriptedModel } from '../runtime/builders';
import { agent as member, bundle, locals } from '../orchestration/builders';
import { storeBundle } from '../../src/activities/blob-store';
import { closeOpenStores, openStore } from '../../src/store';

jest.setTimeout(600_000);

const SAVED = ['LOOM_STORE_URL', 'LOOM_STORE_DIR'].map((k) => [k, process.env[k]] as const);
let pg: TestPostgres;
let url: string;
let T: TestTemporal;
const tmp = (p: string) => fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), p));

beforeAll(async () => {
  pg = await startTestPostgres('loom-scale');
  url = await pg.urlFor('loomstore');
  process.env.LOOM_STORE_URL = url; // this process is the client: bundles go to PostgreSQL
  T = await connectTestTemporal('scale-out');
});
afterAll(async () => {
  await killAllWorkers();
  await T?.close();
  await closeOpenStores();
  pg?.destroy();
  for (const [k, v] of SAVED) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

function ledgerTool(over: Partial<CompiledTool> = {}): CompiledTool {
  return builtinTool('ledger_append', {
    input_schema: { type: 'object', properties: { account: { type: 'string' }, amount: { type: 'number' } }, required: ['account', 'amount'], additionalProperties: false },
    side_effects: true,
    ...over,
  });
}

function payer(id: string, account: string, amount: number, over: Partial<CompiledTool> = {}): CompiledAgent {
  const a = agent({
    agent_id: id,
    model: scriptedModel({ turns: [{ tool_calls: [{ id: `${id}-c1`, name: 'ledger_append', arguments: { account, amount } }] }, { content: `${id}: {{last_tool_result}}` }] }),
    tools: [ledgerTool(over)],
  });
  a.runtime = { ...a.runtime, timeout_seconds: 600 };
  return a;
}

test('two workers in their own folders, PostgreSQL the only shared store, one SIGKILLed mid-way: 20 runs, every effect once', async () => {
  const taskQueue = `scale-out-${randomUUID()}`;
  const ledger = tmp('scale-ledger-');
  const homes = { a: tmp('scale-worker-a-'), b: tmp('scale-worker-b-'), cli: tmp('scale-cli-') };
  const workerEnv = (home: string) => ({ LOOM_STORE_URL: url, LOOM_HOME: path.join(home, '.loom') });
  // LOOM_STORE_URL wins over the folder spawnWorker names; the folder must never appear.
  const folderStores = [path.join(homes.a, 'store'), path.join(homes.b, 'store')];
  const wA = await spawnWorker({ taskQueue, ledgerDir: ledger, name: 'wA', cwd: homes.a, env: workerEnv(homes.a), storeDir: folderStores[0], blockSeconds: 600, readyTimeoutMs: 240_000 });
  const wB = await spawnWorker({ taskQueue, ledgerDir: ledger, name: 'wB', cwd: homes.b, env: workerEnv(homes.b), storeDir: folderStores[1], readyTimeoutMs: 240_000 });

  const store = openStore();
  const handles: Array<{ h: WorkflowHandle; keys: string[] }> = [];
  for (let i = 0; i < 18; i++) {
    const id = `payer-${i}`;
    const ref = await storeBundle(store, bundle(id, [payer(id, `acct-${i}`, i + 1)]));
    const h = await T.client.workflow.start('agfReactWorkflow', { taskQueue, workflowId: `${id}-${randomUUID().slice(0, 6)}`, args: [{ bundle: ref, agent_id: id, input: 'pay' }] });
    handles.push({ h, keys: [`${h.workflowId}/${id}-c1`] });
  }
  const fanRef = await storeBundle(store, bundle('fan', [
    member({ id: 'fan', policy: { id: 'agf.parallel', config: { agents: [{ agent: 'fan-1' }, { agent: 'fan-2' }, { agent: 'fan-3' }], output_from: 'merge' } }, local_agents: locals('fan-1', 'fan-2', 'fan-3') }),
    payer('fan-1', 'fan', 100), payer('fan-2', 'fan', 200), payer('fan-3', 'fan', 300),
  ]));
  const fan = await T.client.workflow.start('agfParallelWorkflow', { taskQueue, workflowId: `fan-${randomUUID().slice(0, 6)}`, args: [{ bundle: fanRef, agent_id: 'fan', input: 'pay all' }] });
  const approvalRef = await storeBundle(store, bundle('approved-payer', [payer('approved-payer', 'acct-approved', 7, { approval_required: true })]));
  const approval = await T.client.workflow.start('agfReactWorkflow', { taskQueue, workflowId: `approved-${randomUUID().slice(0, 6)}`, args: [{ bundle: approvalRef, agent_id: 'approved-payer', input: 'pay after approval' }] });
  handles.push({ h: approval, keys: [`${approval.workflowId}/approved-payer-c1`] });

  // Mid-way: worker A has applied some effects and holds those calls (it blocks after applying) when it is killed.
  await until(() => (readEffects(ledger).filter((e) => e.worker === 'wA').length >= 2 ? true : undefined), `worker A to apply effects:\n${wA.output()}`, 120_000);
  await wA.kill();
  expect(await wA.exited).toEqual({ code: null, signal: 'SIGKILL' });

  // The approval, from a third folder through the CLI, with only TEMPORAL_ADDRESS and LOOM_STORE_URL.
  await until(async () => ((await approval.query<RunStatus>('status')).pending_approvals.length === 1 ? true : undefined), 'the approval to be pending', 120_000);
  const ok = await spawnCli(['approve', approval.workflowId, 'approved-payer-c1'], userEnv({ TEMPORAL_ADDRESS: temporalAddress(), LOOM_TASK_QUEUE: taskQueue, LOOM_STORE_URL: url, LOOM_HOME: path.join(homes.cli, '.loom') }), homes.cli).done;
  expect({ code: ok.code, err: ok.err }).toEqual({ code: 0, err: expect.any(String) });

  const results = await Promise.all([...handles.map((x) => x.h.result()), fan.result()]);
  expect(results).toHaveLength(20);
  for (const [i, r] of results.slice(0, 18).entries()) expect((r as { output: string }).output).toMatch(new RegExp(`^payer-${i}: appended ${i + 1} to acct-${i}; balance ${i + 1}$`));
  expect((results[18] as { output: string }).output).toBe('approved-payer: appended 7 to acct-approved; balance 7');
  expect(Object.keys((results[19] as { output: Record<string, string> }).output).sort()).toEqual(['fan-1', 'fan-2', 'fan-3']);

  // Every side effect exactly once: 18 + 1 single-agent calls and the fan-out's three.
  const effects = readEffects(ledger);
  const perKey = new Map<string, number>();
  for (const e of effects) perKey.set(e.key, (perKey.get(e.key) ?? 0) + 1);
  expect(effects).toHaveLength(22);
  expect([...perKey.values()].every((n) => n === 1)).toBe(true);
  for (const { keys } of handles) for (const k of keys) expect(perKey.get(k)).toBe(1);
  expect(effects.filter((e) => e.account === 'fan').map((e) => e.amount).sort()).toEqual([100, 200, 300]);
  // Calls worker A held when it died were retried on B and found their effect already applied.
  const markers = readMarkers(ledger);
  expect(markers.some((m) => m.kind === 'effect-deduplicated' && m.worker === 'wB')).toBe(true);
  expect(effects.some((e) => e.worker === 'wB')).toBe(true);

  // Nothing went to a folder: no store under either worker's folder or the CLI's.
  for (const d of folderStores) expect(fs.existsSync(d)).toBe(false);
  for (const home of Object.values(homes)) expect(fs.existsSync(path.join(home, '.loom', 'store'))).toBe(false);
  expect(wB.alive()).toBe(true);
});
