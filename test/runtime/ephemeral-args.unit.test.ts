/**
 * An ephemeral run's tool call arguments by reference (decision 283): what is stored, what the
 * workflow keeps beside the reference, and the round trip through a real folder store.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ARGS_REF_KEY, argsWithRef, splitArgs, stateShape, storedArgsRef } from '../../src/runtime/ephemeral-args';
import { resolveArgs, storeCallArgs } from '../../src/activities/ephemeral';
import { readState, written } from '../../src/runtime/execution-loop';
import type { JsonObject } from '../../src/compiled/types';
import { FileBlobStore } from '../../src/store/file';
import { withStoredArgs, ARGS_GONE } from '../../src/operator/stored-args';

describe('splitArgs / storedArgsRef', () => {
  test('reserved keys stay beside the reference, the rest is stored', () => {
    const { stored, kept } = splitArgs({ sku: 'A-1', qty: 2, _dependsOn: 'c1', _outputPath: '$.state.x' });
    expect(stored).toEqual({ sku: 'A-1', qty: 2 });
    expect(kept).toEqual({ _dependsOn: 'c1', _outputPath: '$.state.x' });
  });

  test('an invalid-arguments marker keeps neither the raw text nor the parser message', () => {
    const { kept } = splitArgs({ __agentloom_invalid_arguments: { raw: '{"secret": ', error: 'Unexpected end of JSON input at "secret"' } });
    expect(JSON.stringify(kept)).not.toContain('secret');
    expect(kept).toEqual({ __agentloom_invalid_arguments: { error: 'not valid JSON (the text is in the store)' } });
  });

  test('a reference is recognised only in its own shape', () => {
    expect(storedArgsRef(argsWithRef({ hash: 'sha256:ab' }, { _dependsOn: 'c1' }))).toEqual({ hash: 'sha256:ab' });
    expect(storedArgsRef({ path: 'x' })).toBeUndefined();
    expect(storedArgsRef({ [ARGS_REF_KEY]: 'sha256:ab' })).toBeUndefined();
    expect(storedArgsRef(undefined)).toBeUndefined();
  });
});

test('stateShape keeps the keys of objects and no value; written() and readState() answer as for the value', () => {
  const value = { order: { id: 'A-1', lines: [{ sku: 'x' }], total: 12 }, note: 'PHRASE' };
  const shape = stateShape(value);
  expect(shape).toEqual({ order: { id: null, lines: null, total: null }, note: null });
  expect(JSON.stringify(shape)).not.toContain('PHRASE');
  expect(stateShape('PHRASE')).toBeNull();
  const state = { r: value } as JsonObject;
  const shaped = { r: shape } as JsonObject;
  for (const p of [['r'], ['r', 'order'], ['r', 'order', 'id'], ['r', 'order', 'lines', '0'], ['r', 'note', 'x'], ['r', 'missing']]) {
    expect(written(shaped, p)).toBe(written(state, p));
    expect(readState(shaped, p) !== undefined).toBe(readState(state, p) !== undefined);
  }
});

describe('storeCallArgs / resolveArgs on a folder store', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-eph-args-'));
  const store = new FileBlobStore(dir);
  const prev = process.env.LOOM_STORE_DIR;
  beforeAll(() => {
    process.env.LOOM_STORE_DIR = dir;
  });
  afterAll(() => {
    if (prev === undefined) delete process.env.LOOM_STORE_DIR;
    else process.env.LOOM_STORE_DIR = prev;
  });

  test('the workflow sees a reference; activities and the CLI read the arguments (sensitive fields redacted for display)', async () => {
    const args = await storeCallArgs(store, 'salt-run-1', { card: '4111 1111', note: 'PHRASE', _dependsOn: 'c0' }, ['card']);
    expect(JSON.stringify(args)).not.toContain('PHRASE');
    expect(args._dependsOn).toBe('c0');
    expect(await resolveArgs(store, args)).toEqual({ card: '4111 1111', note: 'PHRASE' });
    expect(await resolveArgs(store, { plain: 1 })).toEqual({ plain: 1 });
    // Another run's identical arguments are another blob (salted).
    const other = await storeCallArgs(store, 'salt-run-2', { card: '4111 1111', note: 'PHRASE' });
    expect(storedArgsRef(other)).not.toEqual(storedArgsRef(args));
    const [shown] = await withStoredArgs([{ call_id: 'c1', arguments: args }]);
    expect(shown.arguments).toEqual({ card: '[redacted]', note: 'PHRASE' });
    await store.delete(storedArgsRef(args)!);
    await expect(resolveArgs(store, args)).rejects.toThrow(/no longer in the store: the ephemeral run that stored them has ended/);
    expect((await withStoredArgs([{ call_id: 'c1', arguments: args }]))[0].arguments).toEqual(ARGS_GONE);
  });
});
