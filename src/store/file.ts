/**
 * The folder backend: one file per blob under `<dir>/<first two hex>/<hash>`, records under
 * `<dir>/records/<kind>/<sha256 of key>` (and the key itself in `<sha256 of key>.key`, for listing). Works for one machine (or a shared volume); nothing to start.
 */
import * as fs from 'fs';
import * as path from 'path';
import { randomUUID } from 'crypto';
import type { BlobRef } from '../shared/contract';
import { sha256 } from '../compiled/canonical';
import { loomEnv } from '../platform/env';
import { ArtifactInfo, BlobNotFoundError, BlobStore, parseStoredJson, StoredArtifact, StoredRecord, storeFailure } from './types';

/** The folder used when LOOM_STORE_URL is unset: LOOM_STORE_DIR, else `<LOOM_HOME>/store`, else `./.loom/store`. */
export function defaultStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(loomEnv('LOOM_STORE_DIR', env) ?? path.join(loomEnv('LOOM_HOME', env) ?? path.join(process.cwd(), '.loom'), 'store'));
}

export function hashOf(data: Buffer | string): string {
  return 'sha256:' + sha256(data);
}

/**
 * Folders this process has created or found (a cache: the store's 256 blob folders, the record and
 * artifact folders), so a write skips the mkdir round trip once its folder is known. Bounded; a
 * folder removed behind the process's back is created again when the write finds it missing.
 */
const knownDirs = new Set<string>();
const KNOWN_DIRS_MAX = 4096;

async function ensureDir(dir: string): Promise<void> {
  await fs.promises.mkdir(dir, { recursive: true });
  if (knownDirs.size >= KNOWN_DIRS_MAX) knownDirs.clear();
  knownDirs.add(dir);
}

/** Write-then-rename so a concurrent reader never sees a partial file; unique temp name per write. */
async function writeAtomically(file: string, data: Buffer | string): Promise<void> {
  const dir = path.dirname(file);
  const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  if (!knownDirs.has(dir)) await ensureDir(dir);
  try {
    await fs.promises.writeFile(tmp, data);
  } catch (err: any) {
    if (err?.code !== 'ENOENT') throw err;
    // The folder went away (a wiped store): create it again and write once more.
    knownDirs.delete(dir);
    await ensureDir(dir);
    await fs.promises.writeFile(tmp, data);
  }
  await fs.promises.rename(tmp, file);
}

async function readIfPresent(file: string): Promise<string | null> {
  try {
    return await fs.promises.readFile(file, 'utf8');
  } catch (err: any) {
    if (err?.code === 'ENOENT') return null;
    throw err;
  }
}

export class FileBlobStore implements BlobStore {
  constructor(readonly dir: string = defaultStoreDir()) {}

  get location(): string {
    return this.dir;
  }

  private pathFor(hash: string): string {
    const m = /^sha256:([0-9a-f]{64})$/.exec(hash);
    if (!m) throw new Error(`not a blob reference: ${hash}`);
    return path.join(this.dir, m[1].slice(0, 2), m[1]);
  }

  async put(data: Buffer | string): Promise<BlobRef> {
    const hash = hashOf(data);
    await this.putAt(hash, data);
    return { hash };
  }

  /** Store `bytes` under an address the caller computed (the encrypted store: the plaintext's hash). */
  async putAt(hash: string, bytes: Buffer | string): Promise<void> {
    const file = this.pathFor(hash);
    if (!fs.existsSync(file)) await writeAtomically(file, bytes).catch((err: unknown) => { throw storeFailure(err, this.dir); });
  }

  async get(ref: BlobRef): Promise<Buffer> {
    try {
      return await fs.promises.readFile(this.pathFor(ref.hash));
    } catch (err: any) {
      if (err?.code === 'ENOENT') throw new BlobNotFoundError(ref.hash, this.dir);
      // A folder that is down (a network mount) or refuses access: typed (retried, or not).
      throw storeFailure(err, this.dir);
    }
  }

  async has(ref: BlobRef): Promise<boolean> {
    return fs.existsSync(this.pathFor(ref.hash));
  }

  async delete(ref: BlobRef): Promise<void> {
    await fs.promises.rm(this.pathFor(ref.hash), { force: true });
  }

  async putJson(value: unknown): Promise<BlobRef> {
    return this.put(JSON.stringify(value));
  }

  async getJson<T>(ref: BlobRef): Promise<T> {
    return parseStoredJson<T>(await this.get(ref), ref.hash, this.dir);
  }

  private recordPath(kind: string, key: string): string {
    if (!/^[a-z][a-z0-9_-]*$/.test(kind)) throw new Error(`not a record kind: ${kind}`);
    return path.join(this.dir, 'records', kind, sha256(key));
  }

  getRecord(kind: string, key: string): Promise<string | null> {
    return readIfPresent(this.recordPath(kind, key)).catch((err: unknown) => { throw storeFailure(err, this.dir); });
  }

  async setRecord(kind: string, key: string, value: string): Promise<void> {
    const file = this.recordPath(kind, key);
    // The key beside the record (written once, before the value) is what listRecords reads.
    if (!fs.existsSync(`${file}.key`)) await writeAtomically(`${file}.key`, key);
    await writeAtomically(file, value);
  }

  async listRecords(kind: string, keyPrefix: string): Promise<StoredRecord[]> {
    const dir = path.dirname(this.recordPath(kind, ''));
    let names: string[];
    try {
      names = await fs.promises.readdir(dir);
    } catch (err: any) {
      if (err?.code === 'ENOENT') return [];
      throw err;
    }
    const out: StoredRecord[] = [];
    for (const n of names.filter((f) => f.endsWith('.key'))) {
      const key = await readIfPresent(path.join(dir, n));
      if (key === null || !key.startsWith(keyPrefix)) continue;
      // A record deleted (or not yet written) after its key file was read is skipped.
      const value = await readIfPresent(path.join(dir, n.slice(0, -'.key'.length)));
      if (value !== null) out.push({ key, value });
    }
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async deleteRecord(kind: string, key: string): Promise<void> {
    const file = this.recordPath(kind, key);
    await fs.promises.rm(file, { force: true });
    await fs.promises.rm(`${file}.key`, { force: true });
  }

  /** `<dir>/artifacts/<sha256 of run id>/<name>.json`: the info, the content in base64. */
  private artifactDir(runId: string): string {
    return path.join(this.dir, 'artifacts', sha256(runId));
  }

  private artifactFile(runId: string, name: string): string {
    if (!/^[a-z][a-z0-9_.-]*$/.test(name)) throw new Error(`not an artifact name: ${name}`);
    return path.join(this.artifactDir(runId), `${name}.json`);
  }

  async putArtifact(a: StoredArtifact): Promise<void> {
    const { content, ...info } = a;
    await writeAtomically(this.artifactFile(a.run_id, a.name), JSON.stringify({ ...info, content: content.toString('base64') }));
  }

  private async readArtifact(file: string): Promise<StoredArtifact | null> {
    try {
      const j = JSON.parse(await fs.promises.readFile(file, 'utf8')) as ArtifactInfo & { content: string };
      return { ...j, content: Buffer.from(j.content, 'base64') };
    } catch (err: any) {
      if (err?.code === 'ENOENT') return null;
      throw err;
    }
  }

  private async runFiles(dir: string): Promise<string[]> {
    try {
      return (await fs.promises.readdir(dir)).filter((f) => f.endsWith('.json')).map((f) => path.join(dir, f));
    } catch (err: any) {
      if (err?.code === 'ENOENT') return [];
      throw err;
    }
  }

  async listArtifacts(runId: string): Promise<ArtifactInfo[]> {
    const out: ArtifactInfo[] = [];
    for (const f of await this.runFiles(this.artifactDir(runId))) {
      const a = await this.readArtifact(f);
      if (a) out.push(infoOf(a));
    }
    return out.sort((x, y) => x.created_at.localeCompare(y.created_at) || x.name.localeCompare(y.name));
  }

  getArtifact(runId: string, name: string): Promise<StoredArtifact | null> {
    return this.readArtifact(this.artifactFile(runId, name));
  }

  async purgeArtifacts(now: Date): Promise<number> {
    const root = path.join(this.dir, 'artifacts');
    let n = 0;
    for (const run of await fs.promises.readdir(root).catch(() => [] as string[])) {
      for (const f of await this.runFiles(path.join(root, run))) {
        const a = await this.readArtifact(f);
        if (a && Date.parse(a.expires_at) < now.getTime()) {
          await fs.promises.rm(f, { force: true });
          n++;
        }
      }
    }
    return n;
  }

  async close(): Promise<void> {}
}

/** An artifact's listing entry (its content dropped). */
export function infoOf(a: StoredArtifact): ArtifactInfo {
  const { content: _c, ...info } = a;
  return info;
}
