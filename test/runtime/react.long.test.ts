import type { History } from '@temporalio/common/lib/proto-utils';
import { storeTestBundle } from './builders';
import { builtin, compileAgent, scripted } from '../helpers/definitions';
import { Harness, startHarness } from './harness';
import { eventBytes } from '../../src/shared/history-size';

let H: Harness;
beforeAll(async () => {
  H = await startHarness('react-long');
});
afterAll(async () => H.close());

/** Every execution of the continue-as-new chain of `id`, oldest first, with its history. */
async function chain(id: string): Promise<History[]> {
  const out: History[] = [];
  let runId: string | undefined = (await H.t.client.workflow.getHandle(id).describe()).runId;
  while (runId) {
    const h: History = await H.t.client.workflow.getHandle(id, runId).fetchHistory();
    out.unshift(h);
    runId = h.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
  }
  return out;
}

// The 5,000-step figure (500 turns, continue-as-new every 100) is measured by `npm run bench:long-run`.
test('a 200-step scripted run continues as new every 5 turns, carrying its turn, step and tool-call counters, with flat executions', async () => {
  // 20 turns x (1 model turn + 9 concurrent tool calls) = 200 steps; 4 continue-as-new.
  const calls = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => ({ name: 'echo', arguments: { text: `t{{turn}}-${i}` } }));
  const { bundle: compiled } = compileAgent({
    agent_id: 'long',
    model: scripted({ rules: [{ when: { turn: 20 }, reply: { content: 'finished after {{turn}} turns; last {{last_tool_result}}' } }], turns: [{ tool_calls: calls }] }),
    tools: [builtin('echo')],
    // max_steps just above the run's 201: a counter reset by continue-as-new would not reach it, one counted twice would.
    front: { execution_policy: { id: 'agf.react', config: { max_steps: 210 } } },
  });
  const bundle = await storeTestBundle(compiled);
  const h = await H.start({ bundle, agent_id: 'long', input: 'go', carried: { continue_as_new_every: 5 } });
  const res = await h.result();
  // {{turn}} renders the carried turn counter: 20, not the 5 turns of the last execution.
  expect(res.output).toBe('finished after 20 turns; last t19-8');
  const st = (await h.query('status')) as { step: number; tool_calls_made: number; turn: number };
  expect(st.turn).toBe(21);
  expect(st.tool_calls_made).toBe(180);
  expect(st.step).toBe(201);
  const runs = await chain(h.workflowId);
  expect(runs.length).toBeGreaterThanOrEqual(4);
  expect(runs[0].events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? '').toBe('');
  // Flat: every execution that continued as new did the same 5 turns, so none is larger than
  // the first by more than the carried state (a history growing with the run would be ~4x by the 4th).
  const full = runs.slice(0, -1).map((r) => r.events?.length ?? 0);
  const bytes = runs.slice(0, -1).map((r) => (r.events ?? []).reduce((n, e) => n + eventBytes(e), 0));
  console.log(`executions ${runs.length}; events ${full.join(' ')}; bytes ${bytes.join(' ')}`);
  for (const n of full) expect(n).toBeLessThanOrEqual(full[0] * 1.1);
  for (const b of bytes) expect(b).toBeLessThanOrEqual(bytes[0] * 1.5);
}, 120000);

/** Bytes of history added by each model turn (from one modelTurn scheduled event to the next). */
export function bytesPerTurn(history: History): number[] {
  const out: number[] = [];
  let cur = -1;
  for (const e of history.events ?? []) {
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'modelTurn') {
      out.push(0);
      cur = out.length - 1;
    }
    if (cur >= 0) out[cur] += eventBytes(e);
  }
  return out;
}

test('history does not grow with the conversation: the 40th turn adds <= 2x the bytes of the 1st', async () => {
  const { bundle: compiled } = compileAgent({
    agent_id: 'flat',
    model: scripted({
      rules: [{ when: { turn: 41 }, reply: { content: 'done' } }],
      turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'a fairly long tool argument that the model sends on every single turn of the run' } }] }],
    }),
    tools: [builtin('echo')],
  });
  const bundle = await storeTestBundle(compiled);
  const h = await H.start({ bundle, agent_id: 'flat', input: 'x'.repeat(2000) });
  await h.result();
  const per = bytesPerTurn(await h.fetchHistory());
  expect(per.length).toBe(42);
  console.log(`history bytes per turn: 1st ${per[0]}, 2nd ${per[1]}, 40th ${per[39]}`);
  expect(per[39]).toBeLessThanOrEqual(2 * per[0]);
  expect(per[39]).toBeLessThanOrEqual(1.1 * per[1]);
}, 120000);
