/**
 * Every example registry runs offline on a real Temporal server (what `npx loom run <root>
 * --registry examples/…` does, minus the CLI): compile, store the bundle, start the workflow type
 * the root dispatches to with its first interface.input.examples entry, answer approvals, and
 * check the answer.
 */
import * as path from 'path';
import { compileBundle } from '../src/compiler';
import { workflowTypeFor } from '../src/shared/dispatch';
import type { AgentRunResult, RunAgentInput, RunStatus } from '../src/shared/contract';
import { storeTestBundle } from './runtime/builders';
import { Harness, startHarness } from './runtime/harness';
import { until } from './helpers/wait';

let H: Harness;
beforeAll(async () => {
  H = await startHarness('examples');
});
afterAll(async () => H.close());

const EX = path.resolve(__dirname, '..', 'examples');

async function runExample(dir: string, root: string, example = 0): Promise<{ res: AgentRunResult; approvals: string[]; id: string }> {
  const { bundle, diagnostics } = compileBundle(path.join(EX, dir), root);
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const agent = bundle!.agents[root];
  const input: RunAgentInput = { bundle: await storeTestBundle(bundle!), agent_id: root, input: agent.interface.input.examples![example] };
  const h = await H.startType(workflowTypeFor(agent)!, input);
  const approvals: string[] = [];
  let done = false;
  const result = h.result().finally(() => { done = true; });
  // Answer approvals until the run ends; bounded, and the failure says where the run stood.
  let last: RunStatus | string | undefined;
  await until(async () => {
    if (done) return true;
    // The query fails until the run's first workflow task: remember why, poll again.
    const st = await h.query<RunStatus>('status').then(
      (s) => s,
      (e: unknown) => { last = String(e); return undefined; },
    );
    if (st) last = st;
    for (const p of st?.pending_approvals ?? []) {
      if (approvals.includes(p.call_id)) continue;
      approvals.push(p.call_id);
      await h.executeUpdate('approveCall', { args: [{ call_id: p.call_id, by: 'test' }] });
    }
    return done ? true : undefined;
  }, () => `${dir}/${root} to finish; approvals answered: [${approvals.join(', ')}]; last status: ${JSON.stringify(last)}`, 90000);
  return { res: (await result) as AgentRunResult, approvals, id: h.workflowId };
}

test('examples/demo trip-planner: calculator, one approval, the itinerary written once', async () => {
  const { res, approvals } = await runExample('demo', 'trip-planner');
  expect(approvals).toHaveLength(1);
  expect(res.output).toMatchObject({ destination: 'Lisbon', total_cost_eur: 660, itinerary_saved: { path: 'itinerary.md', bytes_written: 85 } });
});

test('examples/customer-support: guardrails, knowledge search tool, answers both example questions', async () => {
  const reset = await runExample('customer-support', 'customer-support-agent', 0);
  expect(reset.res.output).toEqual({ answer: 'Go to Settings > Security > Reset password and follow the emailed link.', escalated: false, suggested_articles: ['account-password-reset'] });
  const billing = await runExample('customer-support', 'customer-support-agent', 1);
  // The scripted model only answers this once the search result names the billing article, so
  // this answer proves the search_knowledge tool found it in the agent's knowledge.
  expect(billing.res.output).toMatchObject({ escalated: false, suggested_articles: ['billing-duplicate-charge'] });
  const hist = await H.t.client.workflow.getHandle(billing.id).fetchHistory();
  const tools = (hist.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool');
  expect(tools).toHaveLength(1);
  const guards = (hist.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runGuardrails');
  expect(guards.length).toBeGreaterThanOrEqual(3); // input, tool input/output and output guardrails ran
});

const ORCHESTRATORS: [string, string, unknown][] = [
  ['sequential', 'pipeline', { final: 'Sea otters hold hands while they sleep, so the current never separates them.' }],
  ['parallel', 'weekend-planner', { food_expert: { recommendation: 'Sushi' }, movie_expert: { recommendation: 'Inception' } }],
  ['loop', 'refiner', { draft: 'A tighter second draft.' }],
  ['batch', 'item-batcher', ['APPLE processed', 'PEAR processed', 'item processed']],
  ['conditional', 'language-router', 'CJK translation done'],
  ['vendor', 'fallback-chain', 'answered by the backup agent'],
  ['graph', 'support-triage', 'Report: the customer was refunded $12.'],
  ['swarm', 'swarm-lead', 'Implemented POST /links and GET /:code in TypeScript.'],
  [
    'workflow',
    'quarterly-analysis',
    {
      'data-extraction': { revenue: 120, costs: 80 },
      'trend-analysis': 'Revenue up 20% quarter over quarter.',
      'risk-assessment': 'Main risk: rising costs.',
      'report-generation': 'Q3 report: growth with cost risk.',
    },
  ],
  ['steps', 'contract-review', 'Final contract summary. APPROVED'],
];

test.each(ORCHESTRATORS)('examples/orchestrators/%s (%s) runs offline to its answer', async (dir, root, expected) => {
  const { res } = await runExample(path.join('orchestrators', dir), root);
  expect(res.output).toEqual(expected);
  if (dir === 'parallel') expect(Object.keys(res.output as object)).toEqual(['food_expert', 'movie_expert']);
});
