/**
 * The codec pieces without a Temporal server: key configuration (ids, rotation, clear refusals),
 * the AES-256-GCM payload codec (round trip, key id in metadata, pass-through of plaintext), the
 * sealed folder store (no plaintext on disk, old plaintext still readable) and the codec endpoint
 * (decode/encode, the Web UI's CORS preflight, refusal of other origins).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmPayloadCodec, codecKeysFromEnv, ENCRYPTED_ENCODING, KEY_ID_METADATA, keysFrom, loomDataConverter } from '../../src/codec';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import { FileBlobStore, openStoreAt } from '../../src/store';
import { startCodecServer } from '../../src/codec/server';

const SECRET = 'card PIN 4921 for account SECRET-OTTER-0042';
const k1 = randomBytes(32).toString('base64');
const k2 = randomBytes(32).toString('hex');
const text = (b?: Uint8Array | null) => Buffer.from(b ?? []).toString('utf8');

function allFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? allFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('codec keys', () => {
  test('bare keys get a derived id; an explicit id is kept; the last key listed encodes', () => {
    const keys = keysFrom([[`old:${k1}`, 'LOOM_CODEC_KEY'], [k2, 'LOOM_CODEC_KEY']], undefined);
    expect([...keys.byId.keys()][0]).toBe('old');
    expect(keys.encodeWith?.id).toMatch(/^k-[0-9a-f]{8}$/);
    expect(keys.encodeWith?.key).toEqual(Buffer.from(k2, 'hex'));
  });

  test('a key file and LOOM_CODEC_KEY combine; LOOM_ENCRYPTION=off decodes but does not encode', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codec-keys-'));
    const file = path.join(dir, 'keys');
    fs.writeFileSync(file, `# rotated 2026-10\nv1:${k1}\n\n`);
    const keys = codecKeysFromEnv({ LOOM_CODEC_KEY_FILE: file, LOOM_CODEC_KEY: `v2:${k2}` });
    expect([...keys.byId.keys()]).toEqual(['v1', 'v2']);
    expect(keys.encodeWith?.id).toBe('v2');
    const off = codecKeysFromEnv({ LOOM_CODEC_KEY_FILE: file, LOOM_ENCRYPTION: 'off' });
    expect(off.encodeWith).toBeUndefined();
    expect(off.byId.size).toBe(1);
  });

  test('bad settings are refused with the variable, the line and what to write', () => {
    expect(() => codecKeysFromEnv({ LOOM_CODEC_KEY: 'v1:c2hvcnQ=' })).toThrow(/LOOM_CODEC_KEY holds a key that is not 32 bytes .*id 'v1'.*openssl rand -base64 32/);
    expect(() => codecKeysFromEnv({ LOOM_ENCRYPTION: 'on' })).toThrow(/LOOM_ENCRYPTION=on but no key is configured: set LOOM_CODEC_KEY or LOOM_CODEC_KEY_FILE/);
    expect(() => codecKeysFromEnv({ LOOM_ENCRYPTION: 'yes', LOOM_CODEC_KEY: k1 })).toThrow("LOOM_ENCRYPTION must be on or off, got 'yes'");
    expect(() => codecKeysFromEnv({ LOOM_CODEC_KEY_FILE: '/nonexistent/keys' })).toThrow(/LOOM_CODEC_KEY_FILE \/nonexistent\/keys cannot be read/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codec-keys-'));
    fs.writeFileSync(path.join(dir, 'k'), `${k1}\nnot-a-key\n`);
    expect(() => codecKeysFromEnv({ LOOM_CODEC_KEY_FILE: path.join(dir, 'k') })).toThrow(/line 2 holds a key that is not 32 bytes/);
    expect(() => keysFrom([[`a:${k1}`, 'x'], [`a:${k2}`, 'y']], undefined)).toThrow(/two different codec keys share the id 'a'/);
  });
});

describe('AES-256-GCM payload codec', () => {
  test('encodes with the newest key (id in metadata, no plaintext), decodes with any listed key, passes plaintext through', async () => {
    const before = new AesGcmPayloadCodec(keysFrom([[`v1:${k1}`, 'env']], 'on'));
    const after = new AesGcmPayloadCodec(keysFrom([[`v1:${k1}`, 'env'], [`v2:${k2}`, 'env']], 'on'));
    const plain = defaultPayloadConverter.toPayload({ prompt: SECRET });
    const [old] = await before.encode([plain]);
    const [fresh] = await after.encode([plain]);
    expect(text(old.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(old.metadata?.[KEY_ID_METADATA])).toBe('v1');
    expect(text(fresh.metadata?.[KEY_ID_METADATA])).toBe('v2');
    expect(Buffer.from(fresh.data!).includes(Buffer.from('SECRET-OTTER'))).toBe(false);
    // Rotation: the rotated process opens payloads sealed under the old key and the new one.
    for (const p of await after.decode([old, fresh])) expect(defaultPayloadConverter.fromPayload(p)).toEqual({ prompt: SECRET });
    // Histories recorded before encryption still replay: plaintext payloads pass through decode.
    expect(await after.decode([plain])).toEqual([plain]);
    await expect(before.decode([fresh])).rejects.toThrow("payload encrypted with key 'v2', which this process does not have (keys: v1): add it to LOOM_CODEC_KEY or LOOM_CODEC_KEY_FILE");
  });
});

describe('failure messages', () => {
  test('an encrypting data converter moves failure message and stack into the encoded attributes; off or no key keeps the default', async () => {
    const on = loomDataConverter({ LOOM_CODEC_KEY: `f1:${k1}` })!;
    expect(on.failureConverterPath).toBeDefined();
    // Loaded the way a worker loads it (require of the path).
    const loaded = loadDataConverter(on);
    const failure = loaded.failureConverter.errorToFailure(new Error(SECRET), loaded.payloadConverter);
    expect(failure.message).toBe('Encoded failure');
    expect(JSON.stringify(failure)).not.toContain('SECRET-OTTER');
    const [sealed] = await on.payloadCodecs![0].encode([failure.encodedAttributes!]);
    expect(Buffer.from(sealed.data!).includes(Buffer.from('SECRET-OTTER'))).toBe(false);
    const [opened] = await on.payloadCodecs![0].decode([sealed]);
    expect((loaded.failureConverter.failureToError({ ...failure, encodedAttributes: opened }, loaded.payloadConverter) as Error).message).toBe(SECRET);
    expect(loomDataConverter({ LOOM_CODEC_KEY: `f1:${k1}`, LOOM_ENCRYPTION: 'off' })!.failureConverterPath).toBeUndefined();
    expect(loomDataConverter({})).toBeUndefined();
  });
});

describe('the sealed store', () => {
  test('blobs and records are encrypted on disk under the plaintext address; plaintext written earlier still reads', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codec-store-'));
    const plainStore = new FileBlobStore(dir);
    const older = await plainStore.put('written before encryption was on');
    const keys = keysFrom([[`v1:${k1}`, 'env']], 'on');
    const sealed = openStoreAt({ kind: 'file', dir, display: dir }, keys);
    const ref = await sealed.putJson({ prompt: SECRET });
    expect(ref).toEqual(await new FileBlobStore(fs.mkdtempSync(path.join(os.tmpdir(), 'codec-store-'))).putJson({ prompt: SECRET }));
    await sealed.setRecord('session', 's-1', SECRET);
    expect(await sealed.getJson(ref)).toEqual({ prompt: SECRET });
    expect(await sealed.getRecord('session', 's-1')).toBe(SECRET);
    expect((await sealed.get(older)).toString()).toBe('written before encryption was on');
    for (const f of allFiles(dir)) expect({ f, hit: fs.readFileSync(f).includes(Buffer.from('SECRET-OTTER')) }).toEqual({ f, hit: false });
    const stranger = openStoreAt({ kind: 'file', dir, display: dir }, keysFrom([[`v9:${k2}`, 'env']], 'on'));
    await expect(stranger.get(ref)).rejects.toThrow(/is encrypted with key 'v1', which this process does not have/);
  });
});

describe('codec endpoint', () => {
  test('decodes for the Web UI origin (preflight answered), refuses CORS to other origins, reports a missing key', async () => {
    const keys = keysFrom([[`v1:${k1}`, 'env']], 'on');
    const srv = await startCodecServer({ keys, port: 0, origins: ['http://localhost:8233'] });
    try {
      const ui = { Origin: 'http://localhost:8233' };
      const pre = await fetch(`${srv.url}/decode`, { method: 'OPTIONS', headers: { ...ui, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-namespace' } });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
      expect(pre.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/);
      expect(pre.headers.get('access-control-allow-credentials')).toBe('true');

      const [sealed] = await new AesGcmPayloadCodec(keys).encode([defaultPayloadConverter.toPayload({ prompt: SECRET })]);
      const wire = { payloads: [{ metadata: Object.fromEntries(Object.entries(sealed.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])), data: Buffer.from(sealed.data!).toString('base64') }] };
      const res = await fetch(`${srv.url}/decode`, { method: 'POST', headers: { ...ui, 'Content-Type': 'application/json', 'X-Namespace': 'default' }, body: JSON.stringify(wire) });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
      expect(Buffer.from(body.payloads[0].metadata.encoding, 'base64').toString()).toBe('json/plain');
      expect(JSON.parse(Buffer.from(body.payloads[0].data, 'base64').toString())).toEqual({ prompt: SECRET });

      const enc = await fetch(`${srv.url}/encode`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ payloads: body.payloads }) });
      const encoded = (await enc.json()) as { payloads: Array<{ metadata: Record<string, string> }> };
      expect(Buffer.from(encoded.payloads[0].metadata[KEY_ID_METADATA], 'base64').toString()).toBe('v1');

      const other = await fetch(`${srv.url}/decode`, { method: 'POST', headers: { Origin: 'http://evil.example', 'Content-Type': 'application/json' }, body: JSON.stringify(wire) });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      await other.arrayBuffer();

      const bad = await fetch(`${srv.url}/decode`, { method: 'POST', body: '{"nope":1}' });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: string }).error).toMatch(/no "payloads" array/);
      const strange = { payloads: [{ ...wire.payloads[0], metadata: { ...wire.payloads[0].metadata, [KEY_ID_METADATA]: Buffer.from('v7').toString('base64') } }] };
      const missing = await fetch(`${srv.url}/decode`, { method: 'POST', body: JSON.stringify(strange) });
      expect(missing.status).toBe(422);
      expect(((await missing.json()) as { error: string }).error).toMatch(/key 'v7', which this process does not have/);
    } finally {
      await srv.close();
    }
  });
});
