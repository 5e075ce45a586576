/**
 * AES-256-GCM over bytes with node:crypto: `iv (12) | ciphertext | tag (16)` (the layout WebCrypto
 * produces, as in Temporal's samples-typescript `encryption` sample). A wrong key or tampered bytes
 * fail the tag check and throw.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function encrypt(plain: Uint8Array, key: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([iv, body, c.getAuthTag()]);
}

export function decrypt(sealed: Uint8Array, key: Buffer): Buffer {
  const buf = Buffer.from(sealed);
  if (buf.length < IV_BYTES + TAG_BYTES) throw new Error('encrypted data is too short to be AES-256-GCM output');
  const d = createDecipheriv('aes-256-gcm', key, buf.subarray(0, IV_BYTES));
  d.setAuthTag(buf.subarray(buf.length - TAG_BYTES));
  return Buffer.concat([d.update(buf.subarray(IV_BYTES, buf.length - TAG_BYTES)), d.final()]);
}
