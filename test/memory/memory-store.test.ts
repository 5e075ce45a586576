/**
 * MemoryStore on both store backends (decision 272): each entry is its own record, so 20 writebacks
 * to one namespace at the same moment keep all 20 (the old one-record-per-namespace format lost
 * all but one); namespaces written in the old format still recall, merged with new entries and
 * de-duplicated by entry id; `clear` empties both; a namespace that starts with another's name is
 * not listed under it. A real PostgreSQL (test/helpers/postgres.ts) and a real folder.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FileBlobStore, parseStoreUrl, PostgresBlobStore } from '../../src/store';
import type { BlobStore } from '../../src/store';
import { MemoryStore, memoryEntry } from '../../src/activities/memory';
import { startTestPostgres, TestPostgres } from '../helpers/postgres';

let pg: TestPostgres;
let pgStore: PostgresBlobStore;
let dir: string;

beforeAll(async () => {
  pg = await startTestPostgres('loom-memory-store');
  const loc = parseStoreUrl(await pg.urlFor('loommemstore'));
  if (loc.kind !== 'postgres') throw new Error('not a postgres url');
  pgStore = new PostgresBlobStore(loc);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-memory-store-'));
}, 120_000);

afterAll(async () => {
  await pgStore?.close();
  pg?.destroy();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const src = (message: number) => ({ session_id: 's', message, agent_id: 'a' });
const at = (i: number) => `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`;

describe.each([
  ['folder', () => new FileBlobStore(dir) as BlobStore],
  ['postgres', () => pgStore as BlobStore],
])('%s store', (name, make) => {
  test('20 concurrent adds to one namespace keep all 20, oldest first; a retried add stores the entry once', async () => {
    const mem = new MemoryStore(make());
    const ns = `facts/${name}-ada`;
    const entries = Array.from({ length: 20 }, (_, i) => memoryEntry(`fact number ${i}`, src(i), at(i)));
    // Separate MemoryStore objects, as on separate workers.
    await Promise.all(entries.map((e) => new MemoryStore(make()).add('facts', ns, e)));
    await mem.add('facts', ns, entries[3]);
    expect((await mem.list('facts', ns)).map((e) => e.text)).toEqual(entries.map((e) => e.text));
  });

  test('a namespace in the old single-record format still recalls, merged with new entries, each id once; clear empties both', async () => {
    const store = make();
    const mem = new MemoryStore(store);
    const ns = `prefs/${name}-bob`;
    const old = [memoryEntry('old one', src(1), at(1)), memoryEntry('old two', src(2), at(3))];
    await store.setRecord('memory', `prefs/${ns}`, JSON.stringify({ format: 'agentloom.memory/v1', entries: old }));
    await mem.add('prefs', ns, memoryEntry('new between', src(9), at(2)));
    await mem.add('prefs', ns, old[1]);
    expect((await mem.list('prefs', ns)).map((e) => e.text)).toEqual(['old one', 'new between', 'old two']);
    await mem.clear('prefs', ns);
    expect(await mem.list('prefs', ns)).toEqual([]);
    expect(await store.getRecord('memory', `prefs/${ns}`)).toBeNull();
  });

  test('a namespace that starts with another namespace\'s name is not listed (nor cleared) with it', async () => {
    const mem = new MemoryStore(make());
    const ns = `notes/${name}-cy`;
    await mem.add('notes', ns, memoryEntry('actor note', src(1), at(1)));
    await mem.add('notes', `${ns}/s-1`, memoryEntry('session note', src(1), at(2)));
    expect((await mem.list('notes', ns)).map((e) => e.text)).toEqual(['actor note']);
    await mem.clear('notes', ns);
    expect((await mem.list('notes', `${ns}/s-1`)).map((e) => e.text)).toEqual(['session note']);
  });

  test('a record that is not a memory entry is refused naming its key', async () => {
    const store = make();
    await store.setRecord('memory-entry', `bad/${name}/sha256:x`, JSON.stringify({ format: 'other' }));
    await expect(new MemoryStore(store).list('bad', name)).rejects.toThrow(`memory entry bad/${name}/sha256:x in ${store.location} is not agentloom.memory-entry/v1`);
  });
});
