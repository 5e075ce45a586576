/**
 * `npm run bench:fanout`: an agf.batch fan-out of 10, 100, 1,000 and 10,000 members (scripted
 * zero-latency model) on an embedded Temporal dev server, printing wall time, runs/s, ms per
 * member, the largest history of any single execution and the worker's peak RSS; then the same
 * fan-out hand-written directly on Temporal activities in the same run, and the ratio. Members are
 * plain single-turn agents, so they run inline in the batch/shard (patch
 * `inline-single-turn-members`); up to BENCH_CHILD_MAX members (default 1000) the same batch also
 * runs with its members as child workflows (the member with a runtime.timeout_seconds that never
 * fires, which keeps it a child: the cost before the inline path), for comparison in the same run.
 * Each row prints the load average when it finished (the machine may be shared).
 * BENCH_SIZES=10,100 overrides the sizes; BENCH_CONCURRENCY (default 200) bounds member
 * concurrency; BENCH_LOOP (default 2000, 0 = skip) the agf.loop iterations. Exits non-zero (after
 * printing the table) when any single Agentloom execution's history reached HISTORY_LIMIT events
 * (Temporal's 10,240-event warning); the hand-written direct baseline is not checked.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, Runtime, DefaultLogger, bundleWorkflowCode } from '@temporalio/worker';
import { startDevServer, PROJECT_ROOT } from '../src/server/dev-server';
import { FileBlobStore, storeBundle } from '../src/activities/blob-store';
import type { CompiledAgent, CompiledBundle } from '../src/compiler/types';
import type { AgentRunResult, RunAgentInput } from '../src/shared/contract';

/** Temporal warns at this history length; no single Agentloom execution may reach it. */
const HISTORY_LIMIT = 10_240;

function member(id: string): CompiledAgent {
  return {
    agent_id: id, version: '1.0.0', spec_version: '1.0', status: 'active', meta: { name: id },
    instructions: '# Purpose\nProcess one item.', sections: [{ name: 'Purpose', text: 'Process one item.' }],
    runtime: { model: { model_id: 'zero', version: '1', status: 'active', provider: 'scripted', scripted: { turns: [{ content: 'done' }], latency_ms: 0 } }, max_turns: 2 },
    interface: { input: { schema: {}, examples: [] }, output: { schema: {} } },
    tools: { tool_choice: 'auto', refs: [] }, knowledge: { refs: [] },
    memory: { mode: 'none', read_collections: [], write_collections: [] },
    artifacts: { enabled: false, save_input: false, save_output: false, save_intermediate: false, retention_class: 'standard' },
    policies: { pii_redaction: false, allow_external_http: false, require_human_approval: false, blocked_content: [], allowed_connectors: [], audit_level: 'standard' },
    guardrails: { input: [], tool_input: [], tool_output: [], output: [], tool_calls: { require_user_confirmation_for: [], block_tools_on_input_fail: false } },
    orchestration: { can_delegate: false, allowed_delegates: [], can_be_invoked_as_tool: true, escalation: [] },
    execution_policy: { id: 'agf.react', config: {} }, local_agents: [], content_hash: id,
  };
}

function loopBundle(iterations: number): CompiledBundle {
  const root: CompiledAgent = {
    ...member('looper'),
    execution_policy: { id: 'agf.loop', config: { steps: [{ agent: 'worker' }], max_iterations: iterations } },
    local_agents: [{ alias: 'worker', agent_ref: 'item-worker' }],
  };
  return { format: 'agentloom.compiled/v1', root: 'looper', agents: { looper: root, 'item-worker': member('item-worker') }, content_hash: 'bench-loop' };
}

/** The batch; `childMembers`: the member keeps a deadline (never reached), which makes it run as a child workflow. */
function batchBundle(concurrency: number, childMembers = false): CompiledBundle {
  const root: CompiledAgent = {
    ...member('fanout'),
    execution_policy: { id: 'agf.batch', config: { agent: 'worker', input_mapping: { item: 'parent.input.items.[]' }, max_concurrency: concurrency } },
    local_agents: [{ alias: 'worker', agent_ref: 'item-worker' }],
  };
  const worker = member('item-worker');
  if (childMembers) worker.runtime = { ...worker.runtime, timeout_seconds: 3600 };
  return { format: 'agentloom.compiled/v1', root: 'fanout', agents: { fanout: root, 'item-worker': worker }, content_hash: childMembers ? 'bench-child' : 'bench' };
}

const load = (): string => os.loadavg()[0].toFixed(1);

async function maxHistory(client: Client, prefix: string): Promise<{ max: number; executions: number }> {
  let max = 0;
  let executions = 0;
  for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH '${prefix}'` })) {
    executions++;
    max = Math.max(max, wf.historyLength ?? 0);
  }
  return { max, executions };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const sizes = (process.env.BENCH_SIZES ?? '10,100,1000,10000').split(',').map(Number);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 200);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-'));
  process.env.LOOM_STORE_DIR = path.join(dir, 'store');
  const server = await startDevServer({ dbFile: path.join(dir, 'temporal.sqlite'), headless: true, fastSqlite: true, logFile: path.join(dir, 'temporal.log') });
  const native = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const { createActivities } = await import('../src/activities');
  process.stderr.write('bundling workflows…\n');
  const loomBundle = await bundleWorkflowCode({ workflowsPath: path.join(PROJECT_ROOT, 'src', 'workflows', 'index.ts'), logger: new DefaultLogger('ERROR') as never });
  const directBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('./fanout-direct-workflows'), logger: new DefaultLogger('ERROR') as never });
  const loomWorker = await Worker.create({
    connection: native, taskQueue: 'bench-loom', workflowBundle: loomBundle, activities: createActivities(),
    maxConcurrentActivityTaskExecutions: 200, maxConcurrentWorkflowTaskExecutions: 100, maxCachedWorkflows: 2000,
  });
  const directWorker = await Worker.create({
    connection: native, taskQueue: 'bench-direct', workflowBundle: directBundle,
    activities: { async zeroLatencyModel(item: unknown) { return `done ${JSON.stringify(item).length}`; } },
    maxConcurrentActivityTaskExecutions: 200,
  });
  let peakRss = 0;
  const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 100);
  const running = Promise.all([loomWorker.run(), directWorker.run()]);
  const ref = await storeBundle(new FileBlobStore(), batchBundle(concurrency));
  const childRef = await storeBundle(new FileBlobStore(), batchBundle(concurrency, true));
  const childMax = Number(process.env.BENCH_CHILD_MAX ?? 1000);
  const rows: string[] = [];
  const notes: string[] = [];
  let loopRow = '';
  /** Agentloom executions whose largest history reached HISTORY_LIMIT: `what: events`. */
  const overLimit: string[] = [];
  /** ms per member of the inline path, by size (for the 1,000 vs 10,000 comparison). */
  const perMember = new Map<number, number>();
  rows.push('| members | members run as | agentloom wall s | ms/member | runs/s | largest history (events) | executions | direct wall s | direct runs/s | direct history | ratio | worker peak RSS MiB | load (1 min) |');
  rows.push('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const runBatch = async (n: number, bundleRef: typeof ref, tag: string) => {
    const items = Array.from({ length: n }, (_, i) => ({ n: i }));
    const id = `bench-${tag}-${n}-${Date.now()}`;
    const t0 = Date.now();
    const input: RunAgentInput = { bundle: bundleRef, agent_id: 'fanout', input: { items } };
    const res = (await client.workflow.execute('agfBatchWorkflow', { taskQueue: 'bench-loom', workflowId: id, args: [input] })) as AgentRunResult;
    const wall = (Date.now() - t0) / 1000;
    const failed = (res.output as unknown[]).filter((x) => x === null).length;
    if (failed) notes.push(`${n} members (${tag}): ${failed} failed items`);
    await new Promise((r) => setTimeout(r, 1500)); // visibility catches up
    const hist = await maxHistory(client, id);
    if (hist.max >= HISTORY_LIMIT) overLimit.push(`agf.batch of ${n} members (${tag}): ${hist.max} events`);
    return { wall, hist, items };
  };
  const runDirect = async (items: unknown[]) => {
    const t1 = Date.now();
    const did = `direct-${items.length}-${Date.now()}`;
    await client.workflow.execute('directFanoutWorkflow', { taskQueue: 'bench-direct', workflowId: did, args: [items, concurrency] });
    const dwall = (Date.now() - t1) / 1000;
    const dh = await client.workflow.getHandle(did).describe();
    return { dwall, dhist: dh.historyLength };
  };
  try {
    // Warm-up: worker caches and the server's first tasks are not part of any measured row.
    process.stderr.write('warm-up…\n');
    await runBatch(20, ref, 'warm');
    await runBatch(20, childRef, 'warm-child');
    await runDirect(Array.from({ length: 20 }, (_, i) => ({ n: i })));
    for (const n of sizes) {
      const kinds: { tag: string; label: string; ref: typeof ref }[] = [{ tag: 'inline', label: 'inline (activities of the batch/shard)', ref }];
      if (n <= childMax) kinds.push({ tag: 'child', label: 'child workflows (before)', ref: childRef });
      for (const kind of kinds) {
        peakRss = process.memoryUsage().rss;
        const { wall, hist, items } = await runBatch(n, kind.ref, kind.tag);
        // The direct baseline runs right after each Agentloom batch, so both see the same load.
        const { dwall, dhist } = await runDirect(items);
        if (kind.tag === 'inline') perMember.set(n, (wall * 1000) / n);
        rows.push(`| ${n} | ${kind.label} | ${wall.toFixed(2)} | ${((wall * 1000) / n).toFixed(1)} | ${(n / wall).toFixed(1)} | ${hist.max} | ${hist.executions} | ${dwall.toFixed(2)} | ${(n / dwall).toFixed(1)} | ${dhist} | ${(wall / dwall).toFixed(1)}x | ${(peakRss / 1048576).toFixed(0)} | ${load()} |`);
        process.stderr.write(`${n} ${kind.tag}: ${wall.toFixed(2)} s (direct ${dwall.toFixed(2)} s, load ${load()})\n`);
      }
    }
    const sorted = [...perMember.keys()].sort((a, b) => a - b);
    for (const n of sorted.slice(1)) {
      const k = sorted.find((m) => m >= 1000 && m < n) ?? sorted[0];
      if (k === n) continue;
      notes.push(`ms per member (inline) at ${n} / at ${k}: ${((perMember.get(n) ?? 0) / (perMember.get(k) ?? 1)).toFixed(2)}x`);
    }
    const loopN = Number(process.env.BENCH_LOOP ?? 2000);
    if (loopN > 0) {
      const lref = await storeBundle(new FileBlobStore(), loopBundle(loopN));
      const id = `bench-loop-${loopN}-${Date.now()}`;
      const t0 = Date.now();
      const res = (await client.workflow.execute('agfLoopWorkflow', { taskQueue: 'bench-loom', workflowId: id, args: [{ bundle: lref, agent_id: 'looper', input: 'go' }] })) as AgentRunResult;
      const wall = (Date.now() - t0) / 1000;
      await new Promise((r) => setTimeout(r, 1500));
      let runs = 0;
      let maxLoop = 0;
      for await (const wf of client.workflow.list({ query: `WorkflowId = '${id}'` })) { runs++; maxLoop = Math.max(maxLoop, wf.historyLength ?? 0); }
      const all = await maxHistory(client, id);
      if (Math.max(maxLoop, all.max) >= HISTORY_LIMIT) overLimit.push(`agf.loop of ${loopN} iterations: ${Math.max(maxLoop, all.max)} events`);
      loopRow = `agf.loop of ${loopN} iterations: ${wall.toFixed(1)} s, ${runs} executions of the loop workflow (continue-as-new), largest history ${Math.max(maxLoop, all.max)} events; warning: ${res.warnings[0] ?? 'none'}`;
      process.stderr.write(loopRow + '\n');
    }
  } finally {
    clearInterval(sampler);
    process.stdout.write(rows.join('\n') + '\n');
    if (notes.length) process.stdout.write('\n' + notes.join('\n') + '\n');
    if (loopRow) process.stdout.write('\n' + loopRow + '\n');
    if (overLimit.length) {
      process.stdout.write(`\nFAIL: a single execution's history reached ${HISTORY_LIMIT} events: ${overLimit.join('; ')}\n`);
      process.exitCode = 1;
    }
    loomWorker.shutdown();
    directWorker.shutdown();
    await running.catch(() => undefined);
    await native.close();
    await connection.close();
    await server.stop();
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
