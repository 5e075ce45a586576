#!/usr/bin/env node
// `loom` entry: runs client.ts through ts-node (transpile-only) so a checkout works after `npm install`
// without a build step; uses the compiled dist/ when present (production images).
const path = require('path');
const fs = require('fs');
const dist = path.join(__dirname, '..', 'dist', 'client.js');
if (fs.existsSync(dist) && !process.env.LOOM_FROM_SOURCE) {
  require(dist);
} else {
  require('ts-node').register({ transpileOnly: true, project: path.join(__dirname, '..', 'tsconfig.json') });
  require(path.join(__dirname, '..', 'client.ts'));
}
