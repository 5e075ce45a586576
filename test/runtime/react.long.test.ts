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

test('a 5,000-step scripted run completes through continue-as-new', async () => {
  // 500 turns x (1 model turn + 9 concurrent tool calls) = 5,000 steps.
  const calls = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => ({ name: 'echo', arguments: { text: `t{{turn}}-${i}` } }));
  const { bundle: compiled } = compileAgent({
    agent_id: 'long',
    model: scripted({ rules: [{ when: { turn: 500 }, reply: { content: 'finished after {{turn}} turns; last {{last_tool_result}}' } }], turns: [{ tool_calls: calls }] }),
    tools: [builtin('echo')],
    front: { execution_policy: { id: 'agf.react', config: { max_steps: 6000 } } },
  });
  const bundle = await storeTestBundle(compiled);
  const h = await H.start({ bundle, agent_id: 'long', input: 'go', carried: { continue_as_new_every: 100 } });
  const res = await h.result();
  expect(res.output).toBe('finished after 500 turns; last t499-8');
  const st = (await h.query('status')) as { step: number; tool_calls_made: number; turn: number };
  expect(st.turn).toBe(501);
  expect(st.tool_calls_made).toBe(4500);
  expect(st.step).toBe(5001);
  const d = await h.describe();
  expect(d.runId).not.toBe(h.firstExecutionRunId);
}, 240000);


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

test('history does not grow with the conversation: the 100th turn adds <= 2x the bytes of the 1st', async () => {
  const { bundle: compiled } = compileAgent({
    agent_id: 'flat',
    model: scripted({
      rules: [{ when: { turn: 101 }, reply: { content: 'done' } }],
      turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'a fairly long tool argument that the model sends on every single turn of the run' } }] }],
    }),
    tools: [builtin('echo')],
  });
  const bundle = await storeTestBundle(compiled);
  const h = await H.start({ bundle, agent_id: 'flat', input: 'x'.repeat(2000) });
  await h.result();
  const per = bytesPerTurn(await h.fetchHistory());
  expect(per.length).toBe(102);
  console.log(`history bytes per turn: 1st ${per[0]}, 2nd ${per[1]}, 100th ${per[99]}`);
  expect(per[99]).toBeLessThanOrEqual(2 * per[0]);
  expect(per[99]).toBeLessThanOrEqual(1.1 * per[1]);
}, 120000);
