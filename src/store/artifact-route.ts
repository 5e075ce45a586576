/**
 * The tenant's artifact store (the Agent Definition Specification's "Where artifacts are stored": configured once per tenant in
 * tenant.md `artifact_store`, injected into every compiled agent). Types this runtime
 * has a backend for: `store` (the shared store, LOOM_STORE_URL: the default), `file`, `postgres`
 * and `s3`, located by `url` through the same parser as LOOM_STORE_URL (src/store/url.ts; an s3
 * store may give `bucket`/`prefix`/`endpoint`/`region` instead); a PostgreSQL password
 * or an S3 access key is never in the url but read from the secret store (`credentials_ref`, an env
 * var or file on the reading machine). `encryption: aes-256-gcm` seals every artifact with the codec
 * key, not only `restricted` ones.
 *
 * Finding them again: the run's artifacts live in the tenant's store, so the shared store keeps a
 * route record per run (`artifact-route` / RUN_ID → where, never a password) and one record per
 * tenant store it has routed to (`artifact-stores` / the store's url, so concurrent writers never lose one; the older
 * single `all` list is still read). `openStore()` wraps the shared store
 * (ArtifactRoutingStore) so `loom artifacts RUN_ID` lists and fetches from wherever the run's
 * artifacts went, and the purge deletes expired ones in every routed store too.
 */
import type { BlobRef } from '../shared/contract';
import type { CompiledTenant, SecretRef } from '../compiled/types';
import { ApplicationFailure } from '@temporalio/common';
import { readSecret } from '../platform/secrets';
import type { ArtifactInfo, BlobStore, StoredArtifact } from './types';
import { DelegatingStore } from './delegating';
import { parseStoreUrl, type StoreLocation } from './url';

import { ARTIFACT_ENCRYPTION, artifactStoreUrl } from './artifact-types';

export { ARTIFACT_ENCRYPTION, ARTIFACT_STORE_TYPES } from './artifact-types';

export const ROUTE_KIND = 'artifact-route';
export const STORES_KIND = 'artifact-stores';

/** Where a run's artifacts went: a store url without password, and where its password is read. */
export interface ArtifactRoute {
  url: string;
  credentials_ref?: string;
  credentials?: SecretRef;
}

export interface ArtifactTarget {
  /** Undefined: the shared store. */
  route?: ArtifactRoute;
  /** Seal every artifact with the codec key (`encryption: aes-256-gcm`), not only restricted ones. */
  sealAll: boolean;
}

/** What a compiled agent's tenant block says about its artifacts (types other than the honoured ones: the shared store). */
export function artifactTarget(tenant: CompiledTenant | undefined): ArtifactTarget {
  const s = tenant?.artifact_store as Record<string, unknown> | undefined;
  const sealAll = s?.encryption === ARTIFACT_ENCRYPTION;
  const url = s && (s.type === 'file' || s.type === 'postgres' || s.type === 's3') ? artifactStoreUrl(s) : undefined;
  if (!s || url === undefined) return { sealAll };
  const ref = typeof s.credentials_ref === 'string' ? s.credentials_ref : undefined;
  return {
    route: { url, ...(ref ? { credentials_ref: ref, ...(tenant?.secrets?.[ref] ? { credentials: tenant.secrets[ref] } : {}) } : {}) },
    sealAll,
  };
}

const sameRoute = (a: ArtifactRoute, b: ArtifactRoute): boolean => a.url === b.url && a.credentials_ref === b.credentials_ref;

/** The store location of a route, its password read from the secret store (a non-retryable SecretUnavailable when missing). */
export function routeLocation(route: ArtifactRoute, env: NodeJS.ProcessEnv = process.env): StoreLocation {
  const loc = parseStoreUrl(route.url);
  if (loc.kind === 'file' || !route.credentials_ref) return loc;
  const secret = readSecret(route.credentials_ref, route.credentials ? { [route.credentials_ref]: route.credentials } : undefined, env);
  if (loc.kind === 's3') return { ...loc, credentials: s3Credentials(secret, route.credentials_ref) };
  const password = secret;
  const u = new URL(loc.connectionString);
  u.password = encodeURIComponent(password);
  return { ...loc, connectionString: u.toString() };
}

/**
 * An s3 store's credentials_ref secret: `ACCESS_KEY_ID:SECRET_ACCESS_KEY`, or
 * `ACCESS_KEY_ID:SECRET_ACCESS_KEY:SESSION_TOKEN` for temporary credentials; surrounding whitespace
 * ignored. Anything else is a non-retryable SecretUnavailable failure that never echoes it.
 */
export function s3Credentials(secret: string, ref: string): { accessKeyId: string; secretAccessKey: string; sessionToken?: string } {
  const parts = secret.trim().split(':');
  if ((parts.length !== 2 && parts.length !== 3) || parts.some((p) => !p)) {
    throw ApplicationFailure.nonRetryable(`credentials_ref \`${ref}\`: its secret is not an S3 credential: write ACCESS_KEY_ID:SECRET_ACCESS_KEY (or ACCESS_KEY_ID:SECRET_ACCESS_KEY:SESSION_TOKEN) in it`, 'SecretUnavailable');
  }
  const [accessKeyId, secretAccessKey, sessionToken] = parts;
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

/** The older list of every routed store, one record read-modified-written (it could lose an entry to a concurrent writer); still read, never written. */
const OLD_STORES_KEY = 'all';

/** The key of a routed store's own record: its url (never a password), and its credentials_ref when it has one. */
export function storeKey(route: ArtifactRoute): string {
  return route.credentials_ref ? `${route.url} ${route.credentials_ref}` : route.url;
}

/**
 * Every tenant store the shared store has routed artifacts to: one record per store (listed), and
 * the entries of the older `all` list (read by key: the folder backend lists only records written
 * since it keeps their keys). Each store once, in key order then the old list's order.
 */
export async function routedStores(shared: BlobStore): Promise<ArtifactRoute[]> {
  const out: ArtifactRoute[] = [];
  const add = (r: ArtifactRoute) => {
    if (!out.some((o) => sameRoute(o, r))) out.push(r);
  };
  for (const { key, value } of await shared.listRecords(STORES_KIND, '')) if (key !== OLD_STORES_KEY) add(JSON.parse(value) as ArtifactRoute);
  const old = await shared.getRecord(STORES_KIND, OLD_STORES_KEY);
  for (const r of old ? (JSON.parse(old) as ArtifactRoute[]) : []) add(r);
  return out;
}

/**
 * Record in the shared store that `runId`'s artifacts are in `route`, and the route's store in the
 * list the purge walks: its own record, so concurrent writers adding different stores never lose
 * one. Idempotent (a retried activity writes the same).
 */
export async function recordRoute(shared: BlobStore, runId: string, route: ArtifactRoute): Promise<void> {
  const key = storeKey(route);
  const entry = JSON.stringify(route);
  if ((await shared.getRecord(STORES_KIND, key)) !== entry) await shared.setRecord(STORES_KIND, key, entry);
  await shared.setRecord(ROUTE_KIND, runId, JSON.stringify(route));
}

export async function routeOf(shared: BlobStore, runId: string): Promise<ArtifactRoute | undefined> {
  const raw = await shared.getRecord(ROUTE_KIND, runId);
  return raw ? (JSON.parse(raw) as ArtifactRoute) : undefined;
}

/**
 * Delete expired artifacts in the shared store and in every tenant store it routed to; returns
 * how many went and where. `open` opens a route's store (src/store/open.ts openRoute).
 */
export async function purgeEverywhere(shared: BlobStore, now: Date, open: (r: ArtifactRoute) => BlobStore): Promise<{ purged: number; stores: string[] }> {
  let purged = await shared.purgeArtifacts(now);
  const stores = [shared.location];
  for (const r of await routedStores(shared)) {
    const s = open(r);
    if (stores.includes(s.location)) continue;
    purged += await s.purgeArtifacts(now);
    stores.push(s.location);
  }
  return { purged, stores };
}

/** The shared store, with artifact reads following each run's route and the purge covering every routed store. */
export class ArtifactRoutingStore extends DelegatingStore {
  constructor(inner: BlobStore, private readonly open: (r: ArtifactRoute) => BlobStore) {
    super(inner);
  }
  private async storeFor(runId: string): Promise<BlobStore> {
    const r = await routeOf(this.inner, runId);
    return r ? this.open(r) : this.inner;
  }
  override async listArtifacts(runId: string): Promise<ArtifactInfo[]> {
    return (await this.storeFor(runId)).listArtifacts(runId);
  }
  override async getArtifact(runId: string, name: string): Promise<StoredArtifact | null> {
    return (await this.storeFor(runId)).getArtifact(runId, name);
  }
  override async purgeArtifacts(now: Date): Promise<number> {
    return (await purgeEverywhere(this.inner, now, this.open)).purged;
  }
}
