/**
 * Where a memory collection's entries live (the Agent Definition Specification's collection
 * `backend`): `store` (or `memory`, the older name) is the store every worker shares
 * (LOOM_STORE_URL); `postgres` is the collection's own PostgreSQL database, located by `url`
 * (`postgres://user@host:port/db`, no password in it) with its password read at run time from the
 * secret store (`credentials_ref`, an env var or file on the worker): never in the compiled
 * payload, a workflow input or a history; `file` is its own folder (`file:///abs/path`). Other
 * types (valkey, AgentCore Memory…) have no backend here: the compiler refuses them (AGF561).
 *
 * The entries are semantic-searched with the collection's `backend.embeddings` endpoint, the
 * vectors compared in the worker: the embedded PostgreSQL the tests use ships no pgvector
 * extension, so the store keeps the same records on every backend.
 */
import type { CompiledCollection, SecretRef } from '../compiled/types';
import { openRoute } from './open';
import type { BlobStore } from './types';
import { OWN_STORE_TYPES } from './collection-types';

export { COLLECTION_BACKEND_TYPES, OWN_STORE_TYPES, collectionBackendProblem } from './collection-types';

/**
 * The store a collection's entries live in: its own (postgres, file), its password read here from
 * the secret store (a non-retryable SecretUnavailable naming the ref when it cannot be read), or
 * `shared` for the other types.
 */
export function collectionStore(c: CompiledCollection, secrets: Readonly<Record<string, SecretRef>> | undefined, shared: BlobStore, env: NodeJS.ProcessEnv = process.env): BlobStore {
  const b = c.backend as Record<string, unknown>;
  const own: readonly string[] = OWN_STORE_TYPES;
  if (!own.includes(String(b.type)) || typeof b.url !== 'string') return shared;
  const ref = typeof b.credentials_ref === 'string' ? b.credentials_ref : undefined;
  return openRoute({ url: b.url, ...(ref ? { credentials_ref: ref, ...(secrets?.[ref] ? { credentials: secrets[ref] } : {}) } : {}) }, env);
}
