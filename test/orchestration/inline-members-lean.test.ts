/**
 * agf.batch's inline members on patch `lean-inline-members` (decisions 910-911): a member's model
 * turn is issued with no await before it, and the members that start together while their agent
 * is not loaded yet share one `loadAgent`. Against the real dev server: every answer lands in its
 * own item's place while several members run at once, in a batch and in its shards, and each
 * execution loads the member's agent once however many members it starts together.
 */
import type { JsonValue } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { agent, answers, bundle, locals } from './builders';
import { childIds, Harness, startHarness } from './harness';
import { activityTypes, historyEvents, type HistoryEvent } from '../helpers/history';

let h: Harness;
beforeAll(async () => { h = await startHarness('orch-lean'); });
afterAll(async () => { await h?.close(); });

const decode = (p: { data?: Uint8Array | null } | undefined | null): JsonValue => JSON.parse(Buffer.from(p?.data ?? []).toString('utf8'));

function leanBatch(root: string, concurrency: number) {
  // No runtime.timeout_seconds: a plain model call runs inline.
  const member = agent({ id: 'lean-item', model: answers('did {{input.item}}') });
  const runtime = { ...member.runtime };
  delete runtime.timeout_seconds;
  return bundle(root, [
    agent({ id: root, policy: { id: 'agf.batch', config: { agent: 'lean-item', input_mapping: { item: 'parent.input.items.[].value' }, max_concurrency: concurrency } }, local_agents: locals('lean-item') }),
    { ...member, runtime },
  ]);
}

/** The agent ids an execution's loadAgent activities asked for. */
function loadedAgents(events: HistoryEvent[]): string[] {
  return events
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'loadAgent')
    .map((e) => (decode(e.activityTaskScheduledEventAttributes?.input?.payloads?.[0]) as { agent_id: string }).agent_id);
}

const markers = (events: HistoryEvent[]): string[] =>
  events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').map((e) => (decode(e.markerRecordedEventAttributes!.details!['patch-data']!.payloads![0]) as { id: string }).id);

test('eight members four at a time: each answer in its item, one load of the member agent, turns as activities of the batch', async () => {
  const values = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
  const wf = await h.start(leanBatch('lean-flat', 4), { items: values.map((value) => ({ value })) });
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toEqual(values.map((v) => `did ${v}`));
  const events = await historyEvents(wf);
  expect(markers(events)).toEqual(expect.arrayContaining(['lean-inline-members', 'inline-single-turn-members']));
  // The batch's own agent, then the member's once (four members started waiting for it).
  expect(loadedAgents(events)).toEqual(['lean-flat', 'lean-item']);
  expect(activityTypes(events).filter((t) => t === 'modelTurn')).toHaveLength(values.length);
  expect(await childIds(h, wf.workflowId)).toEqual([]);
});

test('a sharded batch: every shard loads the member agent once, and the answers keep the input order', async () => {
  const values = Array.from({ length: 12 }, (_, i) => `v${i}`);
  const wf = await h.start(leanBatch('lean-sharded', 8), { items: values.map((value) => ({ value })) }, { options: { scale: { batch_shard_size: 5 } } });
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toEqual(values.map((v) => `did ${v}`));
  const shards = (await childIds(h, wf.workflowId)).filter((id) => /\/shard-\d+$/.test(id));
  expect(shards).toHaveLength(3);
  for (const id of shards) {
    const events = await historyEvents(h.t.client.workflow.getHandle(id));
    expect(loadedAgents(events)).toEqual(['lean-sharded', 'lean-item']);
    expect(markers(events)).toContain('lean-inline-members');
  }
});
