/**
 * Seed 003 "Request & Call Streaming" on a real dev server, through the `openai` provider's
 * streaming API against the local OpenAI-compatible server (server-sent events, tool calls in
 * chunks): on runtime.execution_loop dependencies a call complete in the stream starts before the
 * stream ends — the server holds the end of the stream until the call's runTool is in history, so
 * the proof is the recorded order, not timing. The reply text reaches the store record `loom run
 * --stream` reads, never history; a stream that breaks after a call was taken is completed with that
 * call on the retry, which runs once.
 */
import { randomBytes } from 'crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentRunResult, RunAgentInput } from '../../src/shared/contract';
import type { CompiledBundle } from '../../src/compiled/types';
import { agfReactWorkflow } from '../../src/workflows/react';
import { parseStreamRecord, STREAM_RECORD_KIND } from '../../src/activities/stream-text';
import { FakeOpenAIServer, FakeResponse, reply, startFakeOpenAI } from '../helpers/openai-server';
import type { TestTemporal } from '../helpers/temporal';
import { Harness, startHarness } from './harness';
import { activityCompletedEventIds, historyEvents, HistoryEvent, signalEventIds } from '../helpers/history';
import { storeTestBundle, testStore } from './builders';
import { builtin, compileAgent, model } from '../helpers/definitions';
import { eventually } from '../helpers/wait';

jest.setTimeout(180000);

let t: TestTemporal;
let h: Harness;
let srv: FakeOpenAIServer;

beforeAll(async () => {
  h = await startHarness('exec-stream');
  t = h.t;
  srv = await startFakeOpenAI();
});
afterAll(async () => {
  await srv.close();
  await h?.close();
});

function streamAgent(id: string): CompiledBundle {
  return compileAgent({
    agent_id: id,
    model: model('oa-stream', 'openai', { openai: { base_url: srv.baseUrl, model: 'gpt-fake-stream', request_timeout_seconds: 20 }, supports_tools: true }),
    tools: [builtin('echo')],
    front: { runtime: { execution_loop: 'dependencies' } },
  }).bundle;
}

const decode = (p: { data?: Uint8Array | null } | undefined): Record<string, unknown> => JSON.parse(Buffer.from(p?.data ?? []).toString('utf8'));

function runToolsByCall(events: HistoryEvent[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s?.activityType?.name !== 'runTool') continue;
    const id = String(decode(s.input?.payloads?.[0]).call_id);
    out.set(id, [...(out.get(id) ?? []), Number(e.eventId)]);
  }
  return out;
}

/** Poll `pred` (history, store) until it holds; false after `ms` (the test then fails on the recorded order). */
const until = (pred: () => Promise<boolean>, ms = 90000): Promise<boolean> => eventually(pred, ms);

test('a call complete in the stream starts before the stream ends; text goes to the store, not to history', async () => {
  const wid = `stream-${randomBytes(4).toString('hex')}`;
  const store = testStore();
  let h: WorkflowHandle | undefined;
  const held: Record<string, boolean> = {};
  const first: FakeResponse = {
    kind: 'reply',
    content: 'Looking it up in two steps.',
    tool_calls: [
      { id: 'c1', name: 'echo', arguments: { text: 'first', _outputPath: '$.state.first' } },
      { id: 'c2', name: 'echo', arguments: { text: 'second', _dependsOn: ['c1'] } },
    ],
    stream: {
      chunk_chars: 5,
      // the text streamed so far is readable from the store before the reply ends
      before_call: async (i) => {
        if (i === 0) held.text = await until(async () => parseStreamRecord(await store.getRecord(STREAM_RECORD_KIND, wid))?.text === 'Looking it up in two steps.');
      },
      // hold the end of the reply until c1 (complete once c2 began) has been scheduled by the workflow
      hold_end: async () => {
        held.c1 = await until(async () => !!h && runToolsByCall(await historyEvents(h)).has('c1'));
      },
    },
  };
  srv.enqueue(first, reply('both done'));
  const bundle = await storeTestBundle(streamAgent('streamer'));
  const input: RunAgentInput = { bundle, agent_id: 'streamer', input: 'go', options: { stream_text: true } };
  h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: wid, args: [input] });
  const res = (await h.result()) as AgentRunResult;
  expect(held).toEqual({ text: true, c1: true });
  expect(res.output).toBe('both done');
  expect(res.state).toEqual({ first: 'first' });
  expect(srv.requests[0].body.stream).toBe(true);
  expect(srv.requests[0].streamEndedAt).toBeDefined();

  const ev = await historyEvents(h);
  const modelDone = activityCompletedEventIds(ev, 'modelTurn');
  const tools = runToolsByCall(ev);
  const signals = signalEventIds(ev, 'callStreamed');
  // c1 was signalled and scheduled before the first model turn completed; each call ran once
  expect(signals.length).toBe(2);
  expect(signals[0]).toBeLessThan(tools.get('c1')![0]);
  expect(tools.get('c1')![0]).toBeLessThan(modelDone[0]);
  expect([...tools.entries()]).toEqual([
    ['c1', [tools.get('c1')![0]]],
    ['c2', [tools.get('c2')![0]]],
  ]);
  // c2 depends on c1: scheduled after c1 completed
  const c1Done = ev.find((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === tools.get('c1')![0])!;
  expect(tools.get('c2')![0]).toBeGreaterThan(Number(c1Done.eventId));
  const streamed = ev.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'callStreamed').map((e) => decode(e.workflowExecutionSignaledEventAttributes!.input?.payloads?.[0]));
  expect(streamed).toEqual([
    { turn: 0, call: { id: 'c1', name: 'echo', arguments: { text: 'first', _outputPath: '$.state.first' } } },
    { turn: 0, call: { id: 'c2', name: 'echo', arguments: { text: 'second', _dependsOn: ['c1'] } } },
  ]);
  // no token deltas in history: the only payload holding the text is the model turn's complete reply
  for (const e of ev) {
    const p = e.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
    if (p && String(decode(p).model) === 'oa-stream') expect(['Looking it up in two steps.', 'both done']).toContain((decode(p).message as { content?: string }).content);
  }
  // the last turn's text is in the store record, complete
  expect(parseStreamRecord(await store.getRecord(STREAM_RECORD_KIND, wid))).toEqual({ turn: 1, attempt: 1, text: 'both done', done: true });
});

test('a stream that breaks after a call was taken: the retried model turn completes with that call, which runs once', async () => {
  srv.enqueue(
    {
      kind: 'reply',
      content: null,
      tool_calls: [
        { id: 'k1', name: 'echo', arguments: { text: 'kept' } },
        { id: 'k2', name: 'echo', arguments: { text: 'lost in the break' } },
      ],
      stream: { cut_after_call_start: 1 },
    },
    reply('after the break'),
  );
  const before = srv.requests.length;
  const bundle = await storeTestBundle(streamAgent('breaker'));
  const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: `break-${randomBytes(4).toString('hex')}`, args: [{ bundle, agent_id: 'breaker', input: 'go' }] });
  const res = (await h.result()) as AgentRunResult;
  expect(res.output).toBe('after the break');
  // the retry did not ask the model again: one broken stream, then the next turn
  expect(srv.requests.length - before).toBe(2);
  const next = srv.requests[before + 1].body.messages!;
  const assistant = next.find((m) => m.role === 'assistant')!;
  expect(assistant.tool_calls!.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)])).toEqual([['k1', 'echo', { text: 'kept' }]]);
  expect(next.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content])).toEqual([['k1', 'kept']]);
  const ev = await historyEvents(h);
  expect([...runToolsByCall(ev).keys()]).toEqual(['k1']);
  expect(runToolsByCall(ev).get('k1')!.length).toBe(1);
  const modelStarted = ev.find((e) => e.activityTaskStartedEventAttributes && Number(e.activityTaskStartedEventAttributes.attempt) > 1);
  expect(modelStarted).toBeDefined();
});
