/**
 * The PostgreSQL backend, for clusters: a CLI on one machine and workers on others share blobs
 * and records through the database the Temporal cluster already runs on. Tables are created on
 * first use under an advisory lock (two workers starting at once do not race). Writes are
 * idempotent by content address (INSERT … ON CONFLICT DO NOTHING), so a retried activity never
 * loses or duplicates one. Any failure to reach the database is a `StoreUnavailable` error naming
 * `postgres://user@host:port/db` (never the password), which activities let Temporal retry.
 */
import type { Pool, PoolClient } from 'pg';
import type { BlobRef } from '../shared/contract';
import { hashOf, infoOf } from './file';
import { ArtifactInfo, BlobNotFoundError, BlobStore, StoredArtifact, StoredRecord, StoreUnavailableError, parseStoredJson } from './types';
import type { StoreLocation } from './url';

type PostgresLocation = Extract<StoreLocation, { kind: 'postgres' }>;

/** Arbitrary, fixed key of the advisory lock that serialises table creation across processes. */
const SCHEMA_LOCK_KEY = 7_417_001;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS loom_blobs (
     hash text PRIMARY KEY,
     data bytea NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now())`,
  `CREATE TABLE IF NOT EXISTS loom_records (
     kind text NOT NULL,
     key text NOT NULL,
     value text NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (kind, key))`,
  `CREATE TABLE IF NOT EXISTS loom_artifacts (
     run_id text NOT NULL,
     name text NOT NULL,
     info jsonb NOT NULL,
     content bytea NOT NULL,
     expires_at timestamptz NOT NULL,
     PRIMARY KEY (run_id, name))`,
  `CREATE INDEX IF NOT EXISTS loom_artifacts_expires ON loom_artifacts (expires_at)`,
];

/** SQLSTATE classes that mean "cannot talk to the database now": connection (08), resources (53), operator intervention (57). */
const UNAVAILABLE_SQLSTATE = /^(08|53|57)/;

function describeCause(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const msg = String(e?.message ?? err);
  return e?.code && !msg.includes(e.code) ? `${msg} (${e.code})` : msg;
}

export class PostgresBlobStore implements BlobStore {
  private poolP?: Promise<Pool>;
  private schemaP?: Promise<void>;

  constructor(private readonly loc: PostgresLocation) {}

  get location(): string {
    return this.loc.display;
  }

  private pool(): Promise<Pool> {
    this.poolP ??= import('pg').then(({ Pool: PgPool }) => {
      const pool = new PgPool({
        connectionString: this.loc.connectionString,
        max: 10,
        connectionTimeoutMillis: 10_000,
        idleTimeoutMillis: 10_000,
        // A CLI command ends when its work is done, without an explicit close.
        allowExitOnIdle: true,
      });
      // An idle connection dropped by a database restart is discarded by the pool; without a
      // listener the 'error' event would crash the worker.
      pool.on('error', () => undefined);
      return pool;
    });
    return this.poolP;
  }

  /** Run `fn` with a connection, the tables ensured; every failure to reach the database becomes StoreUnavailable. */
  private async withClient<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await (await this.pool()).connect();
    } catch (err) {
      throw new StoreUnavailableError(this.location, describeCause(err));
    }
    let broken = false;
    try {
      await this.ensureSchema(client);
      return await fn(client);
    } catch (err) {
      if (err instanceof BlobNotFoundError) throw err;
      const code = (err as { code?: string })?.code ?? '';
      broken = !code || UNAVAILABLE_SQLSTATE.test(code) || /^E[A-Z]+$/.test(code);
      if (broken) throw new StoreUnavailableError(this.location, describeCause(err));
      throw new Error(`the store ${this.location} refused a statement: ${describeCause(err)}`);
    } finally {
      client.release(broken);
    }
  }

  private ensureSchema(client: PoolClient): Promise<void> {
    this.schemaP ??= (async () => {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK_KEY]);
        for (const ddl of SCHEMA) await client.query(ddl);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    })().catch((err) => {
      this.schemaP = undefined; // the next call tries again
      throw err;
    });
    return this.schemaP;
  }

  async put(data: Buffer | string): Promise<BlobRef> {
    const hash = hashOf(data);
    await this.putAt(hash, data);
    return { hash };
  }

  /** Store `data` under an address the caller computed (the encrypted store: the plaintext's hash). */
  async putAt(hash: string, data: Buffer | string): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    await this.withClient((c) => c.query('INSERT INTO loom_blobs (hash, data) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING', [hash, bytes]));
  }

  async get(ref: BlobRef): Promise<Buffer> {
    return this.withClient(async (c) => {
      const r = await c.query<{ data: Buffer }>('SELECT data FROM loom_blobs WHERE hash = $1', [ref.hash]);
      if (!r.rows.length) throw new BlobNotFoundError(ref.hash, this.location);
      return r.rows[0].data;
    });
  }

  async has(ref: BlobRef): Promise<boolean> {
    return this.withClient(async (c) => (await c.query('SELECT 1 FROM loom_blobs WHERE hash = $1', [ref.hash])).rowCount === 1);
  }

  async putJson(value: unknown): Promise<BlobRef> {
    return this.put(JSON.stringify(value));
  }

  async getJson<T>(ref: BlobRef): Promise<T> {
    return parseStoredJson<T>(await this.get(ref), ref.hash, this.location);
  }

  async chain(head: BlobRef, max: number): Promise<Map<string, Buffer>> {
    return this.withClient(async (c) => {
      // Follows the `prev` field of each JSON message node (agentloom.msg/v1) inside the database.
      const r = await c.query<{ hash: string; data: Buffer }>(
        `WITH RECURSIVE walk(hash, data, prev, depth) AS (
           SELECT hash, data, convert_from(data, 'UTF8')::jsonb->>'prev', 1 FROM loom_blobs WHERE hash = $1
           UNION ALL
           SELECT b.hash, b.data, convert_from(b.data, 'UTF8')::jsonb->>'prev', w.depth + 1
           FROM loom_blobs b JOIN walk w ON b.hash = w.prev WHERE w.depth < $2)
         SELECT hash, data FROM walk`,
        [head.hash, max],
      );
      return new Map(r.rows.map((row) => [row.hash, row.data]));
    });
  }

  async getRecord(kind: string, key: string): Promise<string | null> {
    return this.withClient(async (c) => {
      const r = await c.query<{ value: string }>('SELECT value FROM loom_records WHERE kind = $1 AND key = $2', [kind, key]);
      return r.rows.length ? r.rows[0].value : null;
    });
  }

  async setRecord(kind: string, key: string, value: string): Promise<void> {
    await this.withClient((c) =>
      c.query(
        `INSERT INTO loom_records (kind, key, value) VALUES ($1, $2, $3)
         ON CONFLICT (kind, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
        [kind, key, value],
      ),
    );
  }

  async listRecords(kind: string, keyPrefix: string): Promise<StoredRecord[]> {
    return this.withClient(async (c) => {
      // starts_with, not LIKE: a key may hold % or _.
      const r = await c.query<StoredRecord>('SELECT key, value FROM loom_records WHERE kind = $1 AND starts_with(key, $2) ORDER BY key COLLATE "C"', [kind, keyPrefix]);
      return r.rows;
    });
  }

  async deleteRecord(kind: string, key: string): Promise<void> {
    await this.withClient((c) => c.query('DELETE FROM loom_records WHERE kind = $1 AND key = $2', [kind, key]));
  }

  async delete(ref: BlobRef): Promise<void> {
    await this.withClient((c) => c.query('DELETE FROM loom_blobs WHERE hash = $1', [ref.hash]));
  }

  async putArtifact(a: StoredArtifact): Promise<void> {
    const info = infoOf(a);
    await this.withClient((c) =>
      c.query(
        `INSERT INTO loom_artifacts (run_id, name, info, content, expires_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (run_id, name) DO UPDATE SET info = EXCLUDED.info, content = EXCLUDED.content, expires_at = EXCLUDED.expires_at`,
        [a.run_id, a.name, JSON.stringify(info), a.content, a.expires_at],
      ),
    );
  }

  async listArtifacts(runId: string): Promise<ArtifactInfo[]> {
    return this.withClient(async (c) => {
      const r = await c.query<{ info: ArtifactInfo }>(`SELECT info FROM loom_artifacts WHERE run_id = $1 ORDER BY info->>'created_at', name`, [runId]);
      return r.rows.map((row) => row.info);
    });
  }

  async getArtifact(runId: string, name: string): Promise<StoredArtifact | null> {
    return this.withClient(async (c) => {
      const r = await c.query<{ info: ArtifactInfo; content: Buffer }>('SELECT info, content FROM loom_artifacts WHERE run_id = $1 AND name = $2', [runId, name]);
      return r.rows.length ? { ...r.rows[0].info, content: r.rows[0].content } : null;
    });
  }

  async purgeArtifacts(now: Date): Promise<number> {
    return this.withClient(async (c) => (await c.query('DELETE FROM loom_artifacts WHERE expires_at < $1', [now.toISOString()])).rowCount ?? 0);
  }

  async close(): Promise<void> {
    const p = this.poolP;
    this.poolP = undefined;
    this.schemaP = undefined;
    if (p) await (await p).end();
  }
}
