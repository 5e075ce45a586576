/**
 * `npm run bench:mapreduce`: a seed 002 `mapreduce` strategy (Splitter → Mapper per item →
 * Reducer, scripted zero-latency models) over 1,000 and 5,000 items on an embedded Temporal dev
 * server: wall time, ms per item, the largest history of any single execution (the run, its map
 * shards and their continue-as-new runs) and how many executions there were; then the same map
 * hand-written directly on Temporal activities in the same run (bench/fanout-direct-workflows.ts),
 * and the ratio. The mapper is a plain single-turn agent, so it runs inline in the run / its shards.
 * BENCH_SIZES=1000,5000 overrides the sizes; BENCH_CONCURRENCY (default 200) is MaxConcurrency.
 * Exits non-zero (after printing the table) when any execution's history reached 10,240 events.
 */
import { Worker } from '@temporalio/worker';
import { storeBundle } from '../src/activities/blob-store';
import type { CompiledAgent, CompiledBundle } from '../src/compiled/types';
import type { AgentRunResult, RunAgentInput } from '../src/shared/contract';
import { HISTORY_LIMIT, benchMember as member, bundleDirectWorkflows, directActivities, loadAvg as load, maxHistory, startBenchEnv } from './harness';

/** The splitter answers `{"items": [...n items]}` (a string, so the output schema stays open). */
function mapReduceBundle(n: number, concurrency: number): CompiledBundle {
  const items = Array.from({ length: n }, (_, i) => `item ${i + 1}`);
  const root: CompiledAgent = {
    ...member('mr', 'unused'),
    orchestration: {
      can_delegate: false, allowed_delegates: [], can_be_invoked_as_tool: true, escalation: [],
      pattern: {
        type: 'strategies',
        agents: [{ name: 'Splitter', agent_id: 'splitter' }, { name: 'Mapper', agent_id: 'mapper' }, { name: 'Reducer', agent_id: 'reducer' }],
        config: { Selection: { Type: 'mapreduce', MapReduce: { Splitter: 'Splitter', Mapper: 'Mapper', Reducer: 'Reducer', MaxConcurrency: concurrency } } },
      },
    },
  };
  return {
    format: 'agentloom.compiled/v1', root: 'mr', content_hash: `bench-mr-${n}`,
    agents: { mr: root, splitter: member('splitter', JSON.stringify({ items })), mapper: member('mapper', 'done'), reducer: member('reducer', 'reduced') },
  };
}

async function main(): Promise<void> {
  const sizes = (process.env.BENCH_SIZES ?? '1000,5000').split(',').map(Number);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 200);
  const env = await startBenchEnv('mr');
  const { client, store } = env;
  const loomWorker = await Worker.create({
    connection: env.native, taskQueue: 'bench-mr', workflowBundle: env.loomWorkflows, activities: env.createActivities(),
    maxConcurrentActivityTaskExecutions: 200, maxConcurrentWorkflowTaskExecutions: 100, maxCachedWorkflows: 2000,
  });
  const directWorker = await Worker.create({
    connection: env.native, taskQueue: 'bench-mr-direct', workflowBundle: await bundleDirectWorkflows(),
    activities: directActivities, maxConcurrentActivityTaskExecutions: 200,
  });
  const running = Promise.all([loomWorker.run(), directWorker.run()]);
  const rows = [
    '| items | agentloom wall s | ms/item | largest history (events) | executions | direct wall s | direct history | ratio | load (1 min) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const overLimit: string[] = [];
  const runOne = async (n: number) => {
    const ref = await storeBundle(store, mapReduceBundle(n, concurrency));
    const id = `bench-mr-${n}-${Date.now()}`;
    const t0 = Date.now();
    const input: RunAgentInput = { bundle: ref, agent_id: 'mr', input: `map ${n} items` };
    const res = (await client.workflow.execute('strategiesWorkflow', { taskQueue: 'bench-mr', workflowId: id, args: [input] })) as AgentRunResult;
    const wall = (Date.now() - t0) / 1000;
    if (res.output !== 'reduced') throw new Error(`unexpected output ${JSON.stringify(res.output)}`);
    const { max, executions } = await maxHistory(client, id);
    return { wall, max, executions };
  };
  try {
    process.stderr.write('warm-up…\n');
    await runOne(20);
    for (const n of sizes) {
      const { wall, max, executions } = await runOne(n);
      if (max >= HISTORY_LIMIT) overLimit.push(`mapreduce of ${n} items: ${max} events`);
      const items = Array.from({ length: n }, (_, i) => `item ${i + 1}`);
      const did = `bench-mr-direct-${n}-${Date.now()}`;
      const t1 = Date.now();
      await client.workflow.execute('directFanoutWorkflow', { taskQueue: 'bench-mr-direct', workflowId: did, args: [items, concurrency] });
      const dwall = (Date.now() - t1) / 1000;
      const dhist = (await client.workflow.getHandle(did).describe()).historyLength;
      rows.push(`| ${n} | ${wall.toFixed(2)} | ${((wall * 1000) / n).toFixed(1)} | ${max} | ${executions} | ${dwall.toFixed(2)} | ${dhist} | ${(wall / dwall).toFixed(1)}x | ${load()} |`);
      process.stderr.write(`${n}: ${wall.toFixed(2)} s, largest history ${max} (direct ${dwall.toFixed(2)} s, load ${load()})\n`);
    }
  } finally {
    process.stdout.write(rows.join('\n') + '\n');
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
