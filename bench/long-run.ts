/**
 * `npm run bench:long-run`: one agf.react run of BENCH_STEPS steps (default 5,000: 500 turns of one
 * model turn and 9 concurrent tool calls) with a zero-latency scripted model, continuing as new
 * every BENCH_CAN_EVERY turns (default 100), on an embedded dev server. Prints the wall time, the
 * executions the run took (continue-as-new count = executions - 1), the events and bytes of each
 * execution's history (max, mean, sum), the final counters, and the load average. Not asserted by
 * time: test/runtime/react.long.test.ts proves the behaviour at a few steps, this measures the size.
 */
import { Worker } from '@temporalio/worker';
import { storeBundle } from '../src/activities/blob-store';
import { eventBytes } from '../src/shared/history-size';
import { builtin, compileAgent, scripted } from '../test/helpers/definitions';
import { HISTORY_LIMIT, historyChain, loadAvg, startBenchEnv } from './harness';

const CALLS_PER_TURN = 9;

async function main(): Promise<void> {
  const steps = Number(process.env.BENCH_STEPS ?? 5000);
  const every = Number(process.env.BENCH_CAN_EVERY ?? 100);
  const turns = Math.max(1, Math.round(steps / (CALLS_PER_TURN + 1)));
  const env = await startBenchEnv('long-run');
  const worker = await Worker.create({ connection: env.native, taskQueue: 'bench-long-run', workflowBundle: env.loomWorkflows, activities: env.createActivities() });
  const running = worker.run();
  try {
    const calls = Array.from({ length: CALLS_PER_TURN }, (_, i) => ({ name: 'echo', arguments: { text: `t{{turn}}-${i}` } }));
    const { bundle } = compileAgent({
      agent_id: 'long',
      model: scripted({ rules: [{ when: { turn: turns }, reply: { content: 'finished after {{turn}} turns; last {{last_tool_result}}' } }], turns: [{ tool_calls: calls }], latency_ms: 0 }),
      tools: [builtin('echo')],
      front: { execution_policy: { id: 'agf.react', config: { max_steps: steps + 1000 } } },
    });
    const ref = await storeBundle(env.store, bundle);
    const id = `bench-long-run-${Date.now()}`;
    const loadBefore = loadAvg();
    const t0 = Date.now();
    const h = await env.client.workflow.start('agfReactWorkflow', { taskQueue: 'bench-long-run', workflowId: id, args: [{ bundle: ref, agent_id: 'long', input: 'go', carried: { continue_as_new_every: every } }] });
    const res = (await h.result()) as { output: unknown };
    const wall = (Date.now() - t0) / 1000;
    const st = (await h.query('status')) as { step: number; tool_calls_made: number; turn: number };
    const chain = await historyChain(env.client, id);
    const events = chain.map((x) => x.events?.length ?? 0);
    const bytes = chain.map((x) => (x.events ?? []).reduce((n, e) => n + eventBytes(e), 0));
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    process.stdout.write([
      '| steps | turns | continue-as-new every | wall s | ms/step | executions | max events/execution | mean events | max bytes/execution | total bytes | final turn / step / tool calls | load (1 min) before, after |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
      `| ${steps} | ${turns} | ${every} | ${wall.toFixed(1)} | ${((wall * 1000) / steps).toFixed(2)} | ${chain.length} | ${Math.max(...events)} | ${(sum(events) / events.length).toFixed(0)} | ${Math.max(...bytes)} | ${sum(bytes)} | ${st.turn} / ${st.step} / ${st.tool_calls_made} | ${loadBefore}, ${loadAvg()} |`,
      '',
      `output: ${JSON.stringify(res.output)}`,
      `events of each execution, oldest first: ${events.join(' ')}`,
    ].join('\n') + '\n');
    if (Math.max(...events) >= HISTORY_LIMIT) { process.stderr.write(`an execution reached ${Math.max(...events)} events (limit ${HISTORY_LIMIT})\n`); process.exitCode = 1; }
  } finally {
    worker.shutdown();
    await running;
    await env.close();
  }
}

main().catch((e) => { process.stderr.write(`${(e as Error).stack ?? e}\n`); process.exit(1); });
