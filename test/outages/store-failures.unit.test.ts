/** Store failures classified like a provider's, and the in-activity wait (waitOut) outside Temporal. */
import { classifyStoreFailure, toApplicationFailure } from '../../src/activities/errors';
import { waitOut } from '../../src/activities/outages';
import { BlobNotFoundError, StoreCorruptError, StoreRefusedError, StoreUnavailableError, storeFailure } from '../../src/store';
import { parseStoredJson } from '../../src/store/types';

const where = 'postgres://loom@db:5432/loomstore';

describe('classifyStoreFailure', () => {
  test('an unreachable store is retryable with its own type; a missing blob, a corrupt record, refused access are not', () => {
    expect(classifyStoreFailure(new StoreUnavailableError(where, 'connect ECONNREFUSED'))).toEqual({ retryable: true, type: 'StoreUnavailable', message: `the store ${where} is unreachable: connect ECONNREFUSED` });
    const notFound = classifyStoreFailure(new BlobNotFoundError('sha256:ab', where));
    expect(notFound).toMatchObject({ retryable: false, type: 'BlobNotFound' });
    expect(notFound?.message).toMatch(/not retried: retrying cannot fix it/);
    expect(classifyStoreFailure(new StoreCorruptError('blob sha256:ab', where, 'Unexpected token'))).toMatchObject({ retryable: false, type: 'StoreCorrupt' });
    expect(classifyStoreFailure(new StoreRefusedError('/srv/store', 'EACCES'))).toMatchObject({ retryable: false, type: 'StoreRefused' });
    expect(toApplicationFailure(classifyStoreFailure(new StoreCorruptError('x', where, 'y'))!).nonRetryable).toBe(true);
  });
  test('an error that is not the store\'s is left to other rules', () => {
    expect(classifyStoreFailure(new Error('boom'))).toBeUndefined();
    expect(classifyStoreFailure(undefined)).toBeUndefined();
  });
  test('a folder store\'s I/O errors: down or busy is StoreUnavailable, permissions StoreRefused, the rest unchanged', () => {
    const errno = (code: string) => Object.assign(new Error(`${code}: something`), { code });
    for (const code of ['EIO', 'ESTALE', 'ETIMEDOUT', 'ENOSPC', 'ENOTCONN']) expect((storeFailure(errno(code), '/mnt/store') as Error).name).toBe('StoreUnavailable');
    for (const code of ['EACCES', 'EPERM', 'EROFS']) expect((storeFailure(errno(code), '/mnt/store') as Error).name).toBe('StoreRefused');
    const other = errno('EISDIR');
    expect(storeFailure(other, '/mnt/store')).toBe(other);
  });
  test('a stored blob that is not JSON is StoreCorrupt naming the blob and the store', () => {
    expect(() => parseStoredJson(Buffer.from('{nope'), 'sha256:ab', where)).toThrow(StoreCorruptError);
    expect(() => parseStoredJson(Buffer.from('{nope'), 'sha256:ab', where)).toThrow(`blob sha256:ab in the store ${where} is corrupt`);
    expect(parseStoredJson(Buffer.from('{"a":1}'), 'sha256:ab', where)).toEqual({ a: 1 });
  });
});

describe('waitOut (outside an activity)', () => {
  test('an outage is waited out, then the step succeeds once', async () => {
    let calls = 0;
    const v = await waitOut(`the store ${where}`, async () => {
      calls += 1;
      if (calls === 1) throw new StoreUnavailableError(where, 'connect ECONNREFUSED');
      return 'stored';
    }, { boundMs: 60_000 });
    expect({ v, calls }).toEqual({ v: 'stored', calls: 2 });
  });
  test('a failure that is not an outage is not retried', async () => {
    let calls = 0;
    await expect(waitOut('the store', async () => { calls += 1; throw new StoreCorruptError('x', where, 'y'); }, { boundMs: 60_000 })).rejects.toThrow(StoreCorruptError);
    expect(calls).toBe(1);
  });
  test('past its bound the wait hands the outage back (the activity is then retried or given up by the interceptor)', async () => {
    let calls = 0;
    await expect(waitOut('the store', async () => { calls += 1; throw new StoreUnavailableError(where, 'down'); }, { boundMs: 0 })).rejects.toThrow(/is unreachable: down/);
    expect(calls).toBe(1);
  });
});
