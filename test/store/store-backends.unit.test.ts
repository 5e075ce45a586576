/**
 * The two store backends behind one interface, against a real PostgreSQL started by the test
 * (test/helpers/postgres.ts) and a temp folder: content-addressed idempotent writes, records,
 * a missing blob, tables created once by two processes' stores starting at once, an unreachable
 * database named without its password, and LOOM_STORE_URL parsing with redaction.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BlobStore, FileBlobStore, PostgresBlobStore, parseStoreUrl, redactStoreUrl, storeLocationFromEnv, hashOf } from '../../src/store';
import { startTestPostgres, TestPostgres, freePort } from '../helpers/postgres';
import { MessageStore } from '../../src/activities/message-store';
import { EncryptedBlobStore } from '../../src/codec/encrypted-store';
import { codecKeysFromEnv } from '../../src/codec/keys';
import type { BlobRef } from '../../src/shared/contract';

jest.setTimeout(180_000);

let pg: TestPostgres;
let url: string;
let dir: string;
const opened: BlobStore[] = [];

function pgStore(u: string): PostgresBlobStore {
  const loc = parseStoreUrl(u);
  if (loc.kind !== 'postgres') throw new Error('not postgres');
  const s = new PostgresBlobStore(loc);
  opened.push(s);
  return s;
}

beforeAll(async () => {
  pg = await startTestPostgres('loom-store-unit');
  url = await pg.urlFor('loomstore');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-store-files-'));
});

afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  pg?.destroy();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['folder', () => new FileBlobStore(dir) as BlobStore],
  ['postgres', () => pgStore(url) as BlobStore],
])('%s backend', (_name, make) => {
  test('blobs are content-addressed, idempotent and read back byte for byte', async () => {
    const s = make();
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    const a = await s.put(bytes);
    const b = await s.put(bytes);
    expect(a).toEqual({ hash: hashOf(bytes) });
    expect(b).toEqual(a);
    expect(Buffer.compare(await s.get(a), bytes)).toBe(0);
    expect(await s.has(a)).toBe(true);
    const big = 'x'.repeat(3 * 1024 * 1024) + 'end';
    const r = await s.putJson({ big });
    expect((await s.getJson<{ big: string }>(r)).big).toBe(big);
    // Many writers of the same bytes at once: one blob, no error.
    const same = await Promise.all(Array.from({ length: 20 }, () => s.put('same bytes')));
    expect(new Set(same.map((x) => x.hash)).size).toBe(1);
  });

  test('a missing blob is a BlobNotFound error naming the store', async () => {
    const s = make();
    const missing = { hash: hashOf('never stored ' + Math.random()) };
    expect(await s.has(missing)).toBe(false);
    const err = await s.get(missing).then(() => undefined, (e: Error) => e);
    expect(err?.name).toBe('BlobNotFound');
    expect(err?.message).toContain(missing.hash);
    expect(err?.message).toContain(s.location);
    expect(err?.message).not.toContain(pg.password);
  });

  test('records: absent, written, overwritten', async () => {
    const s = make();
    const key = `session-${Math.random()}`;
    expect(await s.getRecord('session', key)).toBeNull();
    await s.setRecord('session', key, 'one');
    await s.setRecord('session', key, 'two');
    expect(await s.getRecord('session', key)).toBe('two');
  });

  test('records listed by key prefix, in key order; concurrent writers of distinct keys all kept; deleted records gone', async () => {
    const s = make();
    const p = `list-${Math.random().toString(36).slice(2)}/`;
    // Keys with LIKE wildcards and a sibling prefix that must not match.
    await s.setRecord('listing', `${p}b`, 'B');
    await s.setRecord('listing', `${p}a%_`, 'A');
    await s.setRecord('listing', `${p.slice(0, -1)}x/c`, 'other');
    await s.setRecord('listing', `${p}b`, 'B2');
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.setRecord('listing', `${p}n/${String(i).padStart(2, '0')}`, `v${i}`)));
    const all = await s.listRecords('listing', p);
    expect(all.map((r) => r.key)).toEqual([`${p}a%_`, `${p}b`, ...Array.from({ length: 20 }, (_, i) => `${p}n/${String(i).padStart(2, '0')}`)]);
    expect(all[1].value).toBe('B2');
    expect((await s.listRecords('listing', `${p}n/`)).length).toBe(20);
    await s.deleteRecord('listing', `${p}b`);
    await s.deleteRecord('listing', `${p}never-written`);
    expect(await s.getRecord('listing', `${p}b`)).toBeNull();
    expect((await s.listRecords('listing', p)).map((r) => r.key)).not.toContain(`${p}b`);
    expect(await s.listRecords('never-written-kind', '')).toEqual([]);
  });

  test('a deleted blob is gone; deleting an absent one is a no-op', async () => {
    const s = make();
    const ref = await s.put(`to delete ${Math.random()}`);
    await s.delete(ref);
    expect(await s.has(ref)).toBe(false);
    await expect(s.delete(ref)).resolves.toBeUndefined();
  });
});

test('the encrypted store lists records unsealed and deletes through to the backend', async () => {
  const inner = new FileBlobStore(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-store-sealed-')));
  const sealed = new EncryptedBlobStore(inner, codecKeysFromEnv({ LOOM_CODEC_KEY: 'k1:' + Buffer.alloc(32, 7).toString('base64') }));
  await sealed.setRecord('listing', 'p/one', 'secret one');
  expect(await inner.getRecord('listing', 'p/one')).not.toContain('secret one');
  expect(await sealed.listRecords('listing', 'p/')).toEqual([{ key: 'p/one', value: 'secret one' }]);
  await sealed.deleteRecord('listing', 'p/one');
  expect(await inner.listRecords('listing', 'p/')).toEqual([]);
  fs.rmSync(inner.dir, { recursive: true, force: true });
});

test('a cold read of a long conversation on PostgreSQL walks the chain in batches and returns every message in order', async () => {
  const s = pgStore(url);
  const writer = new MessageStore(s);
  let head: BlobRef | null = null;
  const tag = Math.random().toString(36).slice(2);
  for (let i = 0; i < 1200; i++) head = await writer.append(head, { role: i % 2 ? 'assistant' : 'user', content: `${tag} message ${i}` });
  const chained = await s.chain(head!, 500);
  expect(chained.size).toBe(500);
  expect(chained.has(head!.hash)).toBe(true);
  const cold = await new MessageStore(s).conversation(head);
  expect(cold.map((m) => m.content)).toEqual(Array.from({ length: 1200 }, (_, i) => `${tag} message ${i}`));
  // The folder backend has no chain walk: the same conversation read node by node.
  const f = new FileBlobStore(dir);
  let fh: BlobRef | null = null;
  for (const m of cold.slice(0, 30)) fh = await new MessageStore(f).append(fh, m);
  expect((await new MessageStore(f).conversation(fh)).map((m) => m.content)).toEqual(cold.slice(0, 30).map((m) => m.content));
});

test('two stores creating the tables at once on a fresh database both succeed', async () => {
  const fresh = await pg.urlFor('loomfresh');
  const [a, b, c] = [pgStore(fresh), pgStore(fresh), pgStore(fresh)];
  const refs = await Promise.all([a.put('first'), b.put('first'), c.putJson({ n: 1 })]);
  expect(refs[0]).toEqual(refs[1]);
  expect((await b.get(refs[0])).toString()).toBe('first');
});

test('an unreachable database is a StoreUnavailable error naming host:port/db, never the password', async () => {
  const port = await freePort();
  const s = pgStore(`postgres://loom:s3cret-pw@127.0.0.1:${port}/nowhere`);
  const err = await s.put('x').then(() => undefined, (e: Error) => e);
  expect(err?.name).toBe('StoreUnavailable');
  expect(err?.message).toContain(`postgres://loom@127.0.0.1:${port}/nowhere is unreachable`);
  expect(err?.message).not.toContain('s3cret-pw');
});

test('a wrong password is refused naming the store, without the password', async () => {
  const s = pgStore(`postgres://loom:wrong-pw-123@127.0.0.1:${pg.port}/loomstore`);
  const err = await s.put('x').then(() => undefined, (e: Error) => e);
  expect(err?.message).toContain(`postgres://loom@127.0.0.1:${pg.port}/loomstore`);
  expect(err?.message).toMatch(/password authentication failed/);
  expect(err?.message).not.toContain('wrong-pw-123');
});

describe('LOOM_STORE_URL', () => {
  test('file URLs, bare folders and postgres URLs', () => {
    expect(parseStoreUrl('file:///srv/loom/store')).toEqual({ kind: 'file', dir: '/srv/loom/store', display: '/srv/loom/store' });
    expect(parseStoreUrl('rel/store', '/home/u')).toMatchObject({ kind: 'file', dir: '/home/u/rel/store' });
    expect(parseStoreUrl('postgresql://agent:p%40ss@db.internal/loom')).toMatchObject({
      kind: 'postgres',
      host: 'db.internal',
      port: 5432,
      database: 'loom',
      user: 'agent',
      display: 'postgres://agent@db.internal:5432/loom',
    });
  });

  test.each([
    ['s3://bucket/x', "has the unsupported scheme 's3'"],
    ['postgres://u:topsecret@db:5432/', 'has no database name'],
    ['file://otherhost/srv', 'names a host (otherhost) in a file URL'],
  ])('%s is refused with what to write, password redacted', (raw, why) => {
    const run = () => parseStoreUrl(raw);
    expect(run).toThrow(`LOOM_STORE_URL ${why}: write file:///absolute/folder or postgres://user:password@host:5432/database`);
    try {
      run();
    } catch (e) {
      expect((e as Error).message).not.toContain('topsecret');
    }
  });

  test('redaction keeps the user and host', () => {
    expect(redactStoreUrl('postgres://loom:pw@h:1/db')).toBe('postgres://loom:***@h:1/db');
    expect(redactStoreUrl('file:///a/b')).toBe('file:///a/b');
  });

  test('LOOM_STORE_URL wins over LOOM_STORE_DIR, which stays an alias for a folder', () => {
    expect(storeLocationFromEnv({ LOOM_STORE_URL: 'postgres://u:p@h:5/d', LOOM_STORE_DIR: '/srv/x' })).toMatchObject({ kind: 'postgres', display: 'postgres://u@h:5/d' });
    expect(storeLocationFromEnv({ LOOM_STORE_DIR: '/srv/x' })).toMatchObject({ kind: 'file', dir: '/srv/x' });
    expect(storeLocationFromEnv({ LOOM_STORE_URL: ' ', LOOM_HOME: '/srv/h' })).toMatchObject({ kind: 'file', dir: '/srv/h/store' });
  });
});
