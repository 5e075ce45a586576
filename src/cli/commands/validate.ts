/**
 * `loom validate [PATHS…] [--registry DIR] [--strict] [--json] [--diagram [--format mermaid|dot]]`: exit 0
 * clean, 1 on errors (or warnings with --strict). --diagram also prints every agent's topology (diagram.ts).
 * Without a path it validates one registry — --registry, else LOOM_REGISTRY, else the current folder —
 * and says which; a folder of registries is validated registry by registry only when named as a PATH.
 */
import * as fs from 'fs';
import * as path from 'path';
import { defineCommand, flagString } from '../args';

export const run = defineCommand(
  'validate',
  {
    usage: 'loom validate [PATHS…] [--registry DIR] [--strict] [--json] [--diagram [--format mermaid|dot]]',
    options: { registry: { type: 'string', value: 'DIR', help: 'the registry the files belong to (default: the registry of each path).' }, strict: { type: 'boolean', help: 'exit 1 on warnings too.' }, json: { type: 'boolean', help: 'print the diagnostics as JSON.' }, diagram: { type: 'boolean', help: 'also print the diagram of every agent when there is no error.' }, format: { type: 'string', value: 'mermaid|dot', help: 'with --diagram: the diagram language (default mermaid).' } },
    positionals: { min: 0, max: Infinity },
  },
  async (args) => {
    // Only --registry overrides the registry a file sits in; LOOM_REGISTRY is a fallback (index.ts).
    const registry = flagString(args, 'registry');
    const { formatDiagnostic, validatePaths } = await import('../../compiler');
    const { KINDS } = await import('../../compiler/registry');
    const paths = args.positionals.length ? args.positionals : [registry ?? process.env.LOOM_REGISTRY ?? process.cwd()];
    if (!args.positionals.length) {
      const dir = path.resolve(paths[0]);
      const folders = [...new Set(Object.values(KINDS).map((k) => k.dir))];
      if (!folders.some((f) => fs.existsSync(path.join(dir, f)))) {
        process.stderr.write(`loom validate: ${dir} is not a registry (it has none of ${folders.map((f) => `${f}/`).join(', ')}); run it in a registry folder, or give a path (\`loom validate DIR\` also validates every registry below DIR)\n`);
        return 1;
      }
      process.stderr.write(`validating the registry in ${dir}\n`);
    }
    const { diagramFormat, printRegistryDiagrams } = await import('./diagram');
    const format = diagramFormat(flagString(args, 'format'));
    if (args.flags.diagram === true) await (await import('../../mcp/discover')).pinMcpServers(registry ?? paths[0]);
    const diags = validatePaths(paths, { registry });
    const errors = diags.filter((d) => d.severity === 'error').length;
    const warnings = diags.length - errors;
    if (args.flags.json === true) process.stdout.write(JSON.stringify(diags, null, 2) + '\n');
    else {
      for (const d of diags) process.stdout.write(formatDiagnostic(d) + '\n');
      process.stderr.write(`${errors} error(s), ${warnings} warning(s)\n`);
    }
    if (args.flags.diagram === true && errors === 0) await printRegistryDiagrams(registry ?? paths[0], format);
    return errors > 0 || (args.flags.strict === true && warnings > 0) ? 1 : 0;
  },
);
