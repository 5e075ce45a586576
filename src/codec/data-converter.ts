/**
 * The data converter the CLI and the workers hand to Temporal: the AES-256-GCM payload codec when
 * a codec key is configured (LOOM_CODEC_KEY / LOOM_CODEC_KEY_FILE, LOOM_ENCRYPTION), else nothing
 * (Temporal's default). Both sides must agree: a worker without the key cannot read what an
 * encrypting CLI started, and fails the workflow task with the key id it lacks.
 */
import type { DataConverter } from '@temporalio/common';
import { codecConfigured, codecKeysFromEnv } from './keys';
import { AesGcmPayloadCodec } from './payload-codec';

export function loomDataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  const keys = codecKeysFromEnv(env);
  return codecConfigured(keys) ? { payloadCodecs: [new AesGcmPayloadCodec(keys)] } : undefined;
}
