/**
 * The data converter the CLI and the workers hand to Temporal: the AES-256-GCM payload codec when
 * a codec key is configured (LOOM_CODEC_KEY / LOOM_CODEC_KEY_FILE, LOOM_ENCRYPTION), else nothing
 * (Temporal's default). Both sides must agree: a worker without the key cannot read what an
 * encrypting CLI started, and fails the workflow task with the key id it lacks. While encrypting,
 * failure messages and stack traces (a provider error may quote the prompt) are moved into an
 * encrypted payload too (failure-converter.ts). A workflow's own failures are converted inside its
 * sandbox by the converter its bundle was built with: an encrypting worker runs the sealed bundle
 * (src/plugin/bundle.ts), so those are encrypted as well.
 */
import * as path from 'path';
import type { DataConverter } from '@temporalio/common';
import { codecConfigured, codecKeysFromEnv } from './keys';
import { AesGcmPayloadCodec } from './payload-codec';
import { DecodeGuardCodec } from './decode-guard';

/** The module of the encoding failure converter, by path (a worker require()s it; the .ts or the built .js). */
export const FAILURE_CONVERTER_PATH = path.join(__dirname, 'failure-converter');

export function loomDataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  const keys = codecKeysFromEnv(env);
  if (!codecConfigured(keys)) return undefined;
  const payloadCodecs = [new AesGcmPayloadCodec(keys)];
  // A path, not an object: a worker loads its failure converter with require() and bundles it into workflows from source.
  return keys.encodeWith ? { payloadCodecs, failureConverterPath: FAILURE_CONVERTER_PATH } : { payloadCodecs };
}

/**
 * A worker's data converter: the client's (above), its codecs inside the decoding guard
 * (decode-guard.ts), so that a signal, update or query payload the worker cannot decode reaches
 * the workflow as a value its handler refuses instead of failing every workflow task.
 */
export function loomWorkerDataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter {
  const dc = loomDataConverter(env);
  return { ...(dc ?? {}), payloadCodecs: [new DecodeGuardCodec(dc?.payloadCodecs ?? [])] };
}
