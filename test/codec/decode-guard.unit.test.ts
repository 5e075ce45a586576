/**
 * The worker's decoding guard: in a workflow's context a payload the worker cannot decode becomes
 * the undecodable marker (a JSON payload the default converter reads), in an activity's context the
 * error stays; readable payloads pass unchanged, encrypted ones are opened by the inner codec.
 */
import { randomBytes } from 'crypto';
import { defaultPayloadConverter, type Payload, type SerializationContext } from '@temporalio/common';
import { AesGcmPayloadCodec, keysFrom } from '../../src/codec';
import { DecodeGuardCodec } from '../../src/codec/decode-guard';
import { loomWorkerDataConverter } from '../../src/codec/data-converter';
import { isUndecodable } from '../../src/shared/payload-check';

const WF: SerializationContext = { type: 'workflow', namespace: 'default', workflowId: 'w1' };
const ACT: SerializationContext = { type: 'activity', namespace: 'default', workflowId: 'w1', activityId: '1', isLocal: false };
const raw = (encoding: string, data: string): Payload => ({ metadata: { encoding: Buffer.from(encoding) }, data: Buffer.from(data) });
const value = (p: Payload): unknown => defaultPayloadConverter.fromPayload(p);

test('an unknown encoding or JSON that is not JSON becomes the marker in a workflow context, unchanged for an activity', async () => {
  const g = new DecodeGuardCodec();
  const [evil, broken, ok] = await g.decode([raw('binary/evil', '"x"'), raw('json/plain', '{nope'), defaultPayloadConverter.toPayload({ call_id: 'c1' })], WF);
  const e = value(evil);
  expect(isUndecodable(e) && e.__loom_undecodable).toEqual({ encoding: 'binary/evil', error: "no converter for encoding 'binary/evil'" });
  const b = value(broken);
  expect(isUndecodable(b) && b.__loom_undecodable.encoding).toBe('json/plain');
  expect(value(ok)).toEqual({ call_id: 'c1' });
  const [asIs] = await g.decode([raw('binary/evil', '"x"')], ACT);
  expect(Buffer.from(asIs.metadata!.encoding!).toString()).toBe('binary/evil');
});

test('an encrypted payload under a key the worker lacks: the marker for a workflow, the key error for an activity', async () => {
  const sender = new AesGcmPayloadCodec(keysFrom([[`k1:${randomBytes(32).toString('base64')}`, 'LOOM_CODEC_KEY']], undefined));
  const [sealed] = await sender.encode([defaultPayloadConverter.toPayload({ call_id: 'c1' })]);
  const other = new DecodeGuardCodec([new AesGcmPayloadCodec(keysFrom([[`k2:${randomBytes(32).toString('base64')}`, 'LOOM_CODEC_KEY']], undefined))]);
  const [m] = await other.decode([sealed], WF);
  const v = value(m);
  expect(isUndecodable(v) && v.__loom_undecodable.encoding).toBe('binary/encrypted');
  expect(isUndecodable(v) && v.__loom_undecodable.error).toMatch(/key 'k1'/);
  await expect(other.decode([sealed], ACT)).rejects.toThrow(/key 'k1'/);
  // A worker with no key at all: the same marker (binary/encrypted has no converter).
  const [none] = await new DecodeGuardCodec().decode([sealed], WF);
  expect(isUndecodable(value(none))).toBe(true);
  // The right key opens it.
  const [open] = await new DecodeGuardCodec([sender]).decode([sealed], WF);
  expect(value(open)).toEqual({ call_id: 'c1' });
});

test('the worker data converter always has the guard, around the AES codec when a key is set', async () => {
  expect(loomWorkerDataConverter({}).payloadCodecs?.[0]).toBeInstanceOf(DecodeGuardCodec);
  const dc = loomWorkerDataConverter({ LOOM_CODEC_KEY: `k1:${randomBytes(32).toString('base64')}` });
  const [enc] = await dc.payloadCodecs![0].encode([defaultPayloadConverter.toPayload('hi')]);
  expect(Buffer.from(enc.metadata!.encoding!).toString()).toBe('binary/encrypted');
  expect(dc.failureConverterPath).toBeDefined();
});
