/** The LOOM_* environment schema (src/platform/env.ts): values, blanks as unset, and the messages a bad value gets. */
import * as path from 'path';
import { envInt, LOOM_ENV, loomEnv, loomEnvProblems } from '../../src/platform/env';
import { defaultStoreDir } from '../../src/activities/blob-store';
import { internalHostsFromEnv } from '../../src/governance/network';
import { workspaceRoot } from '../../src/activities/file-tools';

describe('worker slots', () => {
  test.each([
    ['8', 8],
    [' 12 ', 12],
    ['', undefined],
    ['   ', undefined],
    [undefined, undefined],
  ])('%j is %s', (v, want) => expect(envInt('LOOM_MAX_CONCURRENT_ACTIVITIES', { LOOM_MAX_CONCURRENT_ACTIVITIES: v })).toBe(want));

  test.each(['0', '-3', 'ten', '1.5', '1e2', '0x10', '99999999999999999999'])('%j is refused with the name and the value', (v) => {
    expect(() => envInt('LOOM_MAX_CONCURRENT_WORKFLOW_TASKS', { LOOM_MAX_CONCURRENT_WORKFLOW_TASKS: v })).toThrow(
      `LOOM_MAX_CONCURRENT_WORKFLOW_TASKS must be a positive integer, got '${v}'`,
    );
  });
});

test('every problem at once, none when all is well', () => {
  expect(loomEnvProblems({ LOOM_MAX_CONCURRENT_ACTIVITIES: 'x', LOOM_MAX_CONCURRENT_WORKFLOW_TASKS: '0', LOOM_HOME: '/tmp/h' })).toEqual([
    "LOOM_MAX_CONCURRENT_ACTIVITIES must be a positive integer, got 'x'",
    "LOOM_MAX_CONCURRENT_WORKFLOW_TASKS must be a positive integer, got '0'",
  ]);
  expect(loomEnvProblems({})).toEqual([]);
  expect(Object.keys(LOOM_ENV).every((k) => k.startsWith('LOOM_'))).toBe(true);
});

test('host lists split on commas and whitespace', () => {
  expect(loomEnv('LOOM_INTERNAL_HOSTS', { LOOM_INTERNAL_HOSTS: ' ,a.internal,,b.internal\n*.svc ' })).toEqual(['a.internal', 'b.internal', '*.svc']);
  expect(internalHostsFromEnv({ LOOM_INTERNAL_HOSTS: '' })).toEqual([]);
});

describe('folders read through the schema at use time', () => {
  const saved = { home: process.env.LOOM_HOME, store: process.env.LOOM_STORE_DIR };
  afterEach(() => {
    for (const [k, v] of [['LOOM_HOME', saved.home], ['LOOM_STORE_DIR', saved.store]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  test('LOOM_STORE_DIR, else LOOM_HOME/store, else ./.loom/store; a blank value is unset', () => {
    process.env.LOOM_STORE_DIR = '/srv/store';
    expect(defaultStoreDir()).toBe(path.resolve('/srv/store'));
    process.env.LOOM_STORE_DIR = '';
    process.env.LOOM_HOME = '/srv/home';
    expect(defaultStoreDir()).toBe(path.resolve('/srv/home/store'));
    delete process.env.LOOM_HOME;
    expect(defaultStoreDir()).toBe(path.resolve('.loom/store'));
  });

  test('run workspaces live under LOOM_HOME', () => {
    process.env.LOOM_HOME = '/srv/home';
    expect(workspaceRoot({ workflowId: 'wf-1' })).toBe(path.join(path.resolve('/srv/home'), 'workspaces', 'wf-1'));
  });
});
