/**
 * The list of routed tenant artifact stores never loses an entry (decision 282): each store is its
 * own `artifact-stores` record, so 10 runs routing to 10 different stores at once all stay listed,
 * on a folder shared store and on a real PostgreSQL one (test/helpers/postgres.ts). A store listed
 * in the older single `all` record (written the way the code before wrote it) is still listed, and
 * the purge deletes expired artifacts in it and in the new stores. Recording a known store again
 * adds nothing.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FileBlobStore, parseStoreUrl, PostgresBlobStore } from '../../src/store';
import type { BlobStore, StoredArtifact } from '../../src/store';
import { closeOpenStores, openRoute } from '../../src/store/open';
import { purgeEverywhere, recordRoute, routedStores, STORES_KIND, type ArtifactRoute } from '../../src/store/artifact-route';
import { startTestPostgres, TestPostgres } from '../helpers/postgres';

let pg: TestPostgres;
let pgStore: PostgresBlobStore;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-store-list-'));

beforeAll(async () => {
  pg = await startTestPostgres('loom-store-list');
  const loc = parseStoreUrl(await pg.urlFor('loomstorelist'));
  if (loc.kind !== 'postgres') throw new Error('not a postgres url');
  pgStore = new PostgresBlobStore(loc);
}, 120_000);

afterAll(async () => {
  await closeOpenStores();
  await pgStore?.close();
  pg?.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

const expired = (run_id: string): StoredArtifact => ({
  run_id,
  name: 'output.json',
  kind: 'output',
  retention_class: 'standard',
  agent_id: 'a',
  created_at: '2026-01-01T00:00:00.000Z',
  expires_at: '2026-01-02T00:00:00.000Z',
  bytes: 2,
  content: Buffer.from('{}'),
});

describe.each([
  ['folder', () => new FileBlobStore(path.join(dir, 'shared-folder')) as BlobStore],
  ['postgres', () => pgStore as BlobStore],
])('%s shared store', (name, make) => {
  test('10 concurrent registrations of 10 stores all survive; the old all list is still read and purged', async () => {
    const shared = make();
    const route = (i: number | string): ArtifactRoute => ({ url: `file://${path.join(dir, `${name}-tenant-${i}`)}` });
    // Written before this change: one list in one record.
    const old = route('old');
    await shared.setRecord(STORES_KIND, 'all', JSON.stringify([old]));
    await openRoute(old).putArtifact(expired('run-old'));
    await openRoute(route(7)).putArtifact(expired('run-7'));

    const routes = Array.from({ length: 10 }, (_, i) => route(i));
    await Promise.all(routes.map((r, i) => recordRoute(shared, `run-${i}`, r)));
    const urls = (rs: ArtifactRoute[]) => rs.map((r) => r.url).sort();
    expect(urls(await routedStores(shared))).toEqual(urls([...routes, old]));
    // One record per store (and the old list where the backend lists it).
    const records = await shared.listRecords(STORES_KIND, '');
    expect(records.filter((r) => r.key !== 'all').map((r) => r.key).sort()).toEqual(urls(routes));

    // Again, concurrently and for known stores: nothing added, nothing lost.
    await Promise.all(routes.map((r, i) => recordRoute(shared, `run-again-${i}`, r)));
    expect((await shared.listRecords(STORES_KIND, '')).length).toBe(records.length);
    expect(urls(await routedStores(shared))).toEqual(urls([...routes, old]));

    const { purged, stores } = await purgeEverywhere(shared, new Date('2026-02-01T00:00:00Z'), (r) => openRoute(r));
    expect(purged).toBe(2);
    expect(stores).toHaveLength(12); // the shared store, the 10 new ones, the old one
    expect(await openRoute(old).listArtifacts('run-old')).toEqual([]);
    expect(await openRoute(route(7)).listArtifacts('run-7')).toEqual([]);
  });
});
