/** Encrypted payloads (keys and the Temporal payload codec); the sealed store is src/store/encrypted.ts. */
export { codecKeysFromEnv, codecConfigured, keysFrom } from './keys';
export type { CodecKey, CodecKeys } from './keys';
export { AesGcmPayloadCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA } from './payload-codec';
export { loomDataConverter } from './data-converter';
