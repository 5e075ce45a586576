/** One sha256 helper (src/compiled/canonical.ts) behind compile hashes, blob references and the write_file ledger. */
import { sha256 } from '../../src/compiled/canonical';
import { hashOf } from '../../src/activities/blob-store';

const ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'; // FIPS 180-2 test vector

test('sha256 of text, Buffer and Uint8Array agree with the standard vector', () => {
  expect(sha256('abc')).toBe(ABC);
  expect(sha256(Buffer.from('abc'))).toBe(ABC);
  expect(sha256(new Uint8Array([0x61, 0x62, 0x63]))).toBe(ABC);
  expect(sha256('é')).toBe(sha256(Buffer.from('é', 'utf8'))); // text is hashed as UTF-8
});

test('blob references are sha256: plus the same hex', () => {
  expect(hashOf('abc')).toBe(`sha256:${ABC}`);
  expect(hashOf(Buffer.from('abc'))).toBe(`sha256:${ABC}`);
});
