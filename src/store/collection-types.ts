/**
 * The collection backend types this runtime has a store for, and the compiler's check of a
 * collection's `backend` block (pure: the compiler reads it without loading the store backends;
 * src/store/collection-backend.ts opens the stores).
 */
import { parseStoreUrl, type StoreLocation } from './url';

/** Collection backend types with a store in this runtime. */
export const COLLECTION_BACKEND_TYPES = ['store', 'memory', 'postgres', 'file'] as const;
/** The types that name their own location (`url`); the others use the shared store. */
export const OWN_STORE_TYPES = ['postgres', 'file'] as const;

/** Why a collection backend cannot be used (a message naming what to write), or undefined. Pure: the compiler's check. */
export function collectionBackendProblem(backend: Record<string, unknown>): { field: string; message: string } | undefined {
  const type = backend.type;
  const types: readonly string[] = COLLECTION_BACKEND_TYPES;
  if (typeof type !== 'string' || !types.includes(type)) {
    return { field: 'type', message: `collection backend type \`${String(type)}\` has no store in this runtime; write one of: ${types.join(', ')} (store and memory: the shared store)` };
  }
  const own: readonly string[] = OWN_STORE_TYPES;
  if (!own.includes(type)) {
    return backend.url !== undefined || backend.credentials_ref !== undefined ? { field: backend.url !== undefined ? 'url' : 'credentials_ref', message: `\`url\` and \`credentials_ref\` do not go with backend type \`${type}\` (the shared store); use \`type: postgres\` for a database of its own` } : undefined;
  }
  const example = type === 'postgres' ? 'postgres://loom@db.internal:5432/memory' : 'file:///srv/loom/memory';
  if (typeof backend.url !== 'string' || !backend.url.trim()) return { field: 'url', message: `backend type \`${type}\` needs \`url\`, e.g. \`url: ${example}\`` };
  let loc: StoreLocation;
  try {
    loc = parseStoreUrl(backend.url);
  } catch (e) {
    return { field: 'url', message: `backend.url: ${(e as Error).message.replace(/^LOOM_STORE_URL /, '')}` };
  }
  if (loc.kind !== type) return { field: 'url', message: `backend.url is a ${loc.kind} location but \`type\` is ${type}: write e.g. \`${example}\`` };
  if (loc.kind === 'file' && !/^file:/i.test(backend.url.trim())) return { field: 'url', message: `backend.url must be a file:/// URL (an absolute folder every worker sees), e.g. \`${example}\`` };
  if (loc.kind === 'postgres' && new URL(backend.url.trim()).password) {
    return { field: 'url', message: 'backend.url holds a password: collection definitions are compiled into agents, so name the password with `credentials_ref` (declared under tenant.md `secrets`) and leave it out of the url' };
  }
  if (loc.kind === 'file' && backend.credentials_ref !== undefined) return { field: 'credentials_ref', message: '`credentials_ref` does not go with `type: file` (a folder has no password)' };
  return undefined;
}

