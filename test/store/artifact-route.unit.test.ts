/**
 * tenant.md `artifact_store` routing without a server (src/store/artifact-route.ts, decision 286):
 * which target a compiled tenant block selects, the PostgreSQL password injected from the secret
 * store (never shown), and the route records that let `openStore()` read a run's artifacts from
 * the tenant's folder and the purge clean every routed store.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ArtifactRoutingStore, artifactTarget, FileBlobStore, openRoute, purgeEverywhere, recordRoute, routeOf, type StoredArtifact } from '../../src/store';
import { routeLocation } from '../../src/store/artifact-route';

const tmp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), p));
const DAY = 86_400_000;

function artifact(run: string, expires: number): StoredArtifact {
  return { run_id: run, name: 'output.json', kind: 'output', retention_class: 'standard', agent_id: 'a', created_at: new Date().toISOString(), expires_at: new Date(expires).toISOString(), bytes: 2, content: Buffer.from('{}') };
}

test('the target: shared store unless type file/postgres with a url or s3; encryption aes-256-gcm seals all', () => {
  expect(artifactTarget(undefined)).toEqual({ sealAll: false });
  expect(artifactTarget({ tenant_id: 't', artifact_store: { type: 'gcs', bucket: 'b', url: 'postgres://x@h/d' } })).toEqual({ sealAll: false });
  // s3 located by its fields (decision 293) or by a url.
  expect(artifactTarget({ tenant_id: 't', artifact_store: { type: 's3', bucket: 'acme-art', prefix: 'loom/a b', endpoint: 'http://127.0.0.1:9000', region: 'eu-west-1', credentials_ref: 'k' }, secrets: { k: { file: '/run/k' } } })).toEqual({
    route: { url: 's3://acme-art/loom/a%20b?endpoint=http%3A%2F%2F127.0.0.1%3A9000&region=eu-west-1', credentials_ref: 'k', credentials: { file: '/run/k' } },
    sealAll: false,
  });
  expect(artifactTarget({ tenant_id: 't', artifact_store: { type: 's3', url: 's3://acme-art/x' } })).toEqual({ route: { url: 's3://acme-art/x' }, sealAll: false });
  expect(artifactTarget({ tenant_id: 't', artifact_store: { type: 'store', encryption: 'aes-256-gcm' } })).toEqual({ sealAll: true });
  expect(artifactTarget({ tenant_id: 't', artifact_store: { type: 'postgres', url: 'postgres://loom@db:5432/art', credentials_ref: 'db' }, secrets: { db: { env: 'DB_PW' } } })).toEqual({
    route: { url: 'postgres://loom@db:5432/art', credentials_ref: 'db', credentials: { env: 'DB_PW' } },
    sealAll: false,
  });
});

test('a postgres route gets its password from the secret store; the display never shows it; a missing secret names the ref', () => {
  const route = { url: 'postgres://loom@db.internal:5432/art', credentials_ref: 'db', credentials: { env: 'ART_PW_UNIT' } };
  const loc = routeLocation(route, { ART_PW_UNIT: 'p@ss:w/rd' });
  expect(loc).toMatchObject({ kind: 'postgres', display: 'postgres://loom@db.internal:5432/art', user: 'loom', database: 'art' });
  expect(loc.kind === 'postgres' && decodeURIComponent(new URL(loc.connectionString).password)).toBe('p@ss:w/rd');
  expect(() => routeLocation(route, {})).toThrow('credentials_ref `db`: the environment variable ART_PW_UNIT is not set on this worker');
});

test('an s3 route takes ACCESS_KEY_ID:SECRET[:SESSION_TOKEN] from the secret store; anything else is refused without echoing it; no ref = the process env', () => {
  const route = { url: 's3://acme-art/loom/a%20b?endpoint=http%3A%2F%2F127.0.0.1%3A9000&region=eu-west-1', credentials_ref: 'k', credentials: { env: 'ART_S3_UNIT' } };
  expect(routeLocation(route, { ART_S3_UNIT: ' AKIDUNIT:se/cr+et \n' })).toEqual({
    kind: 's3',
    bucket: 'acme-art',
    prefix: 'loom/a b',
    endpoint: 'http://127.0.0.1:9000',
    region: 'eu-west-1',
    display: 's3://acme-art/loom/a b at http://127.0.0.1:9000',
    credentials: { accessKeyId: 'AKIDUNIT', secretAccessKey: 'se/cr+et' },
  });
  expect(routeLocation(route, { ART_S3_UNIT: 'A:B:TOKEN' })).toMatchObject({ credentials: { accessKeyId: 'A', secretAccessKey: 'B', sessionToken: 'TOKEN' } });
  for (const bad of ['only-one-part-secretvalue', 'A::C', 'A:B:C:D-secretvalue']) {
    let msg = '';
    try {
      routeLocation(route, { ART_S3_UNIT: bad });
    } catch (e) {
      msg = (e as Error).message;
      expect((e as { type?: string }).type).toBe('SecretUnavailable');
    }
    expect(msg).toBe('credentials_ref `k`: its secret is not an S3 credential: write ACCESS_KEY_ID:SECRET_ACCESS_KEY (or ACCESS_KEY_ID:SECRET_ACCESS_KEY:SESSION_TOKEN) in it');
  }
  expect(routeLocation({ url: 's3://acme-art/x' }, {})).not.toHaveProperty('credentials');
});

test('route records: openStore-style reads follow the run to the tenant folder; the purge covers every routed store once', async () => {
  const shared = new FileBlobStore(tmp('loom-shared-'));
  const tenantDir = tmp('loom-tenant-');
  const route = { url: `file://${tenantDir}` };
  const tenant = openRoute(route, {});
  await recordRoute(shared, 'run-1', route);
  await recordRoute(shared, 'run-2', route); // the list keeps one entry per store
  await tenant.putArtifact(artifact('run-1', Date.now() + DAY));
  await tenant.putArtifact(artifact('run-2', Date.now() - DAY));
  await shared.putArtifact(artifact('run-3', Date.now() - DAY));
  expect(await routeOf(shared, 'run-1')).toEqual(route);
  expect(await routeOf(shared, 'run-3')).toBeUndefined();

  const routed = new ArtifactRoutingStore(shared, (r) => openRoute(r, {}));
  expect((await routed.listArtifacts('run-1')).map((a) => a.name)).toEqual(['output.json']);
  expect(await shared.listArtifacts('run-1')).toEqual([]);
  expect((await routed.getArtifact('run-1', 'output.json'))?.content.toString()).toBe('{}');

  expect(await purgeEverywhere(shared, new Date(), (r) => openRoute(r, {}))).toEqual({ purged: 2, stores: [shared.location, tenant.location] });
  expect(await routed.listArtifacts('run-2')).toEqual([]);
  expect(await routed.listArtifacts('run-1')).toHaveLength(1);
});
