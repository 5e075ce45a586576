/**
 * The store every worker and the CLI share: content-addressed blobs (compiled bundles, conversation
 * messages, large inputs) plus small named records (a chat session's head). One interface, two
 * backends chosen by LOOM_STORE_URL (src/store/open.ts): a folder and PostgreSQL.
 */
import type { BlobRef } from '../shared/contract';

export interface BlobStore {
  /** Where the store is, for error messages and logs: a folder path or `postgres://user@host:port/db` (never a password). */
  readonly location: string;
  /** Store bytes under their sha256; storing the same bytes again is a no-op (retries are safe). */
  put(data: Buffer | string): Promise<BlobRef>;
  /** The bytes of `ref`; a missing blob throws a `BlobNotFound` error naming the store. */
  get(ref: BlobRef): Promise<Buffer>;
  has(ref: BlobRef): Promise<boolean>;
  putJson(value: unknown): Promise<BlobRef>;
  getJson<T>(ref: BlobRef): Promise<T>;
  /**
   * Optional: the blob at `head` and up to `max - 1` ancestors along a message chain's `prev` links,
   * in one round trip (a backend with per-read latency; the message store walks one by one without it).
   */
  chain?(head: BlobRef, max: number): Promise<Map<string, Buffer>>;
  /** A named, mutable record (`kind`/`key` → text), null when absent. */
  getRecord(kind: string, key: string): Promise<string | null>;
  /** Write a named record (last write wins). */
  setRecord(kind: string, key: string, value: string): Promise<void>;
  /**
   * Every record of `kind` whose key starts with `keyPrefix` ('' = all), ordered by key. A writer
   * that must never lose a concurrent write keeps one record per item and lists them, instead of
   * rewriting one shared record. The folder backend lists records written since it keeps each
   * record's key beside it (`<sha>.key`); older folder records are readable but not listed.
   */
  listRecords(kind: string, keyPrefix: string): Promise<StoredRecord[]>;
  /** Delete a record; a no-op when absent. */
  deleteRecord(kind: string, key: string): Promise<void>;
  /**
   * Delete a blob; a no-op when absent. Blobs are content-addressed and shared by whoever stored the
   * same bytes: only for blobs no one else can reference (e.g. nodes salted with one run's id).
   */
  delete(ref: BlobRef): Promise<void>;
  /** The Agent Definition Specification's artifacts: write (or overwrite) one artifact of a run. */
  putArtifact(a: StoredArtifact): Promise<void>;
  /** A run's artifacts without their content, oldest first. */
  listArtifacts(runId: string): Promise<ArtifactInfo[]>;
  /** One artifact with its content, null when absent (or purged). */
  getArtifact(runId: string, name: string): Promise<StoredArtifact | null>;
  /** Delete every artifact whose `expires_at` is before `now`; returns how many went. */
  purgeArtifacts(now: Date): Promise<number>;
  /** Release connections (a no-op for the folder). */
  close(): Promise<void>;
}

/** One named record as `listRecords` returns it. */
export interface StoredRecord {
  key: string;
  value: string;
}

/** What `loom artifacts RUN_ID` lists: which run, which kind of data, how long it is kept. */
export interface ArtifactInfo {
  run_id: string;
  /** `input.json`, `output.json`, `intermediate.json`. */
  name: string;
  kind: 'input' | 'output' | 'intermediate';
  retention_class: 'standard' | 'extended' | 'restricted';
  agent_id: string;
  created_at: string;
  /** ISO time after which the purge workflow deletes it. */
  expires_at: string;
  bytes: number;
}

export interface StoredArtifact extends ArtifactInfo {
  /** The artifact's bytes as stored (sealed with AES-256-GCM for `restricted`, see src/codec). */
  content: Buffer;
}

/** A blob the store does not hold: not retryable (retrying will not make it appear). */
export class BlobNotFoundError extends Error {
  constructor(hash: string, location: string) {
    super(`blob ${hash} is not in the store at ${location}: every worker and the CLI must use the same LOOM_STORE_URL (or LOOM_STORE_DIR)`);
    this.name = 'BlobNotFound';
  }
}

/** The store cannot be reached right now: retryable (an activity failure Temporal retries with backoff). */
export class StoreUnavailableError extends Error {
  constructor(location: string, cause: string) {
    super(`the store ${location} is unreachable: ${cause}`);
    this.name = 'StoreUnavailable';
  }
}

/** A stored blob or record that cannot be read as what it should be (not JSON): retrying will not fix it. */
export class StoreCorruptError extends Error {
  constructor(what: string, location: string, cause: string) {
    super(`${what} in the store ${location} is corrupt: ${cause}`);
    this.name = 'StoreCorrupt';
  }
}

/** The store refuses access (permissions, a read-only folder): a setting to fix, not an outage. */
export class StoreRefusedError extends Error {
  constructor(location: string, cause: string) {
    super(`the store ${location} refused access: ${cause}; check the folder's owner and permissions (every worker and the CLI must be able to write it)`);
    this.name = 'StoreRefused';
  }
}

/** errno codes of a folder store (a local disk or a network mount) that is down or busy for now. */
const UNAVAILABLE_ERRNO = new Set(['EIO', 'ETIMEDOUT', 'ENOTCONN', 'ESTALE', 'EAGAIN', 'EBUSY', 'EMFILE', 'ENFILE', 'ENOSPC', 'EHOSTDOWN', 'EHOSTUNREACH', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENETDOWN', 'ENETUNREACH']);
const REFUSED_ERRNO = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * A backend's I/O error as a typed store error: StoreUnavailable (retried: the store is down or
 * busy), StoreRefused (not retried: permissions), anything else unchanged. Pure.
 */
export function storeFailure(err: unknown, location: string): unknown {
  const e = err as { code?: string; message?: string; name?: string } | undefined;
  const code = typeof e?.code === 'string' ? e.code : '';
  const msg = String(e?.message ?? err);
  if (UNAVAILABLE_ERRNO.has(code)) return new StoreUnavailableError(location, msg);
  if (REFUSED_ERRNO.has(code)) return new StoreRefusedError(location, msg);
  return err;
}

/** `JSON.parse` of a stored blob, a parse failure being StoreCorrupt (not retried). */
export function parseStoredJson<T>(bytes: Buffer, hash: string, location: string): T {
  try {
    return JSON.parse(bytes.toString('utf8')) as T;
  } catch (e) {
    throw new StoreCorruptError(`blob ${hash}`, location, (e as Error).message);
  }
}
