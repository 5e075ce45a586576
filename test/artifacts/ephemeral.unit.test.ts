/**
 * The pure part of ephemeral runs (src/runtime/artifacts.ts: keys, salt, pickup window) and the
 * store helpers of src/activities/ephemeral.ts on a real folder store and a real PostgreSQL server
 * (marking a run, deleting what it listed, collecting and sweeping kept outputs). The run itself:
 * test/artifacts/ephemeral.test.ts.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BlobStore, FileBlobStore, PostgresBlobStore, parseStoreUrl } from '../../src/store';
import { startTestPostgres, TestPostgres } from '../helpers/postgres';
import {
  EPHEMERAL_OUTPUT_KIND, EPHEMERAL_RUN_KIND, EPHEMERAL_WRITTEN_KIND, ephemeralRunKey, ephemeralSalt, ephemeralWrittenKey,
  isEphemeral, outputExpired, parseEphemeralWrittenKey, pickupHoursFromEnv,
} from '../../src/runtime/artifacts';
import { collectEphemeralOutput, deleteEphemeralWrites, ephemeralOutputRef, markEphemeralRun, sweepEphemeralOutputs } from '../../src/activities/ephemeral';

let pg: TestPostgres | undefined;
const opened: BlobStore[] = [];
let databases = 0;

afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  pg?.destroy();
});

const folder = async (): Promise<BlobStore> => new FileBlobStore(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-eph-unit-')));
/** A fresh database on a private PostgreSQL server (started on first use). */
const postgres = async (): Promise<BlobStore> => {
  pg ??= await startTestPostgres('loom-eph-unit');
  const loc = parseStoreUrl(await pg.urlFor(`eph${++databases}`));
  if (loc.kind !== 'postgres') throw new Error('not postgres');
  const s = new PostgresBlobStore(loc);
  opened.push(s);
  return s;
};

test('written keys name a blob or a record of one run, and parse back; another run\'s key does not', () => {
  const blob = ephemeralWrittenKey('run-1', { blob: 'sha256:ab' });
  const rec = ephemeralWrittenKey('run-1', { record: { kind: 'stream', key: 'run-1/x' } });
  expect(parseEphemeralWrittenKey('run-1', blob)).toEqual({ blob: 'sha256:ab' });
  expect(parseEphemeralWrittenKey('run-1', rec)).toEqual({ record: { kind: 'stream', key: 'run-1/x' } });
  // A run id that starts with another's is not listed under it (the key ends the id with '/').
  expect(blob.startsWith(ephemeralRunKey('run-'))).toBe(false);
  expect(parseEphemeralWrittenKey('run-2', blob)).toBeUndefined();
  expect(ephemeralRunKey('a/b')).toBe('a%2Fb/');
});

test('the salt differs per run; ephemeral is the retention class whether artifacts are enabled or not', () => {
  expect(ephemeralSalt('r1')).not.toBe(ephemeralSalt('r2'));
  const a = { enabled: false, save_input: false, save_output: false, save_intermediate: false, retention_class: 'ephemeral' as const };
  expect(isEphemeral(a)).toBe(true);
  expect(isEphemeral({ ...a, retention_class: 'standard' })).toBe(false);
});

test('pickup window: default 24 h, LOOM_EPHEMERAL_PICKUP_HOURS, refused when not a positive number', () => {
  expect(pickupHoursFromEnv({})).toBe(24);
  expect(pickupHoursFromEnv({ LOOM_EPHEMERAL_PICKUP_HOURS: '0.5' })).toBe(0.5);
  expect(() => pickupHoursFromEnv({ LOOM_EPHEMERAL_PICKUP_HOURS: 'soon' })).toThrow(/LOOM_EPHEMERAL_PICKUP_HOURS must be a positive number of hours, got 'soon'/);
  const now = new Date('2026-01-02T00:00:00Z');
  expect(outputExpired('2026-01-01T01:00:00Z', now, 24)).toBe(false);
  expect(outputExpired('2025-12-31T23:00:00Z', now, 24)).toBe(true);
  expect(outputExpired('garbage', now, 24)).toBe(true);
});

describe.each([['folder', folder], ['postgres', postgres]] as const)('%s store', (_name, store) => {
  test('a marked run\'s input is a salted loose message; deleting its writes removes it, the mark and the list', async () => {
    const s = await store();
    const ref = await markEphemeralRun(s, 'run-1', 'a', 'hello');
    const other = await markEphemeralRun(s, 'run-2', 'a', 'hello');
    expect(ref.hash).not.toBe(other.hash);
    expect((await s.getJson<{ msg: { content: string } }>(ref)).msg.content).toBe('hello');
    await s.setRecord('stream', 'run-1', 'x');
    await s.setRecord(EPHEMERAL_WRITTEN_KIND, ephemeralWrittenKey('run-1', { record: { kind: 'stream', key: 'run-1' } }), '');
    expect(await deleteEphemeralWrites(s, 'run-1')).toBe(2);
    expect(await s.has(ref)).toBe(false);
    expect(await s.getRecord('stream', 'run-1')).toBeNull();
    expect(await s.getRecord(EPHEMERAL_RUN_KIND, ephemeralRunKey('run-1'))).toBeNull();
    expect(await s.listRecords(EPHEMERAL_WRITTEN_KIND, ephemeralRunKey('run-1'))).toEqual([]);
    // The other run is untouched.
    expect(await s.has(other)).toBe(true);
    expect(await s.getRecord(EPHEMERAL_RUN_KIND, ephemeralRunKey('run-2'))).not.toBeNull();
  });

  test('a kept output is collected once; the sweep deletes only outputs past the pickup window', async () => {
    const s = await store();
    const now = new Date();
    await s.setRecord(EPHEMERAL_OUTPUT_KIND, ephemeralRunKey('fresh'), JSON.stringify({ agent_id: 'a', kept_at: now.toISOString(), output: { x: 1 } }));
    await s.setRecord(EPHEMERAL_OUTPUT_KIND, ephemeralRunKey('old'), JSON.stringify({ agent_id: 'a', kept_at: new Date(now.getTime() - 3 * 3_600_000).toISOString(), output: 2 }));
    expect(await sweepEphemeralOutputs(s, now, { LOOM_EPHEMERAL_PICKUP_HOURS: '2' })).toBe(1);
    expect(await collectEphemeralOutput(s, 'old')).toBeNull();
    expect((await collectEphemeralOutput(s, 'fresh'))?.output).toEqual({ x: 1 });
    expect(await collectEphemeralOutput(s, 'fresh')).toBeNull();
    expect(ephemeralOutputRef({ ephemeral_output: 'r', collect_with: 'loom result r' })).toBeDefined();
    expect(ephemeralOutputRef('plain output')).toBeUndefined();
  });
});
