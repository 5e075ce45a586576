/**
 * A collection whose backend is a PostgreSQL database of its own (`backend: {type: postgres, url,
 * credentials_ref}`), against a real Temporal dev server and a real PostgreSQL
 * (test/helpers/postgres.ts): the worker's shared store is a folder, the collection's entries land
 * in the collection's database, its password is read from the secret store at run time (an
 * environment variable named in tenant.md) and is in no payload or history; an approved writeback
 * goes to the same database; a missing secret fails with a clear error naming the ref.
 */
import type { Worker } from '@temporalio/worker';
import { Client as PgClient } from 'pg';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { startTestPostgres, TestPostgres } from '../helpers/postgres';
import { createActivities } from '../../src/activities';
import { createMemoryActivities } from '../../src/activities/memory';
import { BundleCache } from '../../src/activities/agent-loader';
import { storeBundle } from '../../src/activities/blob-store';
import { closeOpenStores } from '../../src/store';
import type { FileBlobStore } from '../../src/store';
import { SESSION_WORKFLOW_TYPE, sessionMessageUpdate, SessionReply } from '../../src/shared/session';
import { compileAgent, definition, scripted, Definitions } from '../helpers/definitions';
import { testStore } from '../runtime/builders';

const SECRET_ENV = 'LOOM_TEST_NOTES_DB_PASSWORD';
let pg: TestPostgres;
let dbUrl: string;
let store: FileBlobStore;
let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;

/** The collection's own database: `postgres://user@host:port/notesdb`, the password only in the worker's environment. */
function urlWithoutPassword(url: string): string {
  const u = new URL(url);
  u.password = '';
  return u.toString();
}

let compiled: ReturnType<typeof compileAgent>;

beforeAll(async () => {
  pg = await startTestPostgres('loom-coll-backend');
  dbUrl = await pg.urlFor('notesdb');
  process.env[SECRET_ENV] = pg.password;
  store = testStore();
  const collection = (id: string, approval: boolean) => definition('collection', {
    collection_id: id, version: '1.0.0', status: 'active', description: `Memory ${id}.`, scope: 'project',
    backend: { type: 'postgres', url: urlWithoutPassword(dbUrl), credentials_ref: 'notes-db', namespace: `${id}/{actorId}` },
    writeback: { enabled: true, strategy: 'output', approval_required: approval },
  });
  const defs = new Definitions().tenant({ tenant_id: 'mem-test', data_residency: 'eu', secrets: { 'notes-db': { env: SECRET_ENV } } });
  compiled = compileAgent({
    agent_id: 'pg-notes',
    model: scripted({ rules: [{ when: { input_contains: '# memory' }, reply: { content: 'You live in Porto' } }], turns: [{ content: 'Porto is lovely' }] }),
    others: [collection('notes', false), collection('reviewed', true)],
    front: { memory: { mode: 'project', read_collections: ['notes'], write_collections: ['notes', 'reviewed'] } },
  }, defs);
  t = await connectTestTemporal('memory-coll-backend');
  worker = await createTestWorker(t, createActivities({ store }));
  running = worker.run();
}, 120_000);
afterAll(async () => {
  worker?.shutdown();
  await running;
  await t?.close();
  await closeOpenStores();
  pg?.destroy();
  delete process.env[SECRET_ENV];
});

async function rows(): Promise<{ key: string; value: string }[]> {
  const db = new PgClient({ connectionString: dbUrl });
  await db.connect();
  try {
    return (await db.query<{ key: string; value: string }>("SELECT key, value FROM loom_records WHERE kind = 'memory-entry' ORDER BY key")).rows;
  } finally {
    await db.end();
  }
}

test('the password is in no compiled payload: only the ref and where it is read', () => {
  const text = JSON.stringify(compiled.bundle);
  expect(text).not.toContain(pg.password);
  expect(compiled.agent.memory.read_collections[0].backend).toMatchObject({ type: 'postgres', credentials_ref: 'notes-db' });
  expect(compiled.agent.tenant?.secrets).toEqual({ 'notes-db': { env: SECRET_ENV } });
});

test('a session writes back into the collection\'s own database, the next session reads it from there; the password is in no history', async () => {
  const start = async (id: string) => t.client.workflow.start(SESSION_WORKFLOW_TYPE, {
    taskQueue: t.taskQueue, workflowId: id, args: [{ bundle: await storeBundle(store, compiled.bundle), agent_id: 'pg-notes', actor_id: 'ada' }],
  });
  const s1 = await start(`pg-notes-1-${Date.now()}`);
  const r1: SessionReply = await s1.executeUpdate(sessionMessageUpdate, { args: [{ text: 'Tell me about Porto' }] });
  expect(r1).toMatchObject({ output: 'Porto is lovely', memory: { read: { notes: 0 }, written: ['notes'], pending: ['memory-1-reviewed'] } });

  const written = await rows();
  expect(written.map((r) => r.key.replace(/sha256:[0-9a-f]{64}$/, 'ID'))).toEqual(['notes/notes/ada/ID']);
  expect(JSON.parse(written[0].value).entry.text).toBe('Porto is lovely');
  // Not in the shared store.
  expect(await store.listRecords('memory-entry', 'notes/')).toEqual([]);

  const s2 = await start(`pg-notes-2-${Date.now()}`);
  const r2: SessionReply = await s2.executeUpdate(sessionMessageUpdate, { args: [{ text: 'Where do I live? Porto?' }] });
  expect(r2).toMatchObject({ output: 'You live in Porto', memory: { read: { notes: 1 } } });

  for (const s of [s1, s2]) expect(JSON.stringify((await s.fetchHistory()).events)).not.toContain(pg.password);
});

test('an approved writeback goes to the collection\'s database too (the pending entry carries no password)', async () => {
  const bundle = await storeBundle(store, compiled.bundle);
  const acts = createMemoryActivities({ bundles: new BundleCache(store), store });
  const scope = { bundle, agent_id: 'pg-notes', actor_id: 'bob', session_id: 's-approve' };
  const out = await acts.memoryWriteback({ ...scope, message: 1, text: 'q', answer: 'Bob likes tea', at: new Date().toISOString() });
  expect(out.pending).toHaveLength(1);
  expect(JSON.stringify(out.pending)).not.toContain(pg.password);
  await acts.memoryWrite(out.pending[0]);
  expect((await rows()).map((r) => r.key.replace(/sha256:[0-9a-f]{64}$/, 'ID'))).toContain('reviewed/reviewed/bob/ID');
  expect(await store.listRecords('memory-entry', 'reviewed/')).toEqual([]);
});

test('without the secret on the worker the read fails, naming the ref and the variable (never a value)', async () => {
  const bundle = await storeBundle(store, compiled.bundle);
  const acts = createMemoryActivities({ bundles: new BundleCache(store), store, env: {} });
  await expect(acts.memoryRead({ bundle, agent_id: 'pg-notes', actor_id: 'ada', session_id: 's', query: 'Porto' })).rejects.toThrow(
    `credentials_ref \`notes-db\`: the environment variable ${SECRET_ENV} is not set on this worker`,
  );
});
