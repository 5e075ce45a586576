/**
 * A collection with a folder of its own (`backend: {type: file, url: file:///…}`), its activities
 * called directly: writebacks land in that folder, not in the worker's shared store, reads find
 * them there, an approved writeback follows its route record there, and session end empties it.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { createMemoryActivities } from '../../src/activities/memory';
import { BundleCache } from '../../src/activities/agent-loader';
import { storeBundle } from '../../src/activities/blob-store';
import { closeOpenStores, FileBlobStore } from '../../src/store';
import { compileAgent, definition, scripted } from '../helpers/definitions';

const tmp = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'coll-file-'));
const shared = new FileBlobStore(path.join(tmp, 'shared'));
const ownDir = path.join(tmp, 'notes-store');
afterAll(async () => {
  await closeOpenStores();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const collection = (id: string, scope: 'session' | 'project', approval: boolean) => definition('collection', {
  collection_id: id, version: '1.0.0', status: 'active', description: `Memory ${id}.`, scope,
  backend: { type: 'file', url: pathToFileURL(ownDir).href, namespace: `${id}/{actorId}` },
  writeback: { enabled: true, strategy: 'output', approval_required: approval },
});
const { bundle } = compileAgent({
  agent_id: 'file-notes',
  model: scripted({ turns: [{ content: 'ok' }] }),
  others: [collection('notes', 'session', false), collection('reviewed', 'session', true)],
  front: { memory: { mode: 'session', read_collections: ['notes', 'reviewed'], write_collections: ['notes', 'reviewed'] } },
});

test('entries live in the collection\'s own folder: written, read, approved, and emptied at session end', async () => {
  const acts = createMemoryActivities({ bundles: new BundleCache(shared), store: shared });
  const scope = { bundle: await storeBundle(shared, bundle), agent_id: 'file-notes', actor_id: 'ada', session_id: 's-1' };
  const out = await acts.memoryWriteback({ ...scope, message: 1, text: 'q', answer: 'Ada prefers trains', at: '2026-01-01T00:00:00Z' });
  expect(out).toMatchObject({ written: ['notes'], pending: [{ collection_id: 'reviewed', namespace: 'reviewed/ada' }] });
  const own = new FileBlobStore(ownDir);
  expect((await own.listRecords('memory-entry', 'notes/')).map((r) => r.key.replace(/sha256:[0-9a-f]{64}$/, 'ID'))).toEqual(['notes/notes/ada/ID']);
  expect(await shared.listRecords('memory-entry', '')).toEqual([]);

  await acts.memoryWrite(out.pending[0]);
  expect((await own.listRecords('memory-entry', 'reviewed/')).map((r) => r.key.replace(/sha256:[0-9a-f]{64}$/, 'ID'))).toEqual(['reviewed/reviewed/ada/ID']);
  expect(await shared.listRecords('memory-pending-route', '')).toEqual([]);

  expect(await acts.memoryRead({ ...scope, query: 'trains' })).toMatchObject({ found: { notes: 1, reviewed: 1 } });
  await acts.memoryEndSession(scope);
  expect(await own.listRecords('memory-entry', '')).toEqual([]);
});
