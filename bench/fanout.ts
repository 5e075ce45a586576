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
 * BENCH_PROFILE=1 also reads every history of each row (both sides) and prints where the time and
 * the bytes go per member (fanoutProfile in bench/harness.ts).
 */
import { storeBundle } from '../src/activities/blob-store';
import type { CompiledAgent, CompiledBundle } from '../src/compiled/types';
import type { AgentRunResult, RunAgentInput } from '../src/shared/contract';
import { HISTORY_LIMIT, benchMember, bundleDirectWorkflows, directActivities, fanoutProfile, firstActivityPayloads, historiesOf, loadAvg as load, maxHistory, startBenchEnv } from './harness';
import { Worker } from '@temporalio/worker';

const member = (id: string): CompiledAgent => benchMember(id);

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

async function main(): Promise<void> {
  const sizes = (process.env.BENCH_SIZES ?? '10,100,1000,10000').split(',').map(Number);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 200);
  const env = await startBenchEnv('fanout');
  const { client, store } = env;
  const loomWorker = await Worker.create({
    connection: env.native, taskQueue: 'bench-loom', workflowBundle: env.loomWorkflows, activities: env.createActivities(),
    maxConcurrentActivityTaskExecutions: 200, maxConcurrentWorkflowTaskExecutions: 100, maxCachedWorkflows: 2000,
  });
  const directWorker = await Worker.create({
    connection: env.native, taskQueue: 'bench-direct', workflowBundle: await bundleDirectWorkflows(),
    activities: directActivities, maxConcurrentActivityTaskExecutions: 200,
  });
  let peakRss = 0;
  const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 100);
  const running = Promise.all([loomWorker.run(), directWorker.run()]);
  const ref = await storeBundle(store, batchBundle(concurrency));
  const childRef = await storeBundle(store, batchBundle(concurrency, true));
  const childMax = Number(process.env.BENCH_CHILD_MAX ?? 1000);
  const rows: string[] = [];
  const notes: string[] = [];
  const profiling = process.env.BENCH_PROFILE === '1';
  const profiles: Record<string, unknown>[] = [];
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
    const hist = await maxHistory(client, id);
    if (hist.max >= HISTORY_LIMIT) overLimit.push(`agf.batch of ${n} members (${tag}): ${hist.max} events`);
    if (profiling && tag !== 'warm' && tag !== 'warm-child') {
      const histories = await historiesOf(client, id);
      profiles.push({ run: `agentloom ${tag} ${n}`, ...fanoutProfile(histories, n) });
      process.stderr.write(`a member's modelTurn (${tag}):\n${firstActivityPayloads(histories, 'modelTurn')}\n`);
    }
    return { wall, hist, items };
  };
  const runDirect = async (items: unknown[]) => {
    const t1 = Date.now();
    const did = `direct-${items.length}-${Date.now()}`;
    await client.workflow.execute('directFanoutWorkflow', { taskQueue: 'bench-direct', workflowId: did, args: [items, concurrency] });
    const dwall = (Date.now() - t1) / 1000;
    const dh = await client.workflow.getHandle(did).describe();
    if (profiling && items.length > 20) profiles.push({ run: `direct ${items.length}`, ...fanoutProfile(await historiesOf(client, did), items.length) });
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
      const lref = await storeBundle(store, loopBundle(loopN));
      const id = `bench-loop-${loopN}-${Date.now()}`;
      const t0 = Date.now();
      const res = (await client.workflow.execute('agfLoopWorkflow', { taskQueue: 'bench-loom', workflowId: id, args: [{ bundle: lref, agent_id: 'looper', input: 'go' }] })) as AgentRunResult;
      const wall = (Date.now() - t0) / 1000;
      const all = await maxHistory(client, id); // waits for visibility, so the list below is complete too
      let runs = 0;
      let maxLoop = 0;
      for await (const wf of client.workflow.list({ query: `WorkflowId = '${id}'` })) { runs++; maxLoop = Math.max(maxLoop, wf.historyLength ?? 0); }
      if (Math.max(maxLoop, all.max) >= HISTORY_LIMIT) overLimit.push(`agf.loop of ${loopN} iterations: ${Math.max(maxLoop, all.max)} events`);
      loopRow = `agf.loop of ${loopN} iterations: ${wall.toFixed(1)} s, ${runs} executions of the loop workflow (continue-as-new), largest history ${Math.max(maxLoop, all.max)} events; warning: ${res.warnings[0] ?? 'none'}`;
      process.stderr.write(loopRow + '\n');
    }
  } finally {
    clearInterval(sampler);
    process.stdout.write(rows.join('\n') + '\n');
    if (notes.length) process.stdout.write('\n' + notes.join('\n') + '\n');
    if (profiles.length) {
      const cols = Object.keys(profiles[0]);
      process.stdout.write(['', `| ${cols.join(' | ')} |`, `|${cols.map((c, i) => (i ? '---:' : '---')).join('|')}|`, ...profiles.map((p) => `| ${cols.map((c) => String(p[c])).join(' | ')} |`)].join('\n') + '\n');
    }
    if (loopRow) process.stdout.write('\n' + loopRow + '\n');
    if (overLimit.length) {
      process.stdout.write(`\nFAIL: a single execution's history reached ${HISTORY_LIMIT} events: ${overLimit.join('; ')}\n`);
      process.exitCode = 1;
    }
    loomWorker.shutdown();
    directWorker.shutdown();
    await running.catch(() => undefined);
    await env.close();
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
