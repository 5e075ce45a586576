/**
 * Encryption on with the PostgreSQL store (issue 12 points 1 and 6): the proof of
 * test/codec/encryption.test.ts on LOOM_STORE_URL=postgres://… (a real PostgreSQL started by the
 * test, test/helpers/postgres.ts). A run whose input, tool calls (one failing with the phrase in its
 * error), answer and artifacts carry a secret-looking phrase, and a chat session whose messages
 * carry it and whose memory collection writes it back, complete through an encrypting worker and
 * client. Then EVERY table of the store database (found in information_schema, not a fixed list) and
 * every Temporal history of the task queue are scanned for the phrase (raw, hex and base64): none
 * holds it. Control: opened with the key, the store's blobs, records and artifacts do hold it.
 * A provider error that echoes the prompt fails the run: its message and stack (Temporal failure
 * attributes, not payloads) are encrypted too, and the encrypting client reads them in the clear.
 */
import { randomBytes } from 'crypto';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { rootCause } from '@temporalio/common';
import type { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { Client as PgClient } from 'pg';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { startTestPostgres, TestPostgres } from '../helpers/postgres';
import { createActivities } from '../../src/activities';
import { storeBundle } from '../../src/activities/blob-store';
import { agfReactWorkflow } from '../../src/workflows/react';
import { codecKeysFromEnv, loomDataConverter } from '../../src/codec';
import { unseal } from '../../src/store/encrypted';
import { closeOpenStores, openStore } from '../../src/store';
import { SESSION_WORKFLOW_TYPE, sessionMessageUpdate, SessionReply } from '../../src/shared/session';
import { builtin, compileAgent, definition, model, scripted } from '../helpers/definitions';
import { httpError, startFakeOpenAI } from '../helpers/openai-server';
import { needles } from './needles';

jest.setTimeout(300_000);

const PHRASE = `SECRET-PASSPHRASE-${randomBytes(6).toString('hex').toUpperCase()}`;
const SAVED = ['LOOM_STORE_URL', 'LOOM_STORE_DIR', 'LOOM_CODEC_KEY', 'LOOM_ENCRYPTION'].map((k) => [k, process.env[k]] as const);

let pg: TestPostgres;
let url: string;
let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let client: Client;

beforeAll(async () => {
  pg = await startTestPostgres('loom-codec-pg');
  url = await pg.urlFor('loomcodec');
  Object.assign(process.env, { LOOM_CODEC_KEY: `pg-2026:${randomBytes(32).toString('base64')}`, LOOM_ENCRYPTION: 'on', LOOM_STORE_URL: url });
  delete process.env.LOOM_STORE_DIR;
  t = await connectTestTemporal('codec-pg');
  worker = await createTestWorker(t, createActivities({ store: openStore() }), { dataConverter: loomDataConverter() });
  running = worker.run();
  client = new Client({ connection: t.connection, namespace: 'default', dataConverter: loomDataConverter() });
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await t?.close();
  await closeOpenStores();
  pg?.destroy();
  for (const [k, v] of SAVED) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

const NEEDLES = needles(PHRASE);
const holdsPhrase = (b: Buffer): boolean => NEEDLES.some((n) => b.includes(n));

function asBytes(v: unknown): Buffer {
  if (Buffer.isBuffer(v)) return v;
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  if (v instanceof Date) return Buffer.from(v.toISOString());
  return Buffer.from(JSON.stringify(v) ?? '');
}

interface Cell { table: string; column: string; value: Buffer }

/** Every cell of every user table of the store database. */
async function everyCell(): Promise<{ tables: string[]; cells: Cell[] }> {
  const db = new PgClient({ connectionString: url });
  await db.connect();
  try {
    const tables = (
      await db.query<{ s: string; n: string }>(
        "SELECT table_schema AS s, table_name AS n FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2",
      )
    ).rows.map((r) => `"${r.s}"."${r.n}"`);
    const cells: Cell[] = [];
    for (const table of tables) {
      const rows = (await db.query<Record<string, unknown>>(`SELECT * FROM ${table}`)).rows;
      for (const row of rows) for (const [column, v] of Object.entries(row)) cells.push({ table, column, value: asBytes(v) });
    }
    return { tables, cells };
  } finally {
    await db.end();
  }
}

/** Every execution (every run of each workflow id, children included) that ran on this test's task queue. */
async function everyHistory(): Promise<Array<{ workflowId: string; runId: string; bytes: Buffer }>> {
  const out: Array<{ workflowId: string; runId: string; bytes: Buffer }> = [];
  for await (const wf of t.client.workflow.list({ query: `TaskQueue = '${t.taskQueue}'` })) {
    // The history as the server holds it: the raw service call, no data converter, no codec.
    let nextPageToken: Uint8Array | undefined;
    const events: temporal.api.history.v1.IHistoryEvent[] = [];
    do {
      const r = await t.client.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId: wf.workflowId, runId: wf.runId }, nextPageToken });
      events.push(...(r.history?.events ?? []));
      nextPageToken = r.nextPageToken?.length ? r.nextPageToken : undefined;
    } while (nextPageToken);
    out.push({ workflowId: wf.workflowId, runId: wf.runId, bytes: Buffer.from(temporal.api.history.v1.History.encode({ events }).finish()) });
  }
  return out;
}

const collection = definition('collection', {
  collection_id: 'facts', version: '1.0.0', status: 'active', description: 'Facts about the actor.', scope: 'project', backend: { type: 'memory', namespace: 'facts/{actorId}' },
  writeback: { enabled: true, strategy: 'output', approval_required: false },
});
/** An input with the `question` the runs are given. */
const QUESTION_INPUT = { input: { schema: { type: 'object', properties: { question: { type: 'string' } } } } };

test('PostgreSQL store: no table and no history holds the phrase; opened with the key, the store does', async () => {
  // 1. An agent run: input, a failing tool call, a tool call, the answer and every artifact carry the phrase.
  const { bundle: vault } = compileAgent({
    agent_id: 'pg-vault',
    model: scripted({
      turns: [
        { tool_calls: [{ name: 'fail', arguments: { message: 'cannot keep {{input.question}}' } }] },
        { tool_calls: [{ name: 'echo', arguments: { text: 'remember {{input.question}}' } }] },
        { content: { answer: 'stored: {{input.question}}' } },
      ],
    }),
    tools: [builtin('fail'), builtin('echo')],
    front: {
      interface: { ...QUESTION_INPUT, output: { schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } } },
      artifacts: { enabled: true, save_input: true, save_output: true, save_intermediate: true, retention_class: 'standard' },
    },
  });
  const bundle = await storeBundle(openStore(), vault);
  const runId = `pg-vault-${randomBytes(4).toString('hex')}`;
  const res = await client.workflow.execute(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: runId, args: [{ bundle, agent_id: 'pg-vault', input: { question: `my ${PHRASE}` } }] });
  expect(res.output).toEqual({ answer: `stored: my ${PHRASE}` });

  // 2. A chat session: two messages with the phrase, memory written back, continue-as-new after each message.
  const { bundle: chat } = compileAgent({
    agent_id: 'pg-chat',
    model: scripted({ rules: [{ when: { input_contains: 'again' }, reply: { content: `still ${PHRASE}` } }], turns: [{ content: `noted ${PHRASE}` }] }),
    others: [collection],
    front: { state: { session_history: 'session' }, memory: { mode: 'project', read_collections: ['facts'], write_collections: ['facts'] } },
  });
  const chatBundle = await storeBundle(openStore(), chat);
  const sessionId = `pg-chat-${randomBytes(4).toString('hex')}`;
  const s = await client.workflow.start(SESSION_WORKFLOW_TYPE, {
    taskQueue: t.taskQueue, workflowId: sessionId, args: [{ bundle: chatBundle, agent_id: 'pg-chat', actor_id: 'ada', continue_as_new_every: 1 }],
  });
  const r1: SessionReply = await s.executeUpdate(sessionMessageUpdate, { args: [{ text: `my passphrase is ${PHRASE}` }] });
  const r2: SessionReply = await s.executeUpdate(sessionMessageUpdate, { args: [{ text: `say it again: ${PHRASE}` }] });
  expect([r1.output, r2.output]).toEqual([`noted ${PHRASE}`, `still ${PHRASE}`]);
  expect(r2).toMatchObject({ kept: 2, memory: { written: ['facts'] } });
  await s.terminate('test over');

  // 3. The scan: every table, every cell.
  const { tables, cells } = await everyCell();
  expect(tables).toEqual(expect.arrayContaining(['"public"."loom_blobs"', '"public"."loom_records"', '"public"."loom_artifacts"']));
  expect(cells.filter((c) => holdsPhrase(c.value)).map((c) => `${c.table}.${c.column}`)).toEqual([]);
  // Record keys and artifact names are addresses, not content.
  const cellsOf = (table: string, column: string) => cells.filter((c) => c.table === `"public"."${table}"` && c.column === column).map((c) => c.value);
  expect(cellsOf('loom_artifacts', 'run_id').map(String)).toEqual([runId, runId, runId]);
  expect(cellsOf('loom_records', 'kind').map(String)).toContain('memory-entry');

  // Control: the store does hold all of it — sealed. Opened with the key, blobs, records and artifacts show the phrase.
  const keys = codecKeysFromEnv();
  const open = (b: Buffer, what: string): Buffer => (b.toString('latin1').startsWith('loomenc1:') ? unseal(Buffer.from(b.toString().slice(9), 'base64'), keys, what) : unseal(b, keys, what));
  for (const [table, column] of [['loom_blobs', 'data'], ['loom_records', 'value'], ['loom_artifacts', 'content']]) {
    const opened = cellsOf(table, column).map((b) => open(b, `${table}.${column}`));
    expect({ table, opened: opened.filter((b) => b.includes(Buffer.from(PHRASE))).length > 0 }).toEqual({ table, opened: true });
  }
  expect((await openStore().getArtifact(runId, 'input.json'))?.content.toString()).toContain(PHRASE);

  // 4. Every history of the task queue: the run and the session's executions. The session's message
  // turns (one model call each) run inside the session as its own activities, so their inputs and
  // answers are in the session's histories, which the scan covers.
  const histories = await everyHistory();
  expect(histories.map((h) => h.workflowId)).toEqual(expect.arrayContaining([runId, sessionId]));
  expect(histories.filter((h) => h.workflowId === sessionId).length).toBeGreaterThanOrEqual(2); // continued as new
  expect(histories.filter((h) => holdsPhrase(h.bytes)).map((h) => `${h.workflowId}/${h.runId}`)).toEqual([]);
});

test('a provider error echoing the prompt: the failure message is encrypted in the history, the client reads it', async () => {
  const srv = await startFakeOpenAI();
  const keyEnv = `LOOM_TEST_OPENAI_KEY_${randomBytes(3).toString('hex').toUpperCase()}`;
  process.env[keyEnv] = `sk-test-${randomBytes(12).toString('hex')}`;
  try {
    srv.enqueue(httpError(400, undefined, `Your prompt 'my ${PHRASE}' violates the usage policy`));
    const { bundle: refused } = compileAgent({
      agent_id: 'pg-refused',
      model: model('oa-test', 'openai', { openai: { base_url: srv.baseUrl, model: 'gpt-fake-1', api_key_env: keyEnv, request_timeout_seconds: 10 }, supports_tools: true }),
      front: { interface: { ...QUESTION_INPUT, output: { schema: {} } } },
    });
    const bundle = await storeBundle(openStore(), refused);
    const id = `pg-refused-${randomBytes(4).toString('hex')}`;
    const err = await client.workflow.execute(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: id, args: [{ bundle, agent_id: 'pg-refused', input: { question: `my ${PHRASE}` } }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    // The encrypting client decodes the failure: the operator with the key sees why.
    expect(rootCause((err as WorkflowFailedError).cause)).toContain(PHRASE);
    expect(srv.requests.length).toBe(1);
    const [h] = (await everyHistory()).filter((x) => x.workflowId === id);
    expect(h.bytes.includes(Buffer.from('violates the usage policy'))).toBe(false);
    expect(holdsPhrase(h.bytes)).toBe(false);
  } finally {
    delete process.env[keyEnv];
    await srv.close();
  }
});
