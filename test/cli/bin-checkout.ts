/**
 * A throwaway checkout around a copy of bin/loom.js (its node_modules a link to this one's), for the
 * tests of which build `loom` runs: test/cli/stale-dist.unit.test.ts, test/cli/bin-bundle.unit.test.ts.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const REPO = path.join(__dirname, '../..');

/** A new folder under the system's temp folder holding bin/loom.js, node_modules and a tsconfig.json. */
export function binCheckout(prefix: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.mkdirSync(path.join(root, 'bin'));
  fs.copyFileSync(path.join(REPO, 'bin/loom.js'), path.join(root, 'bin/loom.js'));
  fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'));
  fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', target: 'es2022' } }));
  return root;
}

/** Writes `text` to `rel` under `root` (folders made), with the mtime `mtimeS` (seconds) when given. */
export function writeAt(root: string, rel: string, text: string, mtimeS?: number): void {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  if (mtimeS !== undefined) fs.utimesSync(p, mtimeS, mtimeS);
}
