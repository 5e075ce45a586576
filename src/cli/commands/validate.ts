/**
 * `loom validate [PATHS…] [--registry DIR] [--strict] [--json] [--diagram [--format mermaid|dot]]`: exit 0
 * clean, 1 on errors (or warnings with --strict). --diagram also prints every agent's topology (diagram.ts).
 */
import { defineCommand, flagString } from '../args';
import { formatDiagnostic, validatePaths } from '../../compiler';

export const run = defineCommand(
  'validate',
  {
    usage: 'loom validate [PATHS…] [--registry DIR] [--strict] [--json] [--diagram [--format mermaid|dot]]',
    options: { registry: { type: 'string' }, strict: { type: 'boolean' }, json: { type: 'boolean' }, diagram: { type: 'boolean' }, format: { type: 'string' } },
    positionals: { min: 0, max: Infinity },
  },
  async (args) => {
    // Only --registry overrides the registry a file sits in; LOOM_REGISTRY is a fallback (index.ts).
    const registry = flagString(args, 'registry');
    const paths = args.positionals.length ? args.positionals : [registry ?? process.env.LOOM_REGISTRY ?? process.cwd()];
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
