/**
 * The Temporal PayloadCodec that keeps prompts and tool results out of the history in plaintext:
 * each payload is serialised (protobuf) and sealed with AES-256-GCM under the newest key; the
 * result carries `encoding: binary/encrypted` and `encryption-key-id` in its metadata so any key
 * listed for decoding opens it (rotation). Payloads without that encoding pass through decode
 * unchanged, so histories recorded before encryption was turned on still replay.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { decrypt, encrypt } from './aes-gcm';
import type { CodecKeys } from './keys';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const text = (b: Uint8Array | null | undefined): string => Buffer.from(b ?? []).toString('utf8');

export class AesGcmPayloadCodec implements PayloadCodec {
  constructor(private readonly keys: CodecKeys) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const k = this.keys.encodeWith;
    if (!k) return payloads;
    return payloads.map((p) => ({
      metadata: { encoding: utf8(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8(k.id) },
      data: encrypt(temporal.api.common.v1.Payload.encode(p).finish(), k.key),
    }));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      if (text(p.metadata?.encoding) !== ENCRYPTED_ENCODING) return p;
      const id = text(p.metadata?.[KEY_ID_METADATA]);
      const k = this.keys.byId.get(id);
      if (!k) {
        const have = [...this.keys.byId.keys()].join(', ') || 'none';
        throw new Error(`payload encrypted with key '${id}', which this process does not have (keys: ${have}): add it to LOOM_CODEC_KEY or LOOM_CODEC_KEY_FILE`);
      }
      return temporal.api.common.v1.Payload.decode(decrypt(p.data ?? new Uint8Array(), k.key)) as Payload;
    });
  }
}
