/**
 * bin/loom.js's choice of what runs, and the code cache of the bundle: the one-file build
 * (dist/client.bundle.js) runs when it is not older than src/, before dist/client.js, as require()
 * would run it (its __filename, __dirname and relative requires are dist/'s); a stale bundle falls
 * back to dist/client.js, then to the sources with the notice. The code cache: written at a command's
 * first run, one file per command, read (not written again) at the next run; made again for another
 * build or when V8 refuses it; a folder that cannot be written, or many commands at once, change
 * nothing a command prints.
 */
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { binCheckout, writeAt } from './bin-checkout';

let root: string;
let cacheDir: string;

function write(rel: string, text: string, mtimeS?: number): void {
  writeAt(root, rel, text, mtimeS);
}

/** A bundle that says it ran, where it runs from, and what its relative require and `module` are. */
const BUNDLE = [
  "const helper = require('./helper');",
  "process.stdout.write(`ran bundle ${helper} ${path()} ${typeof module.exports} ${process.argv.slice(2).join(' ')}\\n`);",
  'function path() { return require("path").relative(process.cwd(), __filename) + " " + require("path").relative(process.cwd(), __dirname); }',
].join('\n');

beforeEach(() => {
  root = binCheckout('loom-bin-');
  cacheDir = path.join(root, 'cache');
  write('client.ts', "process.stdout.write('ran source\\n');", 1_000_000);
  write('src/a.ts', 'export const a = 1;', 1_500_000);
  write('dist/client.js', "process.stdout.write('ran dist\\n');", 2_000_000);
  write('dist/helper.js', "module.exports = 'helper';", 2_000_000);
  write('dist/client.bundle.js', BUNDLE, 2_000_000);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const userEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: root, LANG: 'C.UTF-8', LOOM_COMPILE_CACHE_DIR: cacheDir, ...extra });
const loom = (args: string[] = ['version'], extra: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [path.join(root, 'bin/loom.js'), ...args], { cwd: root, encoding: 'utf8', env: userEnv(extra) });
const cacheFiles = () => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).sort() : []);
const inode = (name: string) => fs.statSync(path.join(cacheDir, name)).ino;

describe('what runs', () => {
  test('the bundle, when not older than src/: before dist/client.js, with dist/ as its folder', () => {
    expect(loom(['list', '--limit', '1'])).toMatchObject({ stdout: 'ran bundle helper dist/client.bundle.js dist object list --limit 1\n', stderr: '', status: 0 });
  });

  test('a bundle older than a source: dist/client.js when it is newer, silently; else the sources, with the notice', () => {
    write('dist/client.bundle.js', BUNDLE, 1_200_000);
    expect(loom()).toMatchObject({ stdout: 'ran dist\n', stderr: '', status: 0 });
    write('dist/client.js', "process.stdout.write('ran dist\\n');", 1_200_000);
    const r = loom();
    expect(r.stdout).toBe('ran source\n');
    expect(r.stderr).toContain('dist/ is older than src/');
  });

  test('no src/ (a published package): the bundle runs whatever its time; LOOM_FROM_SOURCE=1 runs the sources', () => {
    fs.rmSync(path.join(root, 'src'), { recursive: true });
    write('dist/client.bundle.js', BUNDLE, 10);
    expect(loom().stdout).toMatch(/^ran bundle /);
    expect(loom([], { LOOM_FROM_SOURCE: '1' }).stdout).toBe('ran source\n');
  });
});

describe('the code cache', () => {
  test("a command's first run writes its cache; the next run reads it and writes nothing; each command has its own", () => {
    expect(loom(['status', 'x']).stdout).toMatch(/^ran bundle /);
    const [file] = cacheFiles();
    expect(cacheFiles()).toEqual([expect.stringMatching(/^[0-9a-f]{8}-status\.bin$/)]);
    const bytes = fs.readFileSync(path.join(cacheDir, file));
    expect(bytes.toString('latin1', 0, 40)).toMatch(/^loom-code-cache 1 \d+ /);
    const ino = inode(file);
    expect(loom(['status', 'y']).stdout).toBe('ran bundle helper dist/client.bundle.js dist object status y\n');
    expect(inode(file)).toBe(ino);
    loom(['--version']);
    expect(cacheFiles()).toEqual([expect.stringMatching(/-status\.bin$/), expect.stringMatching(/-version\.bin$/)]);
  });

  test('another build of the bundle (or a cache V8 refuses) is not used: the command runs and its cache is written again', () => {
    loom(['list']);
    const [file] = cacheFiles();
    // The same length, other code: only the build's line in the cache tells them apart.
    write('dist/client.bundle.js', BUNDLE.replace('ran bundle', 'new bundle'), 3_000_000);
    const before = inode(file);
    expect(loom(['list'])).toMatchObject({ stdout: 'new bundle helper dist/client.bundle.js dist object list\n', stderr: '', status: 0 });
    expect(inode(file)).not.toBe(before);
    // The right header over bytes V8 cannot use.
    const bytes = fs.readFileSync(path.join(cacheDir, file));
    const header = bytes.subarray(0, bytes.indexOf(10) + 1);
    fs.writeFileSync(path.join(cacheDir, file), Buffer.concat([header, Buffer.alloc(4096, 7)]));
    const corrupt = inode(file);
    expect(loom(['list'])).toMatchObject({ stdout: 'new bundle helper dist/client.bundle.js dist object list\n', stderr: '', status: 0 });
    expect(inode(file)).not.toBe(corrupt);
    expect(fs.statSync(path.join(cacheDir, file)).size).toBeGreaterThan(header.length + 100);
  });

  test('a cache folder that cannot be made or written: the command runs as without one, and nothing is written', () => {
    write('not-a-folder', 'a file');
    const r = loom(['list'], { LOOM_COMPILE_CACHE_DIR: path.join(root, 'not-a-folder', 'cache') });
    expect(r).toMatchObject({ stdout: 'ran bundle helper dist/client.bundle.js dist object list\n', stderr: '', status: 0 });
    expect(fs.readFileSync(path.join(root, 'not-a-folder'), 'utf8')).toBe('a file');
    expect(loom(['list'], { LOOM_COMPILE_CACHE: '0' }).stdout).toMatch(/^ran bundle /);
    expect(cacheFiles()).toEqual([]);
  });

  test('commands started at once: each prints its answer; one whole cache file is left, no temporary one', async () => {
    const runs = Array.from({ length: 6 }, (_, i) => new Promise<{ out: string; code: number | null }>((resolve) => {
      const child = spawn(process.execPath, [path.join(root, 'bin/loom.js'), 'inbox', String(i)], { cwd: root, env: userEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
      child.once('close', (code) => resolve({ out, code }));
    }));
    const results = await Promise.all(runs);
    expect(results).toEqual(results.map((_, i) => ({ out: `ran bundle helper dist/client.bundle.js dist object inbox ${i}\n`, code: 0 })));
    expect(cacheFiles()).toEqual([expect.stringMatching(/^[0-9a-f]{8}-inbox\.bin$/)]);
    // The file left is one a later run takes as its own (not written again).
    const ino = inode(cacheFiles()[0]);
    expect(loom(['inbox']).stdout).toMatch(/^ran bundle /);
    expect(inode(cacheFiles()[0])).toBe(ino);
  });
});
