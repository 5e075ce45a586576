/** The shared store (blobs and records): interface, backends and the LOOM_STORE_URL setting. */
export type { ArtifactInfo, BlobStore, StoredArtifact } from './types';
export { BlobNotFoundError, StoreUnavailableError } from './types';
export { FileBlobStore, hashOf } from './file';
export { PostgresBlobStore } from './postgres';
export { parseStoreUrl, redactStoreUrl } from './url';
export type { StoreLocation } from './url';
export { openStore, openStoreAt, storeLocationFromEnv, defaultStoreDir, closeOpenStores } from './open';
