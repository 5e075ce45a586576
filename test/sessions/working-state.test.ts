/**
 * state.working_state across the turns of a chat session on the dev server: a turn's intermediate
 * results (here a tool result the dependencies loop wrote to the run's State) are kept for the
 * following turns with `session`, and dropped after the turn with `ephemeral`. Session history is
 * ephemeral in every agent here, so what a later turn knows of an earlier one comes from the working
 * state alone; the scripted model answers from what the turn's first message shows.
 */
import type { CompiledBundle } from '../../src/compiled/types';
import { SESSION_WORKFLOW_TYPE, sessionMessageUpdate, type SessionInput, type SessionReply } from '../../src/shared/session';
import { Harness, startHarness, waitForStatus } from '../runtime/harness';
import { storeTestBundle, testStore } from '../runtime/builders';
import { historyEvents } from '../helpers/history';
import { builtin, compileAgent, scripted, type FrontMatter } from '../helpers/definitions';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('working-state');
});
afterAll(async () => {
  await h?.close();
});

/**
 * Message "step one": the model calls echo with `_outputPath` (its result lands in the run's State),
 * then answers "noted". A later message: the model says whether its first message showed the finding.
 */
const researcher = scripted({
  rules: [
    { when: { input_contains: 'draft-finding-1' }, reply: { content: 'building on draft-finding-1' } },
    { when: { input_contains: 'step two' }, reply: { content: 'no earlier finding' } },
    { when: { input_contains: 'step three' }, reply: { content: 'no earlier finding' } },
  ],
  turns: [
    { tool_calls: [{ id: 'c1', name: 'echo', arguments: { text: 'draft-finding-1', _outputPath: '$.state.finding' } }] },
    { content: 'noted' },
  ],
});

function sessionAgent(id: string, state: FrontMatter): CompiledBundle {
  const { bundle, defs } = compileAgent({
    agent_id: id, model: researcher, tools: [builtin('echo')],
    front: { runtime: { execution_loop: 'dependencies' }, state: { session_history: 'ephemeral', ...state } },
  });
  defs.remove();
  return bundle;
}

async function startSession(b: CompiledBundle, extra: Partial<SessionInput> = {}) {
  const input: SessionInput = { bundle: await storeTestBundle(b), agent_id: b.root, ...extra };
  return h.t.client.workflow.start(SESSION_WORKFLOW_TYPE, { taskQueue: h.t.taskQueue, workflowId: `${b.root}-${Math.random().toString(36).slice(2, 10)}`, args: [input] });
}

type Handle = Awaited<ReturnType<typeof startSession>>;
const send = (s: Handle, text: string): Promise<SessionReply> => s.executeUpdate(sessionMessageUpdate, { args: [{ text }] });

/** The scratchpad the session's current execution was started with (continue-as-new carries it), read from the store. */
async function carriedScratchpad(s: Handle): Promise<{ entries: { turn: number; note: string }[] } | null> {
  const started = (await historyEvents(h.t.client.workflow.getHandle(s.workflowId)))[0].workflowExecutionStartedEventAttributes;
  const input = JSON.parse(Buffer.from(started?.input?.payloads?.[0]?.data ?? []).toString('utf8')) as SessionInput;
  const ref = input.carried?.scratchpad ?? null;
  return ref ? testStore().getJson(ref) : null;
}

test('working_state: session keeps a turn\'s intermediate result for the later turns, also across continue-as-new', async () => {
  // One execution per message: every later turn runs in a new execution of the session.
  const s = await startSession(sessionAgent('ws-session', { working_state: 'session', scratchpad_visible_to_model: true }), { continue_as_new_every: 1 });
  const r1 = await send(s, 'step one');
  const r2 = await send(s, 'step two');
  const r3 = await send(s, 'step three');
  expect([r1.output, r2.output, r3.output]).toEqual(['noted', 'building on draft-finding-1', 'building on draft-finding-1']);
  expect([r1.notes_kept, r2.notes_kept, r3.notes_kept]).toEqual([0, 1, 1]);
  expect([r1.execution, r2.execution, r3.execution]).toEqual([1, 2, 3]);
  // No history was carried: the earlier answer is not what the later turns saw.
  expect([r2.kept, r3.kept]).toEqual([0, 0]);
  const pad = await carriedScratchpad(s);
  expect(pad?.entries.map((e) => e.turn)).toEqual([1]);
  await s.terminate('test over');
}, 180_000);

test('working_state: ephemeral drops the intermediate result after the turn: the later turns start without it', async () => {
  const s = await startSession(sessionAgent('ws-ephemeral', { working_state: 'ephemeral', scratchpad_visible_to_model: true }), { continue_as_new_every: 1 });
  const replies = [await send(s, 'step one'), await send(s, 'step two'), await send(s, 'step three')];
  expect(replies.map((r) => r.output)).toEqual(['noted', 'no earlier finding', 'no earlier finding']);
  expect(replies.map((r) => r.notes_kept)).toEqual([0, 0, 0]);
  // Nothing is carried from turn to turn.
  expect(await carriedScratchpad(s)).toBeNull();
  await s.terminate('test over');
}, 180_000);

test('working_state: session with scratchpad_visible_to_model: false keeps the notes out of the model context', async () => {
  const s = await startSession(sessionAgent('ws-hidden', { working_state: 'session', scratchpad_visible_to_model: false }), { continue_as_new_every: 1 });
  const replies = [await send(s, 'step one'), await send(s, 'step two')];
  expect(replies.map((r) => r.output)).toEqual(['noted', 'no earlier finding']);
  expect(replies.map((r) => r.notes_kept)).toEqual([0, 0]);
  // …but kept by the runtime: the scratchpad the session carries holds the first turn's State.
  const pad = await carriedScratchpad(s);
  expect(pad?.entries.map((e) => e.turn)).toEqual([1]);
  expect(pad?.entries[0].note).toContain('"finding":"draft-finding-1"');
  // The new execution reads its plan at start: the status shows it once read.
  const st = await waitForStatus(s, (x) => (x.progress as { working_state?: string } | undefined)?.working_state !== undefined);
  expect(st.progress).toMatchObject({ working_state: 'session', session_history: 'ephemeral', scratchpad_visible_to_model: false });
  await s.terminate('test over');
}, 180_000);
