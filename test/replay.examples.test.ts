/**
 * Determinism guard for the orchestration workflows: the root histories of every example
 * orchestrator (one per policy and pattern, members included as child workflows) and of the demo
 * agent are stored under test/fixtures/histories/example-*.json and replayed against the CURRENT
 * workflow bundle, so a change that would break running orchestrations fails the suite.
 *
 * Record the missing ones (a new example): LOOM_RECORD_HISTORIES=1 npx jest test/replay.examples
 * (existing recordings are kept: they are the guard for runs started by older code).
 */
import * as fs from 'fs';
import * as path from 'path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { compileBundle } from '../src/compiler';
import { workflowTypeFor } from '../src/shared/dispatch';
import type { RunAgentInput, RunStatus } from '../src/shared/contract';
import { replayFiles } from './helpers/replay';
import { storeTestBundle } from './runtime/builders';
import { startHarness } from './runtime/harness';
import { until } from './helpers/wait';

const DIR = path.join(__dirname, 'fixtures', 'histories');
const EX = path.resolve(__dirname, '..', 'examples');
const RECORD = process.env.LOOM_RECORD_HISTORIES === '1';

const EXAMPLES: [string, string][] = [
  ['demo', 'trip-planner'],
  ['customer-support', 'customer-support-agent'],
  ['orchestrators/sequential', 'pipeline'],
  ['orchestrators/parallel', 'weekend-planner'],
  ['orchestrators/loop', 'refiner'],
  ['orchestrators/batch', 'item-batcher'],
  ['orchestrators/conditional', 'language-router'],
  ['orchestrators/vendor', 'fallback-chain'],
  ['orchestrators/graph', 'support-triage'],
  ['orchestrators/swarm', 'swarm-lead'],
  ['orchestrators/workflow', 'quarterly-analysis'],
  ['orchestrators/steps', 'contract-review'],
];

async function record(): Promise<void> {
  const H = await startHarness('record-examples');
  try {
    for (const [dir, root] of EXAMPLES) {
      if (fs.existsSync(path.join(DIR, `example-${root}.json`))) continue;
      const { bundle } = compileBundle(path.join(EX, dir), root);
      const agent = bundle!.agents[root];
      const input: RunAgentInput = { bundle: await storeTestBundle(bundle!), agent_id: root, input: agent.interface.input.examples![0] };
      const h = await H.startType(workflowTypeFor(agent)!, input, `example-${root}`);
      let done = false;
      const result = h.result().finally(() => { done = true; });
      await until(async () => {
        if (done) return true;
        const st = await h.query<RunStatus>('status').catch(() => undefined);
        for (const p of st?.pending_approvals ?? []) await h.executeUpdate('approveCall', { args: [{ call_id: p.call_id }] }).catch(() => undefined);
        return done ? true : undefined;
      }, `example ${root} to finish while its approvals are answered`, 120_000);
      await result;
      fs.writeFileSync(path.join(DIR, `example-${root}.json`), historyToJSON(await h.fetchHistory()));
    }
  } finally {
    await H.close();
  }
}

test('recorded example histories (every policy and pattern) replay against the current workflow bundle', async () => {
  if (RECORD) await record();
  const files = fs.readdirSync(DIR).filter((f) => f.startsWith('example-') && f.endsWith('.json')).sort();
  expect(files).toEqual(EXAMPLES.map(([, root]) => `example-${root}.json`).sort());
  // Replayed under the recorded workflow id (child ids derive from it); one outcome per file, or replayFiles fails.
  const results = await replayFiles(DIR, files);
  expect(results.map((r) => r.workflowId)).toEqual(files.map((f) => f.replace(/\.json$/, '')));
  expect(results.filter((r) => r.error)).toEqual([]);
});
