/**
 * A mapreduce run survives its worker: the worker is shut down while a mapper run is in flight
 * (mid-map), a new worker on the same task queue rebuilds the run from its history, and the run
 * finishes with every mapper run started once and its model called once, outputs in item order.
 */
import { createActivities } from '../../src/activities';
import type { StrategiesPattern } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { reducerInput } from '../../src/strategies/phases';
import { createTestWorker } from '../helpers/temporal';
import { activityTypes, childWorkflowIds, historyEvents, waitForSettledHistory } from '../helpers/history';
import { agent, answers, bundle } from '../orchestration/builders';
import { Harness, startHarness } from '../orchestration/harness';

let h: Harness;
beforeAll(async () => { h = await startHarness('phases-restart'); });
afterAll(async () => { await h?.close(); });

test('worker shut down mid-map: a new worker finishes the run, each mapper call once', async () => {
  const pattern: StrategiesPattern = {
    type: 'strategies',
    agents: [{ name: 'Splitter', agent_id: 'm-split' }, { name: 'Mapper', agent_id: 'm-map' }, { name: 'Reducer', agent_id: 'm-reduce' }],
    config: { Selection: { Type: 'mapreduce', MapReduce: { Splitter: 'Splitter', Mapper: 'Mapper', Reducer: 'Reducer', MaxConcurrency: 1 } } },
  };
  const b = bundle('mr-restart', [
    agent({ id: 'mr-restart', model: answers('orchestrator'), pattern }),
    agent({ id: 'm-split', model: answers('{"items": ["one", "two", "three"]}') }),
    // A slow mapper (a child run: test agents carry runtime.timeout_seconds): the worker goes away mid-item.
    agent({ id: 'm-map', model: { turns: [{ content: 'mapped {{message}}' }], latency_ms: 1500 } }),
    agent({ id: 'm-reduce', model: { turns: [{ content: '{{message}}' }] } }),
  ]);
  const wf = await h.start(b, 'go');
  const before = await waitForSettledHistory(wf, (ev) => childWorkflowIds(ev).some((id) => id.endsWith('/map-2')), 'the second mapper run to start');
  expect(childWorkflowIds(before).map((id) => id.slice(wf.workflowId.length + 1))).toEqual(['split-1-Splitter', 'map-1', 'map-2']);
  h.worker.shutdown();
  await h.running;

  const worker = await createTestWorker(h.t, createActivities());
  const res = await worker.runUntil(async () => (await wf.result()) as AgentRunResult);
  expect(res.output).toBe(reducerInput('go', ['mapped one', 'mapped two', 'mapped three']));
  const ev = await historyEvents(wf);
  const ids = childWorkflowIds(ev).map((id) => id.slice(wf.workflowId.length + 1));
  expect(ids).toEqual(['split-1-Splitter', 'map-1', 'map-2', 'map-3', 'reduce-Reducer']);
  for (const n of [1, 2, 3]) {
    const child = await historyEvents(h.t.client.workflow.getHandle(`${wf.workflowId}/map-${n}`));
    expect(activityTypes(child).filter((t) => t === 'modelTurn')).toHaveLength(1);
  }
});
