#!/usr/bin/env node
// `loom` entry: uses the compiled dist/ when present (production images); otherwise runs client.ts
// from source through ts-node (transpile only, with SWC when @swc/core is installed: ~3× faster
// start) so a checkout works after `npm install` without a build step. In a checkout whose src/
// holds a .ts file newer than dist/client.js, the sources run and stderr says so (the same rule as
// src/platform/stale-build.ts): a build never silently hides an edit. LOOM_FROM_SOURCE=1 always
// runs the sources.
const path = require('path');
const fs = require('fs');
const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist', 'client.js');

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

let useDist = fs.existsSync(dist) && !process.env.LOOM_FROM_SOURCE;
if (useDist && newestSource(root + '/src') > fs.statSync(dist).mtimeMs) {
  process.stderr.write('loom: dist/ is older than src/, so the sources run (`npm run build` refreshes dist/)\n');
  useDist = false;
}
if (useDist) {
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
