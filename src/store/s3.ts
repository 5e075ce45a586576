/**
 * The S3 backend (LOOM_STORE_URL=s3://…): any S3-compatible object storage through the official
 * @aws-sdk/client-s3 (the SDK signs every request with SigV4). Objects under the URL's prefix:
 *   blobs/<sha256 hex>                         content-addressed, written idempotently
 *   records/<kind>/k<encoded key>              one object per record, listed by ListObjectsV2 prefix
 *   artifacts/<run>/<name>                     the content; its ArtifactInfo in the `loom-info` metadata
 *   artifact-expiry/<expires_at>/<run>/<name>  an empty marker per artifact, so the purge lists only
 *                                              what expired (ISO times sort as text)
 * (<kind>, <key>, <run> and <name> percent-encoded, so a '/' in them never nests.) Any failure to
 * reach the endpoint (refused connection, timeout, 5xx) is a `StoreUnavailable` error naming the
 * bucket and endpoint, which activities let Temporal retry; a missing bucket says what to create;
 * missing credentials say which variables to set. Credentials come from the SDK's standard chain
 * (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, …) or, for a tenant store, from
 * its credentials_ref — never from the URL, never in a payload.
 */
// Types only at load: the SDK is imported on first use, so a CLI command or a worker on another
// backend never pays for loading it (as postgres.ts does with `pg`).
import type { HeadObjectCommandOutput, ListObjectsV2CommandOutput, S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type { BlobRef } from '../shared/contract';
import { hashOf, infoOf } from './file';
import { ArtifactInfo, BlobNotFoundError, BlobStore, StoredArtifact, StoredRecord, StoreUnavailableError, parseStoredJson } from './types';
import type { S3Location } from './url';

/** Percent-encode one key segment: no '/', and no '.'-only segment a server could normalise away. */
export function encodeSegment(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*.~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

const decodeSegment = (s: string): string => decodeURIComponent(s);

/** Byte order of the UTF-8 keys, as PostgreSQL's `COLLATE "C"` orders them. */
const byKey = (a: { key: string }, b: { key: string }): number => Buffer.compare(Buffer.from(a.key, 'utf8'), Buffer.from(b.key, 'utf8'));

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

/** Error names of the SDK and Node that mean "cannot talk to the endpoint now". */
const UNAVAILABLE = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|TimeoutError|RequestTimeout|RequestTimeoutException|ServiceUnavailable|SlowDown|InternalError|ThrottlingException|NetworkingError)$/;

type Sdk = typeof import('@aws-sdk/client-s3');

export class S3BlobStore implements BlobStore {
  private clientP?: Promise<{ sdk: Sdk; client: S3Client }>;
  private readonly config: S3ClientConfig;

  constructor(private readonly loc: S3Location, extra: Partial<S3ClientConfig> = {}) {
    // The pinned SDK (3.1175.0) supports Node 20 (package.json engines), but prints a warning on
    // every CLI command that SDK releases from 2027 on need Node 22; the pin is the answer, so the
    // warning is turned off unless the user set the SDK's own switch.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    this.config = {
      region: loc.region,
      ...(loc.endpoint ? { endpoint: loc.endpoint, forcePathStyle: true } : {}),
      ...(loc.credentials ? { credentials: loc.credentials } : {}),
      // Checksums only where the S3 API requires them: many S3-compatible services reject the
      // SDK's default trailing CRC32 (aws-chunked) uploads.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A short SDK retry: the activity's own retry policy takes over (StoreUnavailable).
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 10_000, requestTimeout: 60_000 },
      ...extra,
    };
  }

  private connect(): Promise<{ sdk: Sdk; client: S3Client }> {
    return (this.clientP ??= import('@aws-sdk/client-s3').then((sdk) => ({ sdk, client: new sdk.S3Client(this.config) })));
  }

  // The five S3 calls this backend makes, unclassified (callers name what failed).
  private async headRaw(key: string): Promise<HeadObjectCommandOutput> {
    const { sdk, client } = await this.connect();
    return client.send(new sdk.HeadObjectCommand({ Bucket: this.loc.bucket, Key: key }));
  }

  private async getRaw(key: string): Promise<{ body: Buffer; meta: Record<string, string> }> {
    const { sdk, client } = await this.connect();
    const r = await client.send(new sdk.GetObjectCommand({ Bucket: this.loc.bucket, Key: key }));
    return { body: r.Body ? Buffer.from(await r.Body.transformToByteArray()) : Buffer.alloc(0), meta: r.Metadata ?? {} };
  }

  private async listRaw(prefix: string | undefined, token?: string, maxKeys?: number): Promise<ListObjectsV2CommandOutput> {
    const { sdk, client } = await this.connect();
    return client.send(new sdk.ListObjectsV2Command({ Bucket: this.loc.bucket, ...(prefix !== undefined ? { Prefix: prefix } : {}), ...(token ? { ContinuationToken: token } : {}), ...(maxKeys ? { MaxKeys: maxKeys } : {}) }));
  }

  get location(): string {
    return this.loc.display;
  }

  private key(...parts: string[]): string {
    return [this.loc.prefix, ...parts].filter((p) => p !== '').join('/');
  }

  /** Send a command; every failure is a named, classified error (StoreUnavailable when retrying can help). */
  private async send<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw this.classify(what, err);
    }
  }

  private classify(what: string, err: unknown): Error {
    const e = (err ?? {}) as SdkError & { cause?: SdkError; errors?: SdkError[] };
    const name = e.name ?? e.Code ?? '';
    const code = e.code ?? e.cause?.code ?? e.errors?.[0]?.code ?? '';
    const status = e.$metadata?.httpStatusCode ?? 0;
    // Under some runtimes (a jest sandbox) the SDK wraps a Node error it does not recognise: read the message too.
    const msg = String(e.message || name || code || err).replace(/^AWS SDK error wrapper for Error: /, '');
    const netMsg = /\b(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH)\b|socket hang up/.test(msg);
    if (name === 'NoSuchBucket') {
      return new Error(
        `the S3 bucket '${this.loc.bucket}' does not exist at ${this.loc.endpoint ?? `AWS S3 (${this.loc.region})`}: create it first ` +
          `(e.g. aws s3 mb s3://${this.loc.bucket}${this.loc.endpoint ? ` --endpoint-url ${this.loc.endpoint}` : ''}); the store never creates buckets`,
      );
    }
    if (name === 'CredentialsProviderError' || /Could not load credentials/i.test(msg)) {
      return new Error(`the store ${this.location} has no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) in this process's environment`);
    }
    if (UNAVAILABLE.test(name) || UNAVAILABLE.test(code) || netMsg || status >= 500 || status === 429) {
      return new StoreUnavailableError(this.location, `${what}: ${code && !msg.includes(code) ? `${msg} (${code})` : msg}`);
    }
    if (status === 403 || name === 'AccessDenied' || name === 'InvalidAccessKeyId' || name === 'SignatureDoesNotMatch') {
      return new Error(`the store ${this.location} refused ${what}: ${name || 'access denied'} (HTTP ${status}): check the credentials' permissions on the bucket`);
    }
    return new Error(`the store ${this.location} failed ${what}: ${name ? `${name}: ` : ''}${msg}${status ? ` (HTTP ${status})` : ''}`);
  }

  private blobKey(hash: string): string {
    const m = /^sha256:([0-9a-f]{64})$/.exec(hash);
    if (!m) throw new Error(`not a blob reference: ${hash}`);
    return this.key('blobs', m[1]);
  }

  private isMissing(err: unknown): boolean {
    const e = err as SdkError;
    return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || (e?.$metadata?.httpStatusCode === 404 && e?.name !== 'NoSuchBucket');
  }

  /** GET an object's bytes and metadata, null when the key is absent. */
  private async getObject(key: string, what: string): Promise<{ body: Buffer; meta: Record<string, string> } | null> {
    try {
      return await this.getRaw(key);
    } catch (err) {
      if (this.isMissing(err)) return null;
      throw this.classify(what, err);
    }
  }

  private async exists(key: string, what: string): Promise<boolean> {
    try {
      await this.headRaw(key);
      return true;
    } catch (err) {
      if (this.isMissing(err)) {
        // HEAD has no body, so a missing bucket is a bare 404 too: tell them apart by listing.
        await this.send('checking the bucket', () => this.listRaw(undefined, undefined, 1));
        return false;
      }
      throw this.classify(what, err);
    }
  }

  private async putObject(key: string, body: Buffer | string, what: string, meta?: Record<string, string>): Promise<void> {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    await this.send(what, async () => {
      const { sdk, client } = await this.connect();
      return client.send(new sdk.PutObjectCommand({ Bucket: this.loc.bucket, Key: key, Body: bytes, ContentLength: bytes.length, ...(meta ? { Metadata: meta } : {}) }));
    });
  }

  private async deleteObject(key: string, what: string): Promise<void> {
    await this.send(what, async () => {
      const { sdk, client } = await this.connect();
      return client.send(new sdk.DeleteObjectCommand({ Bucket: this.loc.bucket, Key: key }));
    });
  }

  /** Every key under `prefix`, following ListObjectsV2 continuation tokens. */
  private async listKeys(prefix: string, what: string, stopAfter?: (key: string) => boolean): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const r = await this.send(what, () => this.listRaw(prefix, token));
      for (const o of r.Contents ?? []) {
        if (!o.Key) continue;
        if (stopAfter?.(o.Key)) return keys;
        keys.push(o.Key);
      }
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  async put(data: Buffer | string): Promise<BlobRef> {
    const hash = hashOf(data);
    await this.putAt(hash, data);
    return { hash };
  }

  /** Store `data` under an address the caller computed (the encrypted store: the plaintext's hash). */
  async putAt(hash: string, data: Buffer | string): Promise<void> {
    // A PUT of the same key replaces the object atomically: writing the same blob twice is harmless.
    await this.putObject(this.blobKey(hash), data, `writing blob ${hash}`);
  }

  async get(ref: BlobRef): Promise<Buffer> {
    const o = await this.getObject(this.blobKey(ref.hash), `reading blob ${ref.hash}`);
    if (!o) {
      // A GET of a missing key in a missing bucket says NoSuchBucket (classified above).
      throw new BlobNotFoundError(ref.hash, this.location);
    }
    return o.body;
  }

  async has(ref: BlobRef): Promise<boolean> {
    return this.exists(this.blobKey(ref.hash), `checking blob ${ref.hash}`);
  }

  async putJson(value: unknown): Promise<BlobRef> {
    return this.put(JSON.stringify(value));
  }

  async getJson<T>(ref: BlobRef): Promise<T> {
    return parseStoredJson<T>(await this.get(ref), ref.hash, this.location);
  }

  async delete(ref: BlobRef): Promise<void> {
    await this.deleteObject(this.blobKey(ref.hash), `deleting blob ${ref.hash}`);
  }

  private recordDir(kind: string): string {
    return this.key('records', encodeSegment(kind)) + '/';
  }

  async getRecord(kind: string, key: string): Promise<string | null> {
    const o = await this.getObject(this.recordDir(kind) + 'k' + encodeSegment(key), `reading record ${kind}`);
    return o ? o.body.toString('utf8') : null;
  }

  async setRecord(kind: string, key: string, value: string): Promise<void> {
    await this.putObject(this.recordDir(kind) + 'k' + encodeSegment(key), value, `writing record ${kind}`);
  }

  async listRecords(kind: string, keyPrefix: string): Promise<StoredRecord[]> {
    const dir = this.recordDir(kind);
    // Percent-encoding works character by character, so the encoded prefix is a prefix of every encoded key.
    const keys = await this.listKeys(dir + 'k' + encodeSegment(keyPrefix), `listing records ${kind}`);
    const out: StoredRecord[] = [];
    const read = await Promise.all(keys.map(async (k) => ({ k, o: await this.getObject(k, `reading record ${kind}`) })));
    for (const { k, o } of read) if (o) out.push({ key: decodeSegment(k.slice(dir.length + 1)), value: o.body.toString('utf8') });
    return out.sort(byKey);
  }

  async deleteRecord(kind: string, key: string): Promise<void> {
    await this.deleteObject(this.recordDir(kind) + 'k' + encodeSegment(key), `deleting record ${kind}`);
  }

  private artifactKey(runId: string, name: string): string {
    return this.key('artifacts', encodeSegment(runId), encodeSegment(name));
  }

  private expiryKey(info: ArtifactInfo): string {
    return this.key('artifact-expiry', encodeSegment(new Date(info.expires_at).toISOString()), encodeSegment(info.run_id), encodeSegment(info.name));
  }

  async putArtifact(a: StoredArtifact): Promise<void> {
    const info = infoOf(a);
    const what = `writing artifact ${a.run_id}/${a.name}`;
    // The marker first: an artifact is never stored without the marker its purge finds it by.
    await this.putObject(this.expiryKey(info), '', what);
    await this.putObject(this.artifactKey(a.run_id, a.name), a.content, what, { 'loom-info': Buffer.from(JSON.stringify(info)).toString('base64') });
  }

  private infoFrom(meta: Record<string, string>, key: string): ArtifactInfo {
    const raw = meta['loom-info'];
    if (!raw) throw new Error(`the store ${this.location} holds ${key} without its loom-info metadata`);
    return JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as ArtifactInfo;
  }

  async listArtifacts(runId: string): Promise<ArtifactInfo[]> {
    const what = `listing artifacts of ${runId}`;
    const keys = await this.listKeys(this.key('artifacts', encodeSegment(runId)) + '/', what);
    const infos = await Promise.all(
      keys.map(async (k) => {
        try {
          const h = await this.headRaw(k);
          return this.infoFrom(h.Metadata ?? {}, k);
        } catch (err) {
          if (this.isMissing(err)) return null; // purged between the listing and the HEAD
          throw err instanceof Error && /loom-info/.test(err.message) ? err : this.classify(what, err);
        }
      }),
    );
    return infos.filter((i): i is ArtifactInfo => i !== null).sort((a, b) => (a.created_at === b.created_at ? (a.name < b.name ? -1 : 1) : a.created_at < b.created_at ? -1 : 1));
  }

  async getArtifact(runId: string, name: string): Promise<StoredArtifact | null> {
    const k = this.artifactKey(runId, name);
    const o = await this.getObject(k, `reading artifact ${runId}/${name}`);
    return o ? { ...this.infoFrom(o.meta, k), content: o.body } : null;
  }

  async purgeArtifacts(now: Date): Promise<number> {
    const dir = this.key('artifact-expiry') + '/';
    const cutoff = now.toISOString();
    // Markers sort by expiry time: stop at the first that has not expired yet.
    const expired = await this.listKeys(dir, 'listing expired artifacts', (k) => decodeSegment(k.slice(dir.length).split('/')[0]) >= cutoff);
    let purged = 0;
    for (const marker of expired) {
      const [, run, name] = marker.slice(dir.length).split('/').map(decodeSegment);
      const k = this.artifactKey(run, name);
      // The artifact may have been rewritten with a later expiry since this marker: check its own info.
      let info: ArtifactInfo | null = null;
      try {
        info = this.infoFrom((await this.headRaw(k)).Metadata ?? {}, k);
      } catch (err) {
        if (!this.isMissing(err)) throw err instanceof Error && /loom-info/.test(err.message) ? err : this.classify('purging artifacts', err);
      }
      if (info && new Date(info.expires_at).toISOString() < cutoff) {
        await this.deleteObject(k, 'purging artifacts');
        purged++;
      }
      await this.deleteObject(marker, 'purging artifacts');
    }
    return purged;
  }

  async close(): Promise<void> {
    if (this.clientP) (await this.clientP).client.destroy();
  }
}
