/**
 * The publishable package (@agentloom/core): what `npm pack` puts in the tarball and whether a
 * user's project can use it. The package checked is the tarball `npm pack` makes of this checkout
 * (its `prepack` build, in a copy of the sources: test/library/pack.ts, shared with the other files
 * that install it), unpacked into a temporary folder, never this checkout's dist/ (bin/loom.js would
 * pick it up). Checked: the `files` list keeps tests, fixtures and examples out; every `exports` target
 * and its declarations are in the tarball; a consumer project type-checks imports of the four
 * entries with Node16 resolution (the exports map, not paths) and loads them; a path outside the
 * exports map is refused; the packaged `loom`/`agentloom` bin runs its one-file build (dist/client.bundle.js).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { packAgentloom, ROOT } from './pack';

jest.setTimeout(600_000);
const pkgJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string; private?: boolean; bin: Record<string, string>; files: string[];
  exports: Record<string, string | { types: string; default: string }>;
};

interface Packed { name: string; size: number; unpackedSize: number; entryCount: number; files: { path: string }[] }
function packDryRun(dir: string): Packed {
  const out = execFileSync('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return (JSON.parse(out) as Packed[])[0];
}
const NOT_SHIPPED = /(^|\/)(test|tests|__tests__|fixtures|examples|bench|coverage)\/|\.test\.|\.map$|(^|\/)\.loom\//;

let tmp: string;
let pkg: string;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-package-'));
  // The package as npm packs it (prepack's build, the `files` list), unpacked as an install lays it out.
  const packed = await packAgentloom(tmp);
  execFileSync('tar', ['-xzf', packed.tarball, '-C', tmp]);
  pkg = path.join(tmp, 'pkg');
  fs.renameSync(path.join(tmp, 'package'), pkg);
  // The package's dependencies: this checkout's node_modules, as an install would provide them.
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'), 'dir');
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('package.json: scoped name, not private, both bins, an exports map with declarations', () => {
  expect(pkgJson.name).toBe('@agentloom/core');
  expect(pkgJson.private).toBeUndefined();
  expect(pkgJson.bin).toEqual({ agentloom: 'bin/loom.js', loom: 'bin/loom.js' });
  expect(Object.keys(pkgJson.exports).sort()).toEqual(['.', './package.json', './testing', './worker', './workflows']);
});

test('the tarball of this checkout holds no tests, fixtures or examples', () => {
  const files = packDryRun(ROOT).files.map((f) => f.path);
  expect(files).toContain('bin/loom.js');
  expect(files.filter((f) => NOT_SHIPPED.test(f))).toEqual([]);
});

test('the built package: every exports target is in the tarball; a consumer type-checks and loads the four entries; the bin runs', () => {
  const packed = packDryRun(pkg);
  const files = new Set(packed.files.map((f) => f.path));
  for (const target of Object.values(pkgJson.exports)) {
    for (const file of typeof target === 'string' ? [target] : [target.types, target.default]) expect(files).toContain(file.replace(/^\.\//, ''));
  }
  expect([...files].filter((f) => NOT_SHIPPED.test(f))).toEqual([]);
  process.stdout.write(`npm pack: ${packed.entryCount} files, ${(packed.size / 1024).toFixed(0)} KiB packed, ${(packed.unpackedSize / 1024).toFixed(0)} KiB unpacked\n`);

  const consumer = path.join(tmp, 'consumer');
  fs.mkdirSync(path.join(consumer, 'node_modules', '@agentloom'), { recursive: true });
  fs.symlinkSync(pkg, path.join(consumer, 'node_modules', '@agentloom', 'core'), 'dir');
  fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  fs.writeFileSync(path.join(consumer, 'index.ts'), [
    "import { compileBundle, loadTemporalConfig, statusQuery, AgentloomClientPlugin, type RunStatus } from '@agentloom/core';",
    "import { AgentloomPlugin, createAgentloomWorker } from '@agentloom/core/worker';",
    "import type { agfReactWorkflow } from '@agentloom/core/workflows';",
    "import { startFakeOpenAI, scriptedProvider } from '@agentloom/core/testing';",
    'const status: RunStatus | undefined = undefined;',
    'type React = typeof agfReactWorkflow;',
    'export const used = [compileBundle, loadTemporalConfig, statusQuery, AgentloomClientPlugin, AgentloomPlugin, createAgentloomWorker, startFakeOpenAI, scriptedProvider, status];',
    'export type { React };',
  ].join('\n'));
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--target', 'es2022', '--skipLibCheck', '--types', 'node', '--typeRoots', path.join(ROOT, 'node_modules', '@types'), 'index.ts'], { cwd: consumer, stdio: 'pipe' });

  const load = (code: string) => execFileSync(process.execPath, ['-e', code], { cwd: consumer, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  expect(load("const r = require('@agentloom/core'); const w = require('@agentloom/core/worker'); const wf = require('@agentloom/core/workflows'); const t = require('@agentloom/core/testing');" +
    "process.stdout.write([typeof r.compileBundle, typeof w.AgentloomPlugin, typeof wf.agfReactWorkflow, typeof t.startFakeOpenAI].join(' '))")).toBe('function function function function');
  // Only the exports map is public.
  expect(() => load("require('@agentloom/core/dist/src/cli/main')")).toThrow(/ERR_PACKAGE_PATH_NOT_EXPORTED|not defined by "exports"/);
  // The packaged CLI runs its one-file build, dist/client.bundle.js (the package has no client.ts to
  // fall back to): exit 0, the demo's one warning; the bundle is what it loaded, not dist/client.js.
  expect(files).toContain('dist/client.bundle.js');
  const loaded = path.join(tmp, 'loaded.json');
  const env = { PATH: process.env.PATH, HOME: tmp, LOOM_TEST_LOADED_FILE: loaded };
  const out = execFileSync(process.execPath, ['-r', path.join(ROOT, 'test', 'cli', 'loaded-modules.js'), path.join(pkg, 'bin', 'loom.js'), 'validate', path.join(ROOT, 'examples', 'demo')], { cwd: consumer, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  expect(out).toMatch(/warning AGL030/);
  const ran = (JSON.parse(fs.readFileSync(loaded, 'utf8')) as string[]).filter((f) => f.startsWith(path.join(pkg, 'dist')));
  expect(ran).toEqual([path.join(pkg, 'dist', 'client.bundle.js')]);
  // Its code cache went to the user's cache folder, and the next run gives the same answer.
  expect(fs.readdirSync(path.join(tmp, '.cache', 'agentloom', 'compile-cache'))).toEqual([expect.stringMatching(/-validate\.bin$/)]);
  expect(execFileSync(process.execPath, [path.join(pkg, 'bin', 'loom.js'), 'validate', path.join(ROOT, 'examples', 'demo')], { cwd: consumer, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })).toBe(out);
});
