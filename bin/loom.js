#!/usr/bin/env node
// `loom` entry: uses the compiled dist/ when present (production images); otherwise runs client.ts
// from source through ts-node (transpile only, with SWC when @swc/core is installed: ~3× faster
// start) so a checkout works after `npm install` without a build step.
const path = require('path');
const fs = require('fs');
const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist', 'client.js');
if (fs.existsSync(dist) && !process.env.LOOM_FROM_SOURCE) {
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
