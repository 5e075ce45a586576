/**
 * Memory on the PostgreSQL store (LOOM_STORE_URL postgres://…): a real PostgreSQL started by the
 * test (test/helpers/postgres.ts), a worker whose store is that database, a chat session whose
 * collections write back without approval. The entry is a row of loom_records (kind `memory-entry`)
 * that a second session reads; a `scope: session` collection is emptied when its session ends.
 */
import type { Worker } from '@temporalio/worker';
import { Client as PgClient } from 'pg';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { startTestPostgres, TestPostgres } from '../helpers/postgres';
import { createActivities } from '../../src/activities';
import { MemoryStore } from '../../src/activities/memory';
import { storeBundle } from '../../src/activities/blob-store';
import { parseStoreUrl, PostgresBlobStore } from '../../src/store';
import type { CompiledCollection } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { SESSION_WORKFLOW_TYPE, sessionMessageUpdate, SessionReply } from '../../src/shared/session';
import { compileAgent, definition, scripted } from '../helpers/definitions';

let pg: TestPostgres;
let url: string;
let store: PostgresBlobStore;
let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  pg = await startTestPostgres('loom-memory');
  url = await pg.urlFor('loommemory');
  const loc = parseStoreUrl(url);
  if (loc.kind !== 'postgres') throw new Error('not a postgres url');
  store = new PostgresBlobStore(loc);
  t = await connectTestTemporal('memory-pg');
  worker = await createTestWorker(t, createActivities({ store }));
  running = worker.run();
}, 120_000);
afterAll(async () => {
  worker?.shutdown();
  await running;
  await t?.close();
  await store?.close();
  pg?.destroy();
});

/** A collection definition whose writeback needs no approval. */
const collection = (id: string, scope: CompiledCollection['scope'], namespace: string) => definition('collection', {
  collection_id: id, version: '1.0.0', status: 'active', description: `Memory ${id}.`, scope, backend: { type: 'memory', namespace }, writeback: { enabled: true, strategy: 'output', approval_required: false },
});
const facts = collection('facts', 'project', 'facts/{actorId}');
const scratch = collection('scratch', 'session', 'scratch/{sessionId}');

/** The chat agent, compiled from its definitions: it reads facts and writes facts and scratch. */
const { agent: a, bundle: compiled } = compileAgent({
  agent_id: 'pg-mem',
  model: scripted({ rules: [{ when: { input_contains: '# memory' }, reply: { content: 'Porto is your city' } }], turns: [{ content: 'Porto is lovely' }] }),
  others: [facts, scratch],
  front: { memory: { mode: 'project', read_collections: ['facts'], write_collections: ['facts', 'scratch'] } },
});

async function session(id: string, idle?: number) {
  const bundle = await storeBundle(store, compiled);
  return t.client.workflow.start(SESSION_WORKFLOW_TYPE, { taskQueue: t.taskQueue, workflowId: id, args: [{ bundle, agent_id: a.agent_id, actor_id: 'ada', ...(idle ? { idle_timeout_seconds: idle } : {}) }] });
}

test('writeback lands in PostgreSQL, the next session reads it, session-scoped memory is deleted at session end', async () => {
  const s1 = await session(`pg-mem-1-${Date.now()}`, 2);
  const r1: SessionReply = await s1.executeUpdate(sessionMessageUpdate, { args: [{ text: 'Tell me about Porto' }] });
  expect(r1).toMatchObject({ output: 'Porto is lovely', memory: { read: { facts: 0 }, written: ['facts', 'scratch'], pending: [] } });

  const db = new PgClient({ connectionString: url });
  await db.connect();
  try {
    // One row per entry (decision 272): key <collection>/<namespace>/<entry id>.
    const rows = await db.query<{ key: string; value: string }>("SELECT key, value FROM loom_records WHERE kind = 'memory-entry' ORDER BY key");
    expect(rows.rows.map((r) => r.key.replace(/sha256:[0-9a-f]{64}$/, 'ID'))).toEqual(['facts/facts/ada/ID', `scratch/scratch/${s1.workflowId}/ID`]);
    expect(JSON.parse(rows.rows[0].value).entry.text).toBe('Porto is lovely');

    const s2 = await session(`pg-mem-2-${Date.now()}`);
    const r2: SessionReply = await s2.executeUpdate(sessionMessageUpdate, { args: [{ text: 'Which city is lovely?' }] });
    expect(r2).toMatchObject({ output: 'Porto is your city', memory: { read: { facts: 1 } } });
    await s2.terminate('test over');

    // The idle timer ends session 1: its session-scoped namespace is emptied, the project one kept.
    const end: AgentRunResult = await s1.result();
    expect(end.output).toMatchObject({ messages: 1 });
    const mem = new MemoryStore(store);
    expect(await mem.list('scratch', `scratch/${s1.workflowId}`)).toEqual([]);
    expect((await mem.list('facts', 'facts/ada')).length).toBe(2);
  } finally {
    await db.end();
  }
}, 180_000);
