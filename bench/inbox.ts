/**
 * `npm run bench:inbox`: how long `loom inbox` (its function, collectInbox) and the root's status
 * query take with 50 open run trees each waiting on an approval, against a baseline measured in
 * the same run with one such tree. Each tree is a 2-stage agf.sequential pipeline whose 2nd member
 * (a react run) waits for approval of a tool call, so the inbox finds the holder by visibility,
 * maps it to its root and asks the root once for its tree-wide pending_decisions.
 * On an embedded Temporal dev server with an in-process worker; prints a table with the median of
 * BENCH_REPEATS (default 7) timings per row, the ratio to the 1-tree baseline and the load average.
 * BENCH_RUNS=50 overrides the number of trees; the target is under 2 s for 50.
 */
import { Worker } from '@temporalio/worker';
import { storeBundle } from '../src/activities/blob-store';
import { loadAvg, startBenchEnv } from './harness';
import type { CompiledAgent, CompiledTool } from '../src/compiled/types';
import type { RunAgentInput } from '../src/shared/contract';
import { SEARCH_ATTRIBUTES } from '../src/shared/contract';
import { statusQuery } from '../src/shared/definitions';
import { patternOf, workflowTypeFor } from '../src/shared/dispatch';
import { collectInbox } from '../src/operator/inbox';
import type { LoomSession } from '../src/operator/connect';
import { agent, bundle, locals } from '../test/orchestration/builders';

const CHARGE: CompiledTool = {
  tool_id: 'charge', version: '1.0.0', status: 'active', description: 'charge', kind: 'builtin',
  input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  approval_required: true, sensitive_fields: [], side_effects: true, builtin: { name: 'echo' },
};
const payer: CompiledAgent = {
  ...agent({ id: 'payer', model: { turns: [{ tool_calls: [{ id: 'pay-1', name: 'charge', arguments: { text: 'pay' } }] }, { content: 'paid' }] } }),
  tools: { tool_choice: 'auto', refs: [CHARGE] },
};
const pipeline = bundle('inbox-bench', [
  agent({ id: 'inbox-bench', policy: { id: 'agf.sequential', config: { steps: [{ agent: 'drafter' }, { agent: 'payer' }], output_from: 'payer' } }, local_agents: locals('drafter', 'payer') }),
  agent({ id: 'drafter' }),
  payer,
]);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timed(n: number, fn: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(ms);
}
async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 600_000): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function main(): Promise<void> {
  const total = Number(process.env.BENCH_RUNS ?? 50);
  const repeats = Number(process.env.BENCH_REPEATS ?? 7);
  const env = await startBenchEnv('inbox');
  const { client } = env;
  const session: LoomSession = { client, address: env.address, namespace: 'default', embedded: false, close: async () => undefined };
  const worker = await Worker.create({ connection: env.native, taskQueue: 'bench-inbox', workflowBundle: env.loomWorkflows, activities: env.createActivities(), maxCachedWorkflows: 1000 });
  const running = worker.run();
  const ref = await storeBundle(env.store, pipeline);
  const root = pipeline.agents[pipeline.root];
  const ids: string[] = [];
  const startTrees = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const id = `inbox-bench-${ids.length}`;
      ids.push(id);
      const args: RunAgentInput = { bundle: ref, agent_id: pipeline.root, input: `order ${ids.length}` };
      await client.workflow.start(workflowTypeFor(root)!, {
        taskQueue: 'bench-inbox', workflowId: id, args: [args],
        searchAttributes: { [SEARCH_ATTRIBUTES.agentId]: [pipeline.root], [SEARCH_ATTRIBUTES.pattern]: [patternOf(root)], [SEARCH_ATTRIBUTES.status]: ['running'] },
      });
    }
    // Every tree waits and the inbox sees them all (visibility is eventually consistent).
    let seen = -1;
    await until(`${ids.length} decisions in the inbox`, async () => {
      seen = (await collectInbox(session, Date.now())).length;
      return seen === ids.length ? true : undefined;
    }).catch((e) => { throw new Error(`${(e as Error).message}; last saw ${seen}`); });
  };
  const rows: string[] = [];
  let baseInbox = 0;
  let baseStatus = 0;
  try {
    for (const n of [1, total]) {
      await startTrees(n - ids.length);
      const inboxMs = await timed(repeats, () => collectInbox(session, Date.now()));
      const statusMs = await timed(repeats * 3, () => client.workflow.getHandle(ids[ids.length - 1]).query(statusQuery));
      if (n === 1) [baseInbox, baseStatus] = [inboxMs, statusMs];
      rows.push(`| ${n} | ${n} | ${inboxMs.toFixed(1)} | ${(inboxMs / baseInbox).toFixed(1)}x | ${(inboxMs / n).toFixed(1)} | ${statusMs.toFixed(1)} | ${(statusMs / baseStatus).toFixed(1)}x | ${loadAvg()} |`);
    }
  } finally {
    await Promise.all(ids.map((id) => client.workflow.getHandle(id).terminate('bench over').catch(() => undefined)));
    worker.shutdown();
    await running.catch(() => undefined);
    await env.close();
  }
  process.stdout.write(
    [
      `bench:inbox — loom inbox (collectInbox) and one root's status query; median of ${repeats} (status: ${repeats * 3}); baseline = 1 tree, same run`,
      '',
      '| open trees | decisions listed | inbox ms | vs 1 tree | inbox ms per tree | status query ms | vs 1 tree | load (1 min) |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
