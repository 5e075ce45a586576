/**
 * A strategies run survives its worker: the worker is shut down while a member turn is in flight
 * (mid-conversation), a new worker on the same task queue rebuilds the run from its history, and
 * the conversation finishes with every turn run once, in order, and the right final answer.
 */
import { createActivities } from '../../src/activities';
import type { StrategiesPattern } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { statusQuery } from '../../src/shared/definitions';
import { createTestWorker } from '../helpers/temporal';
import { childWorkflowIds, historyEvents, waitForSettledHistory } from '../helpers/history';
import { agent, answers, bundle, byInput } from './builders';
import { childIds, Harness, startHarness } from './harness';

let h: Harness;
beforeAll(async () => { h = await startHarness('strat-restart'); });
afterAll(async () => { await h?.close(); });

test('worker shut down mid-conversation: a new worker finishes it, every turn once', async () => {
  const pattern: StrategiesPattern = {
    type: 'strategies',
    agents: [{ name: 'A', agent_id: 'm-a' }, { name: 'B', agent_id: 'm-b' }, { name: 'C', agent_id: 'm-c' }],
    config: { Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: 6 } },
  };
  const b = bundle('rr-restart', [
    agent({ id: 'rr-restart', model: answers('orchestrator'), pattern }),
    agent({ id: 'm-a', model: answers('a') }),
    // B is slow: the worker goes away while B's turn is in flight.
    agent({ id: 'm-b', model: answers('b', 1500) }),
    agent({ id: 'm-c', model: byInput([{ contains: '[B]\nb', reply: { content: 'c saw b' } }], { content: 'c blind' }) }),
  ]);
  const wf = await h.start(b, 'go');
  // The run has started B's first turn (turn 2) and is waiting on it.
  const before = await waitForSettledHistory(wf, (ev) => childWorkflowIds(ev).some((id) => id.endsWith('/turn-2-B')), 'turn 2 (B) to start');
  expect(childWorkflowIds(before).map((id) => id.slice(wf.workflowId.length + 1))).toEqual(['turn-1-A', 'turn-2-B']);
  h.worker.shutdown();
  await h.running;

  const worker = await createTestWorker(h.t, createActivities());
  const { res, status } = await worker.runUntil(async () => ({ res: (await wf.result()) as AgentRunResult, status: await wf.query(statusQuery) }));
  expect(res.output).toBe('c saw b');
  expect(status.progress).toMatchObject({ iteration: 6 });
  const ids = (await childIds(h, wf.workflowId)).map((id) => id.slice(wf.workflowId.length + 1));
  expect(ids.sort()).toEqual(['turn-1-A', 'turn-2-B', 'turn-3-C', 'turn-4-A', 'turn-5-B', 'turn-6-C']);
  const ev = await historyEvents(wf);
  expect(childWorkflowIds(ev)).toHaveLength(6);
});
