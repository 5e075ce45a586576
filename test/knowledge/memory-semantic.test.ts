/**
 * Semantic memory search in a chat session on the dev server (issue 12.4; decision 259): the
 * actor's collection names an embeddings endpoint (the local OpenAI-compatible test server), so the
 * message is matched by cosine similarity and the entry sharing no word with it reaches the
 * model's context (# Memory), where keyword search would find nothing.
 */
import type { TestTemporal } from '../helpers/temporal';
import { Harness, startHarness } from '../runtime/harness';
import { FakeOpenAIServer, startFakeOpenAI } from '../helpers/openai-server';
import { MemoryStore, memoryEntry } from '../../src/activities/memory';
import { SESSION_WORKFLOW_TYPE, sessionMessageUpdate, SessionReply } from '../../src/shared/session';
import { storeTestBundle, testStore } from '../runtime/builders';
import { compileAgent, definition, scripted } from '../helpers/definitions';

let t: TestTemporal;
let h: Harness;
let srv: FakeOpenAIServer;

beforeAll(async () => {
  h = await startHarness('memory-semantic');
  t = h.t;
  srv = await startFakeOpenAI({ concepts: { refunds: 'refund', reimbursements: 'refund' } });
});
afterAll(async () => {
  await srv.close();
  await h?.close();
});

test('a session turn reads the semantically closest memory entry into the model context', async () => {
  const prefs = definition('collection', {
    collection_id: 'prefs', version: '1.0.0', status: 'active', description: 'Preferences, searched by embeddings.', scope: 'project',
    backend: { type: 'memory', namespace: 'prefs/{actorId}', embeddings: { base_url: srv.baseUrl, model: 'fake-embed-mem' } },
    writeback: { enabled: false },
  });
  const model = scripted({ rules: [{ when: { input_contains: 'card on file' }, reply: { content: 'Your refunds go to the card on file.' } }], turns: [{ content: 'I do not know.' }] });
  const { bundle: compiled } = compileAgent({ agent_id: 'mem-semantic', model, others: [prefs], front: { memory: { mode: 'project', read_collections: ['prefs'], write_collections: [] } } });
  const mem = new MemoryStore(testStore());
  const src = { session_id: 'earlier', message: 1, agent_id: 'mem-semantic' };
  await mem.add('prefs', 'prefs/ada', memoryEntry('Prefers aisle seats on long flights', src, '2026-01-01T00:00:00Z'));
  await mem.add('prefs', 'prefs/ada', memoryEntry('Reimbursements are paid to the card on file', src, '2026-01-02T00:00:00Z'));

  const bundle = await storeTestBundle(compiled);
  const h = await t.client.workflow.start(SESSION_WORKFLOW_TYPE, { taskQueue: t.taskQueue, workflowId: `mem-semantic-${Math.random().toString(36).slice(2, 8)}`, args: [{ bundle, agent_id: 'mem-semantic', actor_id: 'ada' }] });
  const r: SessionReply = await h.executeUpdate(sessionMessageUpdate, { args: [{ text: 'where do my refunds go?' }] });
  expect(r.output).toBe('Your refunds go to the card on file.');
  expect(r.memory?.read).toEqual({ prefs: 1 });
  const embeds = srv.requests.filter((q) => q.url.startsWith('/v1/embeddings'));
  expect(embeds.length).toBeGreaterThan(0);
  expect(embeds.every((q) => q.body.model === 'fake-embed-mem')).toBe(true);
  expect(embeds.flatMap((q) => q.body.input as string[])).toContain('where do my refunds go?');
  await h.terminate('test over');
}, 120_000);
