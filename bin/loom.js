#!/usr/bin/env node
// `loom` entry: runs the CLI's one-file build dist/client.bundle.js when present (scripts/build-cli-bundle.ts:
// client.ts with our modules and the Temporal client in one file, about a third faster to start than the
// files it holds), else the compiled dist/client.js; otherwise client.ts from source through ts-node
// (transpile only, with SWC when @swc/core is installed: ~3× faster start) so a checkout works after
// `npm install` without a build step. In a checkout whose src/ holds a .ts file newer than a build, that
// build is passed over, and when it is dist/client.js the sources run and stderr says so (the same rule
// as src/platform/stale-build.ts): a build never silently hides an edit. LOOM_FROM_SOURCE=1 always runs
// the sources.
//
// The bundle runs with a V8 code cache: after a command's first run, the code V8 compiled for it (the
// functions that run, not just the top level) is written to the user's cache folder, one file per
// command and per bundle, and the next run of that command reads it instead of parsing and compiling
// again. A cache that is missing, stale or refused by V8 is made again at exit; a folder that cannot
// be written means no cache, silently. LOOM_COMPILE_CACHE=0 turns it off; LOOM_COMPILE_CACHE_DIR sets
// the folder (default $XDG_CACHE_HOME/agentloom/compile-cache, else ~/.cache/agentloom/compile-cache).
const path = require('path');
const fs = require('fs');
const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist', 'client.js');
const bundle = path.join(root, 'dist', 'client.bundle.js');

// The newest mtime of the .ts files under `dir` (0 without any). Every file is stat'ed: an editor
// that saves in place changes only the file's mtime, not its folder's. Paths are joined with '/'
// (which fs takes on every platform), not path.join, whose first calls cost more than the walk.
function newestSource(dir) {
  let newest = 0;
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0; // no src/ (a published package)
  }
  for (const e of entries) {
    const p = dir + '/' + e.name;
    if (e.isDirectory()) {
      const n = newestSource(p);
      if (n > newest) newest = n;
    } else if (e.name.endsWith('.ts')) {
      const m = fs.statSync(p).mtimeMs;
      if (m > newest) newest = m;
    }
  }
  return newest;
}

let newest;
/** `file`'s stats when it exists and no source under src/ is newer (a published package has no src/), else undefined. */
function freshBuild(file) {
  let st;
  try {
    st = fs.statSync(file);
  } catch {
    return undefined;
  }
  if (newest === undefined) newest = newestSource(root + '/src');
  return newest > st.mtimeMs ? undefined : st;
}

/** A short hash of a string (FNV-1a): the cache file of one bundle, without loading crypto. */
function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/**
 * The code cache of this command of `file`: the cached data to give V8 (undefined when there is none
 * for this very build and Node) and save(script), which writes the script's code as compiled so far.
 * The file starts with a line naming the build (size, mtime) and Node; another build's or Node's
 * cache is never given to V8 (V8 itself checks only the source's length). The write goes to a
 * temporary file renamed over the cache: concurrent commands each read a whole file, old or new.
 */
function compileCache(file, st) {
  const none = { data: undefined, save() {} };
  if (process.env.LOOM_COMPILE_CACHE === '0') return none;
  const os = require('os');
  let dir = process.env.LOOM_COMPILE_CACHE_DIR;
  if (!dir) {
    const home = process.env.XDG_CACHE_HOME || (os.homedir() && os.homedir() + '/.cache');
    if (!home) return none;
    dir = home + '/agentloom/compile-cache';
  }
  const arg = (process.argv[2] || '').replace(/^-+/, '');
  const command = /^[a-z][a-z-]{0,31}$/.test(arg) ? arg : 'other';
  const target = `${dir}/${hash(file)}-${command}.bin`;
  const header = `loom-code-cache 1 ${st.size} ${st.mtimeMs} ${process.version} ${process.arch}\n`;
  let data;
  try {
    const buf = fs.readFileSync(target);
    if (buf.length > header.length && buf.toString('latin1', 0, header.length) === header) data = buf.subarray(header.length);
  } catch {
    // no cache yet, or the folder cannot be read
  }
  return {
    data,
    save(script) {
      const tmp = `${target}.${process.pid}.tmp`;
      try {
        fs.mkdirSync(dir, { recursive: true });
        fs.accessSync(dir, fs.constants.W_OK);
        const code = script.createCachedData();
        const fd = fs.openSync(tmp, 'w');
        try {
          fs.writeSync(fd, header, null, 'latin1');
          fs.writeSync(fd, code);
        } finally {
          fs.closeSync(fd);
        }
        fs.renameSync(tmp, target);
      } catch {
        try { fs.unlinkSync(tmp); } catch { /* never written */ }
      }
    },
  };
}

/** Runs the bundle as require() would, compiled with its code cache (and saving one at exit when it had none). */
function runBundle(file, st) {
  const Module = require('module');
  const vm = require('vm');
  const cache = compileCache(file, st);
  const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), { filename: file, cachedData: cache.data });
  if (cache.data === undefined || script.cachedDataRejected) process.once('exit', () => cache.save(script));
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  Module._cache[file] = mod;
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  mod.loaded = true;
}

const fromSource = Boolean(process.env.LOOM_FROM_SOURCE);
const bundleStat = fromSource ? undefined : freshBuild(bundle);
let useDist = !fromSource && !bundleStat && fs.existsSync(dist);
if (useDist && !freshBuild(dist)) {
  process.stderr.write('loom: dist/ is older than src/, so the sources run (`npm run build` refreshes dist/)\n');
  useDist = false;
}
if (bundleStat) {
  runBundle(bundle, bundleStat);
} else if (useDist) {
  require(dist);
} else {
  let swc = false;
  try {
    require.resolve('@swc/core', { paths: [root] });
    swc = true;
  } catch {
    // not installed (production install without devDependencies): TypeScript's transpiler
  }
  require('ts-node').register({ transpileOnly: true, swc, project: path.join(root, 'tsconfig.json') });
  require(path.join(root, 'client.ts'));
}
