/** Encrypted payloads and encryption at rest (issue 12): keys, the Temporal codec, the sealed store. */
export { codecKeysFromEnv, codecConfigured, keysFrom } from './keys';
export type { CodecKey, CodecKeys } from './keys';
export { AesGcmPayloadCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA } from './payload-codec';
export { EncryptedBlobStore, isSealed, seal, unseal } from './encrypted-store';
export { loomDataConverter } from './data-converter';
