/**
 * Whether a build output (dist/client.js, dist/workflow-bundle.js) is older than the sources it was
 * built from, in a checkout: then the CLI and the worker run the sources and say so, instead of a
 * build that silently hides an edit. A published package has no src/ folder, so its build is used.
 * bin/loom.js applies the same rule before TypeScript is loaded.
 */
import * as fs from 'fs';
import * as path from 'path';

/**
 * The newest modification time (ms) of the .ts files under `dir`, 0 when there are none. Every file
 * is stat'ed (an editor that saves in place changes only the file's mtime, not its folder's); paths
 * are joined with '/', as bin/loom.js does on every start, where path.join's first calls cost more
 * than the walk itself.
 */
export function newestSource(dir: string): number {
  let newest = 0;
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return newest;
}

/** `built` exists and src/ under `root` holds a .ts file changed after it was written. */
export function staleBuild(root: string, built: string): boolean {
  if (!fs.existsSync(built)) return false;
  return newestSource(path.join(root, 'src')) > fs.statSync(built).mtimeMs;
}
