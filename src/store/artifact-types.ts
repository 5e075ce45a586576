/** tenant.md `artifact_store` values this runtime honours (pure: read by the compiler and the store). */

/** Backend types of `artifact_store.type` that this runtime writes to: the shared store, a folder, PostgreSQL, an S3 bucket. */
export const ARTIFACT_STORE_TYPES = ['store', 'file', 'postgres', 's3'] as const;
/** The `encryption` value this runtime applies: every artifact sealed with AES-256-GCM under the codec key (src/codec). */
export const ARTIFACT_ENCRYPTION = 'aes-256-gcm';
/** The fields a `type: s3` store may be located by instead of a `url`. */
export const S3_STORE_FIELDS = ['bucket', 'prefix', 'endpoint', 'region'] as const;

/**
 * The LOOM_STORE_URL-style location of a tenant artifact store: its `url`, or for `type: s3` without
 * one, `s3://<bucket>/<prefix>?endpoint=<endpoint>&region=<region>` built from its fields. Undefined
 * when it has neither (the compiler reports that).
 */
export function artifactStoreUrl(o: Record<string, unknown>): string | undefined {
  if (typeof o.url === 'string') return o.url;
  if (o.type !== 's3' || typeof o.bucket !== 'string') return undefined;
  const prefix = typeof o.prefix === 'string' ? o.prefix.split('/').map(encodeURIComponent).join('/') : '';
  const q = new URLSearchParams();
  if (typeof o.endpoint === 'string') q.set('endpoint', o.endpoint);
  if (typeof o.region === 'string') q.set('region', o.region);
  const query = q.toString();
  return `s3://${o.bucket}/${prefix}${query ? `?${query}` : ''}`;
}
