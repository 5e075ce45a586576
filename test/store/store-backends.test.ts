/**
 * The three store backends behind one interface, against a real PostgreSQL started by the test
 * (test/helpers/postgres.ts), a real S3-compatible server (gofakes3, test/helpers/s3.ts) and a
 * temp folder: content-addressed idempotent writes, records,
 * a missing blob, tables created once by two processes' stores starting at once, an unreachable
 * database named without its password, and LOOM_STORE_URL parsing with redaction.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BlobStore, FileBlobStore, PostgresBlobStore, S3BlobStore, parseStoreUrl, redactStoreUrl, storeLocationFromEnv, hashOf } from '../../src/store';
import { startTestPostgres, TestPostgres, freePort } from '../helpers/postgres';
import { startTestS3, TestS3 } from '../helpers/s3';
import { MessageStore } from '../../src/activities/message-store';
import { EncryptedBlobStore } from '../../src/store/encrypted';
import { codecKeysFromEnv } from '../../src/codec/keys';
import type { BlobRef } from '../../src/shared/contract';

jest.setTimeout(180_000);

let pg: TestPostgres;
let s3: TestS3;
let s3url: string;
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

function s3Store(u: string): S3BlobStore {
  const loc = parseStoreUrl(u);
  if (loc.kind !== 's3') throw new Error('not s3');
  const s = new S3BlobStore(loc);
  opened.push(s);
  return s;
}

beforeAll(async () => {
  s3 = await startTestS3('loom-store-unit-s3');
  s3url = s3.urlFor(await s3.bucket('loom-store'), 'unit/p');
  pg = await startTestPostgres('loom-store-unit');
  url = await pg.urlFor('loomstore');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-store-files-'));
});

afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  pg?.destroy();
  await s3?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['folder', () => new FileBlobStore(dir) as BlobStore],
  ['postgres', () => pgStore(url) as BlobStore],
  ['s3', () => s3Store(s3url) as BlobStore],
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
    ['mysql://u:topsecret@db/x', "has the unsupported scheme 'mysql'"],
    ['postgres://u:topsecret@db:5432/', 'has no database name'],
    ['file://otherhost/srv', 'names a host (otherhost) in a file URL'],
  ])('%s is refused with what to write, password redacted', (raw, why) => {
    const run = () => parseStoreUrl(raw);
    expect(run).toThrow(`LOOM_STORE_URL ${why}: write file:///absolute/folder, postgres://user:password@host:5432/database or s3://bucket/prefix?endpoint=http://host:9000&region=us-east-1`);
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

describe('s3 backend specifics', () => {
  test('objects land under the prefix: blobs, records and artifacts, listed through the S3 API', async () => {
    const bucket = await s3.bucket('loom-layout');
    const s = s3Store(s3.urlFor(bucket, 'team/a'));
    const ref = await s.put('layout blob');
    await s.setRecord('session', 'a/b c', 'v');
    const now = Date.now();
    await s.putArtifact({ run_id: 'run/1', name: 'output.json', kind: 'output', retention_class: 'standard', agent_id: 'ag', created_at: new Date(now).toISOString(), expires_at: new Date(now + 60_000).toISOString(), bytes: 2, content: Buffer.from('{}') });
    const { ListObjectsV2Command } = await import('@aws-sdk/client-s3');
    const keys = ((await s3.client.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key).sort();
    expect(keys).toEqual([
      expect.stringMatching(/^team\/a\/artifact-expiry\/[^/]+\/run%2F1\/output%2Ejson$/),
      'team/a/artifacts/run%2F1/output%2Ejson',
      `team/a/blobs/${ref.hash.slice('sha256:'.length)}`,
      'team/a/records/session/ka%2Fb%20c',
    ]);
    expect(await s.listArtifacts('run/1')).toEqual([expect.objectContaining({ run_id: 'run/1', name: 'output.json', bytes: 2 })]);
  });

  test('artifacts: listed oldest first, read back, and only expired ones purged (a rewrite with a later expiry is kept)', async () => {
    const s = s3Store(s3.urlFor(await s3.bucket('loom-purge'), ''));
    const t0 = Date.parse('2030-01-01T00:00:00Z');
    const art = (name: string, created: number, expires: number) => ({ run_id: 'r1', name, kind: 'intermediate' as const, retention_class: 'standard' as const, agent_id: 'a', created_at: new Date(created).toISOString(), expires_at: new Date(expires).toISOString(), bytes: 1, content: Buffer.from(name) });
    await s.putArtifact(art('b.json', t0 + 1, t0 + 10));
    await s.putArtifact(art('a.json', t0 + 2, t0 + 10));
    await s.putArtifact(art('keep.json', t0 + 3, t0 + 10));
    await s.putArtifact(art('keep.json', t0 + 3, t0 + 1_000_000)); // rewritten: its old marker must not purge it
    expect((await s.listArtifacts('r1')).map((a) => a.name)).toEqual(['b.json', 'a.json', 'keep.json']);
    expect((await s.getArtifact('r1', 'a.json'))?.content.toString()).toBe('a.json');
    expect(await s.getArtifact('r1', 'missing.json')).toBeNull();
    expect(await s.purgeArtifacts(new Date(t0 + 5))).toBe(0);
    expect(await s.purgeArtifacts(new Date(t0 + 20))).toBe(2);
    expect((await s.listArtifacts('r1')).map((a) => a.name)).toEqual(['keep.json']);
    expect(await s.purgeArtifacts(new Date(t0 + 20))).toBe(0);
  });

  test('records listing follows ListObjectsV2 continuation (more than one page of 1000)', async () => {
    const s = s3Store(s3.urlFor(await s3.bucket('loom-pages'), 'p'));
    await Promise.all(Array.from({ length: 1050 }, (_, i) => s.setRecord('many', `k${String(i).padStart(4, '0')}`, String(i))));
    const all = await s.listRecords('many', '');
    expect(all.length).toBe(1050);
    expect(all[1049]).toEqual({ key: 'k1049', value: '1049' });
  });

  test('an unreachable endpoint is a StoreUnavailable error naming the bucket and the endpoint', async () => {
    const port = await freePort();
    const s = s3Store(`s3://loom-store/x?endpoint=http://127.0.0.1:${port}`);
    for (const op of [() => s.put('x'), () => s.get({ hash: hashOf('x') }), () => s.listRecords('k', ''), () => s.purgeArtifacts(new Date())]) {
      const err = await op().then(() => undefined, (e: Error) => e);
      expect(err?.name).toBe('StoreUnavailable');
      expect(err?.message).toContain(`the store s3://loom-store/x at http://127.0.0.1:${port} is unreachable`);
      expect(err?.message).toMatch(/ECONNREFUSED/);
    }
  });

  test('a missing bucket is a clear error (not StoreUnavailable) saying what to create', async () => {
    const s = s3Store(s3.urlFor('no-such-bucket-here', 'x'));
    for (const op of [() => s.put('x'), () => s.get({ hash: hashOf('x') }), () => s.has({ hash: hashOf('x') }), () => s.getRecord('k', 'v')]) {
      const err = await op().then(() => undefined, (e: Error) => e);
      expect(err?.name).toBe('Error');
      expect(err?.message).toBe(`the S3 bucket 'no-such-bucket-here' does not exist at ${s3.endpoint}: create it first (e.g. aws s3 mb s3://no-such-bucket-here --endpoint-url ${s3.endpoint}); the store never creates buckets`);
    }
  });

  test('no credentials anywhere: an error naming the variables to set', async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY, profile: process.env.AWS_PROFILE, files: process.env.AWS_SHARED_CREDENTIALS_FILE, config: process.env.AWS_CONFIG_FILE };
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-no-aws-'));
    process.env.AWS_SHARED_CREDENTIALS_FILE = path.join(empty, 'credentials');
    process.env.AWS_CONFIG_FILE = path.join(empty, 'config');
    process.env.AWS_EC2_METADATA_DISABLED = 'true';
    try {
      const s = s3Store(s3url);
      const err = await s.put('x').then(() => undefined, (e: Error) => e);
      expect(err?.message).toBe(`the store ${s.location} has no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) in this process's environment`);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
      for (const [k, v] of [['AWS_SHARED_CREDENTIALS_FILE', saved.files], ['AWS_CONFIG_FILE', saved.config]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      delete process.env.AWS_EC2_METADATA_DISABLED;
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('LOOM_STORE_URL s3', () => {
  test('bucket, prefix, endpoint (path-style) and region, us-east-1 by default', () => {
    expect(parseStoreUrl('s3://loom-store/team/a/?endpoint=http://127.0.0.1:9000&region=eu-west-1')).toEqual({
      kind: 's3',
      bucket: 'loom-store',
      prefix: 'team/a',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      display: 's3://loom-store/team/a at http://127.0.0.1:9000',
    });
    expect(parseStoreUrl('s3://loom-store')).toEqual({ kind: 's3', bucket: 'loom-store', prefix: '', region: 'us-east-1', display: 's3://loom-store/' });
    expect(storeLocationFromEnv({ LOOM_STORE_URL: 's3://b-1/x?endpoint=https%3A%2F%2Fminio.internal%3A9000' })).toMatchObject({ kind: 's3', endpoint: 'https://minio.internal:9000' });
  });

  test.each([
    ['s3://AKIAEXAMPLE:topsecret@loom-store/x', 'holds credentials. S3 credentials are never in the URL'],
    ['s3://loom-store/x?secret_access_key=topsecret', 'holds a credential parameter (secret_access_key). S3 credentials are never in the URL'],
    ['s3://loom-store/x?endpoint=http://AKIA:topsecret@127.0.0.1:9000', 'holds credentials in its endpoint. S3 credentials are never in the URL'],
    ['s3://loom-store/x?bucket_acl=public', "has the unknown parameter 'bucket_acl'"],
    ['s3://Loom_Store/x', "names 'Loom_Store', not an S3 bucket name"],
    ['s3://loom-store:9000/x', 'names a port after the bucket (9000)'],
    ['s3://loom-store/x?endpoint=ftp://h', "has the endpoint 'ftp://h', not an http(s) URL"],
  ])('%s is refused with what to write, never echoing a secret', (raw, why) => {
    let msg = '';
    try {
      parseStoreUrl(raw);
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toContain(`LOOM_STORE_URL ${why}`);
    expect(msg).toContain('write file:///absolute/folder, postgres://user:password@host:5432/database or s3://bucket/prefix?endpoint=http://host:9000&region=us-east-1');
    expect(msg).not.toContain('topsecret');
    if (/credential/.test(why)) expect(msg).toContain('set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  });
});

test('the encrypted store over s3: objects in the bucket are sealed, read back plain through the store', async () => {
  const bucket = await s3.bucket('loom-sealed');
  const sealed = new EncryptedBlobStore(s3Store(s3.urlFor(bucket, 'enc')), codecKeysFromEnv({ LOOM_CODEC_KEY: 'k1:' + Buffer.alloc(32, 9).toString('base64') }));
  const ref = await sealed.put('plain secret text');
  await sealed.setRecord('session', 'one', 'record secret text');
  expect((await sealed.get(ref)).toString()).toBe('plain secret text');
  expect(await sealed.listRecords('session', '')).toEqual([{ key: 'one', value: 'record secret text' }]);
  const { GetObjectCommand } = await import('@aws-sdk/client-s3');
  const raw = async (Key: string) => Buffer.from(await (await s3.client.send(new GetObjectCommand({ Bucket: bucket, Key }))).Body!.transformToByteArray()).toString('latin1');
  expect(await raw(`enc/blobs/${ref.hash.slice('sha256:'.length)}`)).not.toContain('plain secret text');
  expect(await raw('enc/records/session/kone')).not.toContain('record secret text');
});
