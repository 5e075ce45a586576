/**
 * Which store this process uses, read the same way by the CLI and the workers: LOOM_STORE_URL
 * (`file:///folder`, `postgres://user:pass@host:port/db` or `s3://bucket/prefix?endpoint=…`), else LOOM_STORE_DIR (a folder, the
 * older setting), else `<LOOM_HOME>/store`, else `./.loom/store`. One store object per setting
 * per process, so a worker's activities share one connection pool. `openStore()` follows artifact
 * routes to a tenant's own artifact store (artifact-route.ts).
 */
import { loomEnv } from '../platform/env';
import { sha256 } from '../compiled/canonical';
import { defaultStoreDir, FileBlobStore } from './file';

export { defaultStoreDir };
import { PostgresBlobStore } from './postgres';
import { S3BlobStore } from './s3';
import type { BlobStore } from './types';
import { codecConfigured, codecKeysFromEnv, type CodecKeys } from '../codec/keys';
import { EncryptedBlobStore } from './encrypted';
import { parseStoreUrl, StoreLocation } from './url';
import { ArtifactRoute, ArtifactRoutingStore, routeLocation } from './artifact-route';


/** The configured store's location (parsed, password kept only in `connectionString`). */
export function storeLocationFromEnv(env: NodeJS.ProcessEnv = process.env): StoreLocation {
  const url = loomEnv('LOOM_STORE_URL', env);
  if (url) return parseStoreUrl(url);
  const dir = defaultStoreDir(env);
  return { kind: 'file', dir, display: dir };
}

const open = new Map<string, BlobStore>();

/** What makes two locations one backend object (an s3 store per access key: a tenant's credentials are its own). */
function backendKey(loc: StoreLocation): string {
  if (loc.kind === 'postgres') return loc.connectionString;
  if (loc.kind === 's3') return `s3:${loc.endpoint ?? 'aws'}|${loc.region}|${loc.bucket}|${loc.prefix}|${loc.credentials?.accessKeyId ?? '-'}|${loc.credentials ? sha256(loc.credentials.secretAccessKey + '\n' + (loc.credentials.sessionToken ?? '')) : '-'}`;
  return `file:${loc.dir}`;
}

export function openStoreAt(loc: StoreLocation, keys: CodecKeys = codecKeysFromEnv()): BlobStore {
  const key = `${backendKey(loc)}#${keys.encodeWith?.id ?? '-'}#${[...keys.byId.keys()].join(',')}`;
  let s = open.get(key);
  if (!s) {
    const backend = loc.kind === 'postgres' ? new PostgresBlobStore(loc) : loc.kind === 's3' ? new S3BlobStore(loc) : new FileBlobStore(loc.dir);
    // With a codec key configured (src/codec/keys.ts) blobs and records are encrypted at rest.
    s = codecConfigured(keys) ? new EncryptedBlobStore(backend, keys) : backend;
    open.set(key, s);
  }
  return s;
}

/** The store a tenant's artifact route names (its password read from the secret store on this machine). */
export function openRoute(route: ArtifactRoute, env: NodeJS.ProcessEnv = process.env): BlobStore {
  return openStoreAt(routeLocation(route, env), codecKeysFromEnv(env));
}

/** The store this process is configured for (see the file comment). */
export function openStore(env: NodeJS.ProcessEnv = process.env): BlobStore {
  return new ArtifactRoutingStore(openStoreAt(storeLocationFromEnv(env), codecKeysFromEnv(env)), (r) => openRoute(r, env));
}

/** Close every store this process opened (a test's teardown, a worker's shutdown). */
export async function closeOpenStores(): Promise<void> {
  const all = [...open.values()];
  open.clear();
  await Promise.all(all.map((s) => s.close()));
}
