/** The shared store (blobs and records): interface, backends and the LOOM_STORE_URL setting. */
export type { ArtifactInfo, BlobStore, StoredArtifact, StoredRecord } from './types';
export { BlobNotFoundError, StoreCorruptError, StoreRefusedError, StoreUnavailableError, storeFailure } from './types';
export { FileBlobStore, hashOf } from './file';
export { PostgresBlobStore } from './postgres';
export { S3BlobStore } from './s3';
export { parseStoreUrl, redactStoreUrl } from './url';
export type { StoreLocation, S3Location } from './url';
export { openStore, openStoreAt, openRoute, storeLocationFromEnv, defaultStoreDir, closeOpenStores } from './open';
export { ArtifactRoutingStore, artifactTarget, purgeEverywhere, recordRoute, routeOf, ARTIFACT_ENCRYPTION, ARTIFACT_STORE_TYPES } from './artifact-route';
export type { ArtifactRoute, ArtifactTarget } from './artifact-route';
