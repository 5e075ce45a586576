/**
 * The store with encryption at rest: blob bytes and record values are sealed with AES-256-GCM under
 * the newest key before they reach the backend (folder or PostgreSQL), and opened on read. A blob
 * keeps the address of its PLAINTEXT (callers that compute a bundle's hash still find it), so the
 * backend stores the sealed bytes under a given address (`putAt`). Data written before encryption
 * was turned on has no marker and is returned as is; with encryption off but keys configured the
 * store still opens sealed data and writes plaintext.
 */
import type { BlobRef } from '../shared/contract';
import { hashOf } from './file';
import type { ArtifactInfo, BlobStore, StoredArtifact, StoredRecord } from './types';
import { decrypt, encrypt } from '../codec/aes-gcm';
import type { CodecKeys } from '../codec/keys';

/** Marker of a sealed blob: `LOOMENC1`, one byte of key-id length, the key id, then iv|ciphertext|tag. */
const MAGIC = Buffer.from('LOOMENC1', 'ascii');
/** Marker of a sealed record value (records are text): the sealed blob form in base64. */
const RECORD_PREFIX = 'loomenc1:';

/** A backend that can store bytes under an address it does not compute (both built-in backends). */
export type AddressableStore = BlobStore & { putAt(hash: string, bytes: Buffer): Promise<void> };

export function seal(plain: Buffer, keys: CodecKeys): Buffer {
  const k = keys.encodeWith;
  if (!k) return plain;
  const id = Buffer.from(k.id, 'utf8');
  return Buffer.concat([MAGIC, Buffer.from([id.length]), id, encrypt(plain, k.key)]);
}

export function isSealed(data: Buffer): boolean {
  return data.length > MAGIC.length && data.subarray(0, MAGIC.length).equals(MAGIC);
}

export function unseal(data: Buffer, keys: CodecKeys, what: string): Buffer {
  if (!isSealed(data)) return data;
  const n = data[MAGIC.length];
  const id = data.subarray(MAGIC.length + 1, MAGIC.length + 1 + n).toString('utf8');
  const k = keys.byId.get(id);
  if (!k) throw new Error(`${what} is encrypted with key '${id}', which this process does not have: add it to LOOM_CODEC_KEY or LOOM_CODEC_KEY_FILE`);
  return decrypt(data.subarray(MAGIC.length + 1 + n), k.key);
}

export class EncryptedBlobStore implements BlobStore {
  constructor(private readonly inner: AddressableStore, private readonly keys: CodecKeys) {}

  get location(): string {
    return this.inner.location;
  }

  async put(data: Buffer | string): Promise<BlobRef> {
    const plain = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const hash = hashOf(plain);
    await this.inner.putAt(hash, seal(plain, this.keys));
    return { hash };
  }

  async get(ref: BlobRef): Promise<Buffer> {
    return unseal(await this.inner.get(ref), this.keys, `blob ${ref.hash} in ${this.location}`);
  }

  has(ref: BlobRef): Promise<boolean> {
    return this.inner.has(ref);
  }

  putJson(value: unknown): Promise<BlobRef> {
    return this.put(JSON.stringify(value));
  }

  async getJson<T>(ref: BlobRef): Promise<T> {
    return JSON.parse((await this.get(ref)).toString('utf8')) as T;
  }

  // No `chain`: the backend cannot follow `prev` links inside sealed bytes; the message store walks one by one.

  async getRecord(kind: string, key: string): Promise<string | null> {
    const v = await this.inner.getRecord(kind, key);
    return v === null ? null : this.openRecord(kind, key, v);
  }

  private openRecord(kind: string, key: string, v: string): string {
    if (!v.startsWith(RECORD_PREFIX)) return v;
    return unseal(Buffer.from(v.slice(RECORD_PREFIX.length), 'base64'), this.keys, `record ${kind}/${key} in ${this.location}`).toString('utf8');
  }

  async listRecords(kind: string, keyPrefix: string): Promise<StoredRecord[]> {
    const rows = await this.inner.listRecords(kind, keyPrefix);
    return rows.map((r) => ({ key: r.key, value: this.openRecord(kind, r.key, r.value) }));
  }

  deleteRecord(kind: string, key: string): Promise<void> {
    return this.inner.deleteRecord(kind, key);
  }

  delete(ref: BlobRef): Promise<void> {
    return this.inner.delete(ref);
  }

  setRecord(kind: string, key: string, value: string): Promise<void> {
    const sealed = this.keys.encodeWith ? RECORD_PREFIX + seal(Buffer.from(value, 'utf8'), this.keys).toString('base64') : value;
    return this.inner.setRecord(kind, key, sealed);
  }

  putArtifact(a: StoredArtifact): Promise<void> {
    return this.inner.putArtifact({ ...a, content: seal(a.content, this.keys) });
  }

  listArtifacts(runId: string): Promise<ArtifactInfo[]> {
    return this.inner.listArtifacts(runId);
  }

  async getArtifact(runId: string, name: string): Promise<StoredArtifact | null> {
    const a = await this.inner.getArtifact(runId, name);
    return a && { ...a, content: unseal(a.content, this.keys, `artifact ${name} of run ${runId} in ${this.location}`) };
  }

  purgeArtifacts(now: Date): Promise<number> {
    return this.inner.purgeArtifacts(now);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
