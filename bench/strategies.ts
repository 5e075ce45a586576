/**
 * `npm run bench:strategies`: a seed 002 round-robin of 3 scripted agents (zero latency, no tools,
 * no deadline of their own) for N turns, each turn one member turn (one model call, inline in the
 * strategy's workflow on patch strategies-members-inline) whose input the transcript activity
 * writes from the stored transcript, against a baseline measured in the same run on the same server and
 * worker: one agf.react run of N model turns (a tool call each, so N activities plus N tool calls).
 * Prints turns per second, root history events per turn (all executions of the continue-as-new
 * chain), executions, the largest execution and whether every execution stayed within Temporal's
 * 10,240-event bound (continue-as-new on the server's suggestion; test/strategies/scale.test.ts
 * proves the same at a lowered threshold). BENCH_SIZES (default `200,2000`) lists the N.
 */
import { Worker } from '@temporalio/worker';
import { WORKER_TUNING } from '../src/worker/create-worker';
import { storeBundle } from '../src/activities/blob-store';
import type { CompiledAgent, CompiledBundle, StrategiesPattern } from '../src/compiled/types';
import { agent, answers, bundle } from '../test/orchestration/builders';
import { builtinTool } from '../test/runtime/builders';
import { historyChain as chain, startBenchEnv } from './harness';

const SIZES = (process.env.BENCH_SIZES ?? '200,2000').split(',').map(Number);

/** A member without the test builders' 60 s runtime.timeout_seconds: a member with a deadline of its own keeps its child run. */
function untimed(a: CompiledAgent): CompiledAgent {
  const { timeout_seconds: _, ...runtime } = a.runtime;
  return { ...a, runtime };
}

function team(n: number): CompiledBundle {
  const pattern: StrategiesPattern = {
    type: 'strategies',
    agents: ['A', 'B', 'C'].map((name) => ({ name, agent_id: `rr-${name.toLowerCase()}` })),
    config: { Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: n } } as StrategiesPattern['config'],
  };
  return bundle('rr-bench', [
    agent({ id: 'rr-bench', model: answers('orchestrator'), pattern }),
    ...['a', 'b', 'c'].map((x) => untimed(agent({ id: `rr-${x}`, model: answers(`${x} speaks`) }))),
  ]);
}

/** The baseline: one agf.react run of `n` model turns, each but the last calling `echo`. */
function reactBaseline(n: number): CompiledBundle {
  const a = agent({ id: 'react-bench', model: { rules: [{ when: { turn: n - 1 }, reply: { content: 'done' } }], turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'x' } }] }] } as never, max_turns: n + 1 });
  a.tools = { ...a.tools, refs: [builtinTool('echo')] };
  a.runtime = { ...a.runtime, max_turns: n + 1, max_tool_calls: n + 1, timeout_seconds: 24 * 3600 };
  a.execution_policy = { id: 'agf.react', config: { max_steps: 100000 } };
  return bundle('react-bench', [a]);
}

async function main(): Promise<void> {
  const env = await startBenchEnv('strat');
  const { client, store } = env;
  const taskQueue = `bench-strat-${Date.now()}`;
  const worker = await Worker.create({ connection: env.native, taskQueue, workflowBundle: env.loomWorkflows, activities: env.createActivities({ store }), ...WORKER_TUNING });
  const rows: Record<string, unknown>[] = [];
  await worker.runUntil(async () => {
    for (const n of SIZES) {
      for (const [label, b, type] of [['react baseline', reactBaseline(n), 'agfReactWorkflow'], ['roundrobin x3', team(n), 'strategiesWorkflow']] as const) {
        const ref = await storeBundle(store, b);
        const id = `${b.root}-${n}-${Date.now()}`;
        const t0 = Date.now();
        const h = await client.workflow.start(type, { taskQueue, workflowId: id, args: [{ bundle: ref, agent_id: b.root, input: 'go' }] });
        await h.result();
        const ms = Date.now() - t0;
        const runs = await chain(client, id);
        const sizes = runs.map((r) => r.events?.length ?? 0);
        const events = sizes.reduce((x, y) => x + y, 0);
        rows.push({ workflow: label, turns: n, 'turns/s': +((n * 1000) / ms).toFixed(1), 'ms/turn': +(ms / n).toFixed(1), 'root events/turn': +(events / n).toFixed(2), executions: runs.length, 'largest execution': Math.max(...sizes), 'within 10,240 events': Math.max(...sizes) <= 10240 ? 'yes' : 'NO' });
        process.stdout.write(`${label} ${n} turns: ${ms} ms\n`);
      }
    }
  });
  console.table(rows);
  for (const n of SIZES) {
    const [r, s] = rows.filter((x) => x.turns === n);
    process.stdout.write(`${n} turns: roundrobin/react ms per turn ${(Number(s['ms/turn']) / Number(r['ms/turn'])).toFixed(2)}x, events per turn ${(Number(s['root events/turn']) / Number(r['root events/turn'])).toFixed(2)}x\n`);
    // The target: ms per strategy turn over ms per agf.react turn, same run (at most 1.5x).
    process.stdout.write(`ratio: ${(Number(s['ms/turn']) / Number(r['ms/turn'])).toFixed(2)}x (${n} turns)\n`);
  }
  await env.close();
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
