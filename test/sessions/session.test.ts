/**
 * Chat sessions on the dev server (src/workflows/session.ts): messages sent through the
 * sessionMessage update, each answered inside the session when the agent's turn is one model call
 * (else by the agent's own agf.react run as a child); history
 * carried between messages, trimmed to state.max_state_tokens, kept across continue-as-new; the
 * session ends after its idle timeout.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { TestTemporal } from '../helpers/temporal';
import { Harness, startHarness } from '../runtime/harness';
import type { CompiledAgent, CompiledBundle } from '../../src/compiled/types';
import type { AgentRunResult, RunStatus } from '../../src/shared/contract';
import { statusQuery } from '../../src/shared/definitions';
import { SESSION_WORKFLOW_TYPE, sessionMessageUpdate, SessionInput, SessionReply } from '../../src/shared/session';
import { storeTestBundle, testStore } from '../runtime/builders';
import { compileAgent, scripted } from '../helpers/definitions';
import { historyEvents, type HistoryEvent } from '../helpers/history';
import { sendSessionMessage } from '../../src/operator/sessions';

let t: TestTemporal;
let h: Harness;

beforeAll(async () => {
  h = await startHarness('sessions');
  t = h.t;
});
afterAll(async () => {
  await h?.close();
});

/** Replies depend on what the turn's first message shows of earlier messages (scripted, case-insensitive). */
const remembering = scripted({
  rules: [
    { when: { input_contains: '[assistant] noted: tea' }, reply: { content: 'You are Ada and you like tea' } },
    { when: { input_contains: '[assistant] nice to meet you' }, reply: { content: 'Noted: tea' } },
  ],
  turns: [{ content: 'Nice to meet you' }],
});

/** A chat agent compiled from its definition; `state` is its front matter's state block. */
function chatAgent(id: string, state?: CompiledAgent['state'], front: Record<string, unknown> = {}): CompiledBundle {
  return compileAgent({ agent_id: id, model: remembering, front: { ...front, ...(state ? { state } : {}) } }).bundle;
}

/** Activities scheduled in the session's history, by type (how many of each). */
async function activityCounts(h: { fetchHistory(): Promise<{ events?: unknown[] | null }> }): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const e of (await h.fetchHistory()).events as HistoryEvent[]) {
    const type = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (type) counts[type] = (counts[type] ?? 0) + 1;
  }
  return counts;
}

async function startSession(b: CompiledBundle, extra: Partial<SessionInput> = {}) {
  const bundle = await storeTestBundle(b);
  const input: SessionInput = { bundle, agent_id: b.root, ...extra };
  return t.client.workflow.start(SESSION_WORKFLOW_TYPE, { taskQueue: t.taskQueue, workflowId: `${b.root}-${Math.random().toString(36).slice(2, 10)}`, args: [input] });
}

type Handle = Awaited<ReturnType<typeof startSession>>;
const send = (h: Handle, text: string): Promise<SessionReply> => h.executeUpdate(sessionMessageUpdate, { args: [{ text }] });

test('a 3-message conversation: each turn sees the earlier exchanges (state.session_history: session)', async () => {
  const h = await startSession(chatAgent('chat-session', { session_history: 'session' }));
  const r1 = await send(h, 'My name is Ada');
  const r2 = await send(h, 'I like tea');
  const r3 = await send(h, 'What do you know about me?');
  expect([r1.output, r2.output, r3.output]).toEqual(['Nice to meet you', 'Noted: tea', 'You are Ada and you like tea']);
  expect([r1.kept, r2.kept, r3.kept]).toEqual([0, 2, 4]);
  // A turn that is one model call runs inside the session: the reply names the session itself.
  expect(r3).toMatchObject({ message: 3, dropped: 0, execution: 1, workflow_id: h.workflowId });
  const st: RunStatus = await h.query(statusQuery);
  expect(st).toMatchObject({ state: 'running', pattern: 'session', turn: 3 });
  expect(st.progress).toMatchObject({ messages: 3, session_history: 'session', agent_pattern: 'agf.react' });
  expect(st.token_usage.total_tokens).toBeGreaterThan(0);
  // Per message one store round trip (the turn input, which records the previous exchange) and one model turn; no child run.
  expect(await activityCounts(h)).toEqual({ sessionPlan: 1, sessionTurnInput: 3, modelTurn: 3 });
  expect((await historyEvents(h)).filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toEqual([]);
  await h.terminate('test over');
}, 120_000);

test('an agent whose turn needs its own run (runtime.timeout_seconds) still answers through a child run', async () => {
  const h = await startSession(chatAgent('chat-child', { session_history: 'session' }, { runtime: { timeout_seconds: 120 } }));
  const r1 = await send(h, 'My name is Ada');
  const r2 = await send(h, 'I like tea');
  expect([r1.output, r2.output]).toEqual(['Nice to meet you', 'Noted: tea']);
  expect(r2).toMatchObject({ message: 2, kept: 2, workflow_id: `${h.workflowId}/message-2` });
  expect((await historyEvents(h)).filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).length).toBe(2);
  expect(await activityCounts(h)).toEqual({ sessionPlan: 1, sessionTurnInput: 2 });
  await h.terminate('test over');
}, 120_000);

test('state.session_history: ephemeral: each turn starts with no earlier message', async () => {
  const h = await startSession(chatAgent('chat-ephemeral', { session_history: 'ephemeral' }));
  const replies = [await send(h, 'My name is Ada'), await send(h, 'I like tea'), await send(h, 'What do you know about me?')];
  expect(replies.map((r) => r.output)).toEqual(['Nice to meet you', 'Nice to meet you', 'Nice to meet you']);
  expect(replies.map((r) => r.kept)).toEqual([0, 0, 0]);
  await h.terminate('test over');
}, 120_000);

test('state.max_state_tokens trims the oldest messages first', async () => {
  // 25 tokens = 100 characters of state: the first exchange (90) fits alone, not with the second (81).
  const h = await startSession(chatAgent('chat-trim', { session_history: 'session', max_state_tokens: 25 }));
  const long = (tag: string) => `${tag} ${'x'.repeat(40)}`;
  await send(h, long('My name is Ada'));
  const r2 = await send(h, long('I like tea'));
  const r3 = await send(h, 'What do you know about me?');
  expect(r2.output).toBe('Noted: tea');
  expect(r2).toMatchObject({ kept: 2, dropped: 0 });
  // The first exchange was left out: the model no longer sees "[assistant] Nice to meet you"…
  expect(r3).toMatchObject({ dropped: 2 });
  expect(r3.kept).toBeGreaterThan(0);
  expect(r3.kept + r3.dropped).toBe(4);
  // …but still sees the newest exchange (its reply shows the rule on "[assistant] Noted: tea" matched).
  expect(r3.output).toBe('You are Ada and you like tea');
  const st: RunStatus = await h.query(statusQuery);
  expect(st.progress).toMatchObject({ max_state_tokens: 25, last_turn: { dropped: 2 } });
  await h.terminate('test over');
}, 120_000);

test('continue-as-new mid-session keeps the conversation (several executions, history carried)', async () => {
  const h = await startSession(chatAgent('chat-can', { session_history: 'session' }), { continue_as_new_every: 2 });
  const replies: SessionReply[] = [];
  for (const text of ['My name is Ada', 'I like tea', 'What do you know about me?', 'one', 'two', 'three', 'four']) replies.push(await send(h, text));
  expect(replies.map((r) => r.execution)).toEqual([1, 1, 2, 2, 3, 3, 4]);
  // Message 3 was answered by the second execution and still saw messages 1 and 2.
  expect(replies[2].output).toBe('You are Ada and you like tea');
  expect(replies.map((r) => r.kept)).toEqual([0, 2, 4, 6, 8, 10, 12]);
  const st: RunStatus = await h.query(statusQuery);
  expect(st.progress).toMatchObject({ messages: 7, execution: 4 });
  // The first execution closed as continued-as-new with a short history.
  const first = t.client.workflow.getHandle(h.workflowId, h.firstExecutionRunId);
  expect((await first.describe()).status.name).toBe('CONTINUED_AS_NEW');
  expect((await historyEvents(first)).length).toBeLessThan(80);
  await h.terminate('test over');
}, 180_000);

test('an idle session ends after idle_timeout_seconds (a durable timer, re-armed after each reply)', async () => {
  const h = await startSession(chatAgent('chat-idle'), { idle_timeout_seconds: 2 });
  expect((await send(h, 'My name is Ada')).output).toBe('Nice to meet you');
  const res: AgentRunResult = await h.result();
  expect(res.output).toEqual({ session_id: h.workflowId, messages: 1, ended: 'no message for 2 s (idle timeout)' });
  const timers = (await historyEvents(h)).filter((e) => e.timerFiredEventAttributes);
  expect(timers.length).toBe(1);
}, 120_000);

test('an empty message is refused by the update validator and the session goes on', async () => {
  const h = await startSession(chatAgent('chat-empty'));
  await expect(send(h, '   ')).rejects.toThrow(WorkflowUpdateFailedError);
  expect((await send(h, 'My name is Ada')).output).toBe('Nice to meet you');
  await h.terminate('test over');
}, 120_000);

test('update-with-start: the first message starts the session, the next one reaches the running session', async () => {
  const b = chatAgent('chat-uws', { session_history: 'session' });
  const bundle = await storeTestBundle(b);
  const session = { root: b.agents[b.root], sessionId: `chat-uws-${Math.random().toString(36).slice(2, 10)}`, input: { bundle, agent_id: b.root, idle_timeout_seconds: 600 } };
  const queue = process.env.LOOM_TASK_QUEUE;
  process.env.LOOM_TASK_QUEUE = t.taskQueue;
  try {
    const r1 = await sendSessionMessage(t.client, session, 'My name is Ada');
    const r2 = await sendSessionMessage(t.client, session, 'I like tea');
    expect([r1.output, r2.output]).toEqual(['Nice to meet you', 'Noted: tea']);
    expect([r1.message, r2.message, r2.kept]).toEqual([1, 2, 2]);
    // One session: the second message joined the run the first one started.
    const h = t.client.workflow.getHandle(session.sessionId);
    const st: RunStatus = await h.query(statusQuery);
    expect(st.progress).toMatchObject({ messages: 2, execution: 1 });
    await h.terminate('test over');
  } finally {
    if (queue === undefined) delete process.env.LOOM_TASK_QUEUE;
    else process.env.LOOM_TASK_QUEUE = queue;
  }
}, 120_000);
