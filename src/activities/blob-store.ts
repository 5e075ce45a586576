/**
 * Content-addressed blob store (claim check). Compiled bundles and conversation messages live
 * here; workflow histories carry only `sha256:` references, so history stays small and flat.
 *
 * The default backend is a folder (LOOM_STORE_DIR, default `.loom/store`) that every worker must
 * share: one machine, or a shared volume when workers run on several machines. Blobs are
 * immutable: writing the same bytes twice is a no-op, so activity retries are safe.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { BlobRef } from '../shared/contract';
import type { CompiledBundle } from '../compiler/types';
import { sha256 } from '../compiler/canonical';
import { loomEnv } from './env';
import { randomUUID } from 'crypto';

export interface BlobStore {
  put(data: Buffer | string): Promise<BlobRef>;
  get(ref: BlobRef): Promise<Buffer>;
  has(ref: BlobRef): Promise<boolean>;
}

export function hashOf(data: Buffer | string): string {
  return 'sha256:' + sha256(data);
}

export function defaultStoreDir(): string {
  // LOOM_STORE_DIR, else the store of LOOM_HOME (the CLI's state folder), else ./.loom/store.
  return path.resolve(loomEnv('LOOM_STORE_DIR') ?? path.join(loomEnv('LOOM_HOME') ?? path.join(process.cwd(), '.loom'), 'store'));
}

export class FileBlobStore implements BlobStore {
  constructor(readonly dir: string = defaultStoreDir()) {}

  private pathFor(hash: string): string {
    const m = /^sha256:([0-9a-f]{64})$/.exec(hash);
    if (!m) throw new Error(`not a blob reference: ${hash}`);
    return path.join(this.dir, m[1].slice(0, 2), m[1]);
  }

  async put(data: Buffer | string): Promise<BlobRef> {
    const hash = hashOf(data);
    const file = this.pathFor(hash);
    if (!fs.existsSync(file)) {
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      // Write-then-rename so a concurrent reader never sees a partial blob.
      // Unique per write: two activities of one process may store the same blob in the same millisecond.
      const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
      await fs.promises.writeFile(tmp, data);
      await fs.promises.rename(tmp, file);
    }
    return { hash };
  }

  async get(ref: BlobRef): Promise<Buffer> {
    try {
      return await fs.promises.readFile(this.pathFor(ref.hash));
    } catch (err: any) {
      if (err?.code === 'ENOENT') {
        throw new Error(`blob ${ref.hash} is not in the store at ${this.dir}: every worker and the CLI must share LOOM_STORE_DIR`);
      }
      throw err;
    }
  }

  async has(ref: BlobRef): Promise<boolean> {
    return fs.existsSync(this.pathFor(ref.hash));
  }

  async putJson(value: unknown): Promise<BlobRef> {
    return this.put(JSON.stringify(value));
  }

  async getJson<T>(ref: BlobRef): Promise<T> {
    return JSON.parse((await this.get(ref)).toString('utf8')) as T;
  }
}

/** Store a compiled bundle (the CLI does this before starting a run). */
export async function storeBundle(store: FileBlobStore, bundle: CompiledBundle): Promise<BlobRef> {
  return store.putJson(bundle);
}
