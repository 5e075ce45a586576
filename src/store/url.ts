/**
 * LOOM_STORE_URL parsing: `file:///folder`, `postgres://user:pass@host:port/db` or
 * `s3://bucket/prefix?endpoint=http://host:9000&region=us-east-1` (the bucket is the URL's host). Pure (no I/O).
 * The password stays in the parsed connection string only; every text meant for a human
 * (`display`, error messages) is redacted. S3 credentials are never in the URL: the process's
 * standard AWS environment (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN), or a
 * tenant store's credentials_ref (set by artifact-route.ts, never parsed from text).
 */
import * as path from 'path';
import { fileURLToPath } from 'url';

export type StoreLocation =
  | { kind: 'file'; dir: string; display: string }
  | { kind: 'postgres'; connectionString: string; host: string; port: number; database: string; user: string; display: string }
  | S3Location;

/** An S3 bucket (any S3-compatible endpoint); objects under `prefix/` ('' = the bucket's root). */
export interface S3Location {
  kind: 's3';
  bucket: string;
  prefix: string;
  /** A custom endpoint (path-style addressing); undefined = AWS S3 (virtual-hosted). */
  endpoint?: string;
  region: string;
  display: string;
  /** Only from a tenant store's credentials_ref (in memory, never parsed from a URL); else the SDK's standard chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

const SHAPES = 'file:///absolute/folder, postgres://user:password@host:5432/database or s3://bucket/prefix?endpoint=http://host:9000&region=us-east-1';

/** Query parameters an s3 URL takes; anything else is refused. */
const S3_PARAMS = new Set(['endpoint', 'region']);
const SECRET_PARAM = /(secret|token|key|password|credential|signature)/i;
const S3_CREDENTIALS_HINT =
  'S3 credentials are never in the URL: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) in the environment of every worker and the CLI (a tenant artifact store: credentials_ref)';

/** `url` with any password replaced by `***` (also inside text that is not a valid URL); an s3 URL loses its whole userinfo and secret-looking query values. */
export function redactStoreUrl(url: string): string {
  if (/^s3:\/\//i.test(url)) {
    return url
      .replace(/(\/\/|%2F%2F)[^/@?&]*(@|%40)/gi, '$1***$2')
      .replace(/([?&][^=&]*(?:secret|token|key|password|credential|signature)[^=&]*=)[^&]*/gi, '$1***');
  }
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

function parseS3(u: URL, bad: (why: string) => Error): S3Location {
  if (u.username || u.password) throw bad(`holds credentials. ${S3_CREDENTIALS_HINT}`);
  const bucket = u.hostname;
  if (!bucket) throw bad('has no bucket (s3://BUCKET/prefix)');
  if (u.port) throw bad(`names a port after the bucket (${u.port}): the endpoint goes in ?endpoint=http://host:port`);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw bad(`names '${bucket}', not an S3 bucket name (3-63 lowercase letters, digits, dots and hyphens)`);
  for (const name of u.searchParams.keys()) {
    if (S3_PARAMS.has(name)) continue;
    if (SECRET_PARAM.test(name)) throw bad(`holds a credential parameter (${name}). ${S3_CREDENTIALS_HINT}`);
    throw bad(`has the unknown parameter '${name}' (an s3 URL takes endpoint and region)`);
  }
  const prefix = decodeURIComponent(u.pathname).replace(/^\/+|\/+$/g, '');
  const region = u.searchParams.get('region') ?? 'us-east-1';
  if (!/^[a-z0-9-]+$/.test(region)) throw bad(`has the region '${region}', not a region name`);
  const rawEndpoint = u.searchParams.get('endpoint') ?? undefined;
  let endpoint: string | undefined;
  if (rawEndpoint !== undefined) {
    let e: URL;
    try {
      e = new URL(rawEndpoint);
    } catch {
      throw bad(`has the endpoint '${rawEndpoint}', not an http(s) URL`);
    }
    if (e.protocol !== 'http:' && e.protocol !== 'https:') throw bad(`has the endpoint '${rawEndpoint}', not an http(s) URL`);
    if (e.username || e.password) throw bad(`holds credentials in its endpoint. ${S3_CREDENTIALS_HINT}`);
    if (e.search || e.hash) throw bad(`has an endpoint with a query or fragment ('${rawEndpoint}')`);
    endpoint = e.toString().replace(/\/+$/, '');
  }
  const display = `s3://${bucket}/${prefix}${endpoint ? ` at ${endpoint}` : ''}`;
  return { kind: 's3', bucket, prefix, ...(endpoint ? { endpoint } : {}), region, display };
}

/** Parse a LOOM_STORE_URL; throws a message naming the variable, the redacted value and what to write. */
export function parseStoreUrl(raw: string, cwd: string = process.cwd()): StoreLocation {
  const text = raw.trim();
  const bad = (why: string): Error => new Error(`LOOM_STORE_URL ${why}: write ${SHAPES}, got '${redactStoreUrl(text)}'`);
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    // A bare folder is what LOOM_STORE_DIR takes; accept it here too rather than fail on a missing scheme.
    if (!/^[a-z][a-z0-9+.-]*:/i.test(text) && text) {
      const dir = path.resolve(cwd, text);
      return { kind: 'file', dir, display: dir };
    }
    throw bad('is not a URL');
  }
  if (u.protocol === 'file:') {
    if (u.host && u.host !== 'localhost') throw bad(`names a host (${u.host}) in a file URL`);
    const dir = path.resolve(fileURLToPath(u));
    return { kind: 'file', dir, display: dir };
  }
  if (u.protocol === 'postgres:' || u.protocol === 'postgresql:') {
    const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
    if (!u.hostname) throw bad('has no host');
    if (!database) throw bad('has no database name');
    const port = u.port ? Number(u.port) : 5432;
    const user = decodeURIComponent(u.username || 'postgres');
    return { kind: 'postgres', connectionString: text, host: u.hostname, port, database, user, display: `postgres://${user}@${u.hostname}:${port}/${database}` };
  }
  if (u.protocol === 's3:') return parseS3(u, bad);
  throw bad(`has the unsupported scheme '${u.protocol.replace(/:$/, '')}'`);
}
