/**
 * Memory collections in chat sessions on the dev server (seed 001 "memory"): read before each
 * turn with {actorId} substituted (only the actor's entries, keyword-matched), written back after
 * it; a collection with `approval_required` waits for approve/reject (the session shows it as a
 * pending approval and keeps chatting), and only an approved entry reaches the store.
 */
import type { Worker } from '@temporalio/worker';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { createActivities } from '../../src/activities';
import { MemoryStore } from '../../src/activities/memory';
import type { CompiledBundle } from '../../src/compiled/types';
import type { RunStatus } from '../../src/shared/contract';
import { approveUpdate, rejectUpdate, statusQuery } from '../../src/shared/definitions';
import { SESSION_WORKFLOW_TYPE, sessionMessageUpdate, SessionInput, SessionReply } from '../../src/shared/session';
import { storeTestBundle, testStore } from '../runtime/builders';
import { compileAgent, definition, scripted } from '../helpers/definitions';
import { until as waitUntil } from '../helpers/wait';

let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  t = await connectTestTemporal('memory');
  worker = await createTestWorker(t, createActivities({ store: testStore() }));
  running = worker.run();
});
afterAll(async () => {
  worker.shutdown();
  await running;
  await t.close();
});

const prefs = definition('collection', {
  collection_id: 'prefs', version: '1.0.0', status: 'active', description: 'Per-actor preferences, written back after approval.', scope: 'project',
  backend: { type: 'memory', namespace: 'prefs/{actorId}' },
  writeback: { enabled: true, strategy: 'exchange', approval_required: true },
});

/** Replies show whether the turn's first message carried a memory block. */
const model = scripted({
  rules: [{ when: { input_contains: '# memory' }, reply: { content: 'I remember your preferences' } }],
  turns: [{ content: 'Noted' }],
});

function memoryAgent(id: string): CompiledBundle {
  return compileAgent({ agent_id: id, model, others: [prefs], front: { memory: { mode: 'project', read_collections: ['prefs'], write_collections: ['prefs'] } } }).bundle;
}

async function session(b: CompiledBundle, actor: string, extra: Partial<SessionInput> = {}) {
  const bundle = await storeTestBundle(b);
  return t.client.workflow.start(SESSION_WORKFLOW_TYPE, { taskQueue: t.taskQueue, workflowId: `${b.root}-${actor}-${Math.random().toString(36).slice(2, 8)}`, args: [{ bundle, agent_id: b.root, actor_id: actor, ...extra }] });
}
type Handle = Awaited<ReturnType<typeof session>>;
const send = (h: Handle, text: string): Promise<SessionReply> => h.executeUpdate(sessionMessageUpdate, { args: [{ text }] });

const until = <T>(what: string, fn: () => Promise<T | undefined>): Promise<T> => waitUntil(fn, what, 40_000);

test('writeback waits for approval (the chat goes on), the approved entry is read by the actor\'s next session and by no other actor', async () => {
  const a = memoryAgent('mem-agent');
  const mem = new MemoryStore(testStore());
  const h = await session(a, 'ada');
  const r1 = await send(h, 'Please contact me by email');
  expect(r1.output).toBe('Noted');
  expect(r1.memory).toEqual({ read: { prefs: 0 }, written: [], pending: ['memory-1-prefs'] });
  const st: RunStatus = await h.query(statusQuery);
  expect(st.state).toBe('waiting_for_approval');
  expect(st.pending_approvals).toMatchObject([{ call_id: 'memory-1-prefs', tool: 'memory_writeback', arguments: { collection: 'prefs', namespace: 'prefs/ada', text: 'user: Please contact me by email\nassistant: Noted' } }]);
  expect(st.pending_decisions).toMatchObject([{ kind: 'approval', workflow_id: h.workflowId, path: [], call_id: 'memory-1-prefs' }]);
  // Nothing is stored before the decision, and the session still answers.
  expect(await mem.list('prefs', 'prefs/ada')).toEqual([]);
  expect((await send(h, 'Also I live in Porto')).memory?.pending).toEqual(['memory-2-prefs']);
  // An unknown call id is refused with what waits.
  await expect(h.executeUpdate(approveUpdate, { args: [{ call_id: 'memory-9-prefs' }] })).rejects.toThrow(/Update failed/);
  expect(await h.executeUpdate(approveUpdate, { args: [{ call_id: 'memory-1-prefs', by: 'ops' }] })).toBe('approved memory writeback memory-1-prefs');
  expect(await h.executeUpdate(rejectUpdate, { args: [{ call_id: 'memory-2-prefs', reason: 'not a preference', by: 'ops' }] })).toBe('rejected memory writeback memory-2-prefs');
  const stored = await until('the approved entry in the store', async () => { const e = await mem.list('prefs', 'prefs/ada'); return e.length ? e : undefined; });
  expect(stored.map((e) => e.text)).toEqual(['user: Please contact me by email\nassistant: Noted']);
  const after = await until('no writeback waiting', async () => { const s: RunStatus = await h.query(statusQuery); return s.pending_approvals.length ? undefined : s; });
  expect(after.state).toBe('running');
  expect(after.warnings).toEqual(['memory writeback memory-2-prefs to prefs not written: rejected by ops (not a preference)']);
  await h.terminate('test over');

  // A new session of the same actor reads it (keyword match on "email"); another actor's namespace is empty.
  const again = await session(a, 'ada');
  const r = await send(again, 'Which contact channel, email or phone?');
  expect(r.output).toBe('I remember your preferences');
  expect(r.memory?.read).toEqual({ prefs: 1 });
  const other = await session(a, 'bob');
  const rb = await send(other, 'Which contact channel, email or phone?');
  expect(rb.output).toBe('Noted');
  expect(rb.memory?.read).toEqual({ prefs: 0 });
  await Promise.all([again.terminate('test over'), other.terminate('test over')]);
}, 180_000);
