/**
 * Content-addressed blob store (claim check). Compiled bundles and conversation messages live
 * here; workflow histories carry only `sha256:` references, so history stays small and flat.
 *
 * The backend is chosen by LOOM_STORE_URL (src/store): a folder (`file:///…`, the default
 * `.loom/store`; LOOM_STORE_DIR still names one) or PostgreSQL (`postgres://…`) shared by a CLI
 * and workers on different machines. Blobs are immutable: writing the same bytes twice is a
 * no-op, so activity retries are safe.
 */
import type { BlobRef } from '../shared/contract';
import type { CompiledBundle } from '../compiled/types';
import { openStore } from '../store/open';
import type { BlobStore } from '../store/types';

export type { BlobStore } from '../store/types';
export { FileBlobStore, hashOf } from '../store/file';
export { defaultStoreDir } from '../store/open';

/** The store this process is configured for (LOOM_STORE_URL / LOOM_STORE_DIR / LOOM_HOME). */
export function openBlobStore(): BlobStore {
  return openStore();
}

/** Store a compiled bundle (the CLI does this before starting a run). */
export async function storeBundle(store: BlobStore, bundle: CompiledBundle): Promise<BlobRef> {
  return store.putJson(bundle);
}
