/**
 * A store that passes every call to another: the base of the wrappers that change a few calls
 * (artifact routing, an ephemeral run's tracking) and must forward all the others unchanged —
 * including operations added to BlobStore later, which a copied pass-through list would miss.
 */
import type { BlobRef } from '../shared/contract';
import type { ArtifactInfo, BlobStore, StoredArtifact, StoredRecord } from './types';

export class DelegatingStore implements BlobStore {
  readonly chain?: BlobStore['chain'];

  constructor(readonly inner: BlobStore) {
    if (inner.chain) this.chain = (head, max) => inner.chain!(head, max);
  }

  get location(): string {
    return this.inner.location;
  }
  put(data: Buffer | string): Promise<BlobRef> {
    return this.inner.put(data);
  }
  get(ref: BlobRef): Promise<Buffer> {
    return this.inner.get(ref);
  }
  has(ref: BlobRef): Promise<boolean> {
    return this.inner.has(ref);
  }
  putJson(value: unknown): Promise<BlobRef> {
    return this.inner.putJson(value);
  }
  getJson<T>(ref: BlobRef): Promise<T> {
    return this.inner.getJson<T>(ref);
  }
  delete(ref: BlobRef): Promise<void> {
    return this.inner.delete(ref);
  }
  getRecord(kind: string, key: string): Promise<string | null> {
    return this.inner.getRecord(kind, key);
  }
  setRecord(kind: string, key: string, value: string): Promise<void> {
    return this.inner.setRecord(kind, key, value);
  }
  listRecords(kind: string, keyPrefix: string): Promise<StoredRecord[]> {
    return this.inner.listRecords(kind, keyPrefix);
  }
  deleteRecord(kind: string, key: string): Promise<void> {
    return this.inner.deleteRecord(kind, key);
  }
  putArtifact(a: StoredArtifact): Promise<void> {
    return this.inner.putArtifact(a);
  }
  listArtifacts(runId: string): Promise<ArtifactInfo[]> {
    return this.inner.listArtifacts(runId);
  }
  getArtifact(runId: string, name: string): Promise<StoredArtifact | null> {
    return this.inner.getArtifact(runId, name);
  }
  purgeArtifacts(now: Date): Promise<number> {
    return this.inner.purgeArtifacts(now);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
