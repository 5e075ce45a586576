/** tenant.md `artifact_store` values this runtime honours (pure: read by the compiler and the store; decision 286). */

/** Backend types of `artifact_store.type` that this runtime writes to: the shared store, a folder, PostgreSQL. */
export const ARTIFACT_STORE_TYPES = ['store', 'file', 'postgres'] as const;
/** The `encryption` value this runtime applies: every artifact sealed with AES-256-GCM under the codec key (src/codec). */
export const ARTIFACT_ENCRYPTION = 'aes-256-gcm';
