/**
 * The production image installs `dependencies` only (`npm ci --omit=dev`): every package that
 * shipped code (src/**, worker.ts, client.ts) imports must be a runtime dependency, and test-only
 * packages (e.g. @temporalio/testing) stay in devDependencies.
 */
import * as fs from 'fs';
import { builtinModules } from 'module';
import * as path from 'path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? sourceFiles(p) : /\.ts$/.test(d.name) ? [p] : [];
  });
}

/** Bare package names imported (statically, dynamically or by require) by one file, read by TypeScript itself. */
function importedPackages(text: string): string[] {
  const out = new Set<string>();
  for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
    if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:')) continue;
    const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    if (!builtinModules.includes(name)) out.add(name);
  }
  return [...out];
}

test('the import scanner sees every import form', () => {
  expect(importedPackages("import a from 'x';\nimport 'y/z';\nconst b = require('@s/p/deep');\nawait import('fs');\nimport * as c from './local';\nconst s = Array.from(', ');").sort()).toEqual(['@s/p', 'x', 'y']);
});

test('shipped code imports runtime dependencies only', () => {
  const files = [...sourceFiles(path.join(ROOT, 'src')), path.join(ROOT, 'worker.ts'), path.join(ROOT, 'client.ts')].filter((f) => fs.existsSync(f));
  expect(files.length).toBeGreaterThan(20);
  const wrong: string[] = [];
  for (const f of files) {
    for (const name of importedPackages(fs.readFileSync(f, 'utf8'))) {
      if (!pkg.dependencies[name]) wrong.push(`${path.relative(ROOT, f)} imports ${name}${pkg.devDependencies[name] ? ' (a devDependency)' : ' (not in package.json)'}`);
    }
  }
  expect(wrong).toEqual([]);
});

test('@temporalio/testing is a devDependency', () => {
  expect(pkg.dependencies['@temporalio/testing']).toBeUndefined();
  expect(pkg.devDependencies['@temporalio/testing']).toBeDefined();
});
