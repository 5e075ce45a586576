/**
 * A build never silently hides an edit: in a checkout whose src/ has a .ts file newer than the build,
 * `loom` (bin/loom.js) runs the sources and says so, and staleBuild (src/platform/stale-build.ts, the
 * worker's rule for dist/workflow-bundle.js) says the bundle is stale. Without src/ (a published
 * package) or with a newer build, the build is used.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { staleBuild } from '../../src/platform/stale-build';
import { binCheckout, writeAt } from './bin-checkout';

let root: string;

function write(rel: string, text: string, mtimeS: number): void {
  writeAt(root, rel, text, mtimeS);
}

beforeEach(() => {
  root = binCheckout('loom-stale-');
  write('dist/client.js', "process.stdout.write('ran dist\\n');", 2_000_000);
  write('client.ts', "process.stdout.write('ran source\\n');", 1_000_000);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const loom = () => spawnSync(process.execPath, [path.join(root, 'bin/loom.js')], { encoding: 'utf8', env: { ...process.env, LOOM_FROM_SOURCE: '' } });

test('a source newer than dist/: the sources run and stderr says why', () => {
  write('src/a.ts', 'export const a = 1;', 3_000_000);
  const r = loom();
  expect(r.stdout).toBe('ran source\n');
  expect(r.stderr).toContain('dist/ is older than src/');
  expect(staleBuild(root, path.join(root, 'dist/client.js'))).toBe(true);
});

test('dist/ newer than every source, or no src/ at all (a published package): dist runs, nothing said', () => {
  expect(loom()).toMatchObject({ stdout: 'ran dist\n', stderr: '' });
  expect(staleBuild(root, path.join(root, 'dist/client.js'))).toBe(false);
  write('src/a.ts', 'export const a = 1;', 1_500_000);
  expect(loom()).toMatchObject({ stdout: 'ran dist\n', stderr: '' });
  expect(staleBuild(root, path.join(root, 'dist/client.js'))).toBe(false);
  expect(staleBuild(root, path.join(root, 'dist/missing.js'))).toBe(false);
});

test('an edit in a nested folder counts, and only .ts files count', () => {
  write('src/a.ts', 'export const a = 1;', 1_500_000);
  write('src/deep/er/notes.md', 'newer, but not a source', 3_000_000);
  expect(loom()).toMatchObject({ stdout: 'ran dist\n', stderr: '' });
  write('src/deep/er/b.ts', 'export const b = 1;', 3_000_000);
  const r = loom();
  expect(r.stdout).toBe('ran source\n');
  expect(r.stderr).toContain('dist/ is older than src/');
  expect(staleBuild(root, path.join(root, 'dist/client.js'))).toBe(true);
});
