/** `loom version` (also `loom --version`, `loom -V`): print the version of the agentloom package. */
import * as fs from 'fs';
import * as path from 'path';
import { defineCommand } from '../args';

/** This package's names: the published one and the name of a checkout from before it was published. */
const NAMES = new Set(['@agentloom/core', 'agentloom']);

/** The version in the package.json of Agentloom (@agentloom/core), found upwards from this file (source or dist/). */
export function packageVersion(from = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name && NAMES.has(pkg.name) && pkg.version) return pkg.version;
    }
    if (path.dirname(dir) === dir) throw new Error(`no package.json of @agentloom/core above ${from}`);
  }
}

export const run = defineCommand(
  'version',
  { usage: 'loom version | loom --version | loom -V', options: {}, positionals: { min: 0, max: 0 } },
  async () => {
    process.stdout.write(`loom ${packageVersion()}\n`);
    return 0;
  },
);
