/** `loom validate [PATHS…] [--registry DIR] [--strict] [--json]`: exit 0 clean, 1 on errors (or warnings with --strict). */
import { defineCommand, flagString } from '../args';
import { formatDiagnostic, validatePaths } from '../../compiler';

export const run = defineCommand(
  'validate',
  {
    usage: 'loom validate [PATHS…] [--registry DIR] [--strict] [--json]',
    options: { registry: { type: 'string' }, strict: { type: 'boolean' }, json: { type: 'boolean' } },
    positionals: { min: 0, max: Infinity },
  },
  async (args) => {
    // Only --registry overrides the registry a file sits in; LOOM_REGISTRY is a fallback (index.ts).
    const registry = flagString(args, 'registry');
    const paths = args.positionals.length ? args.positionals : [registry ?? process.env.LOOM_REGISTRY ?? process.cwd()];
    const diags = validatePaths(paths, { registry });
    const errors = diags.filter((d) => d.severity === 'error').length;
    const warnings = diags.length - errors;
    if (args.flags.json === true) process.stdout.write(JSON.stringify(diags, null, 2) + '\n');
    else {
      for (const d of diags) process.stdout.write(formatDiagnostic(d) + '\n');
      process.stderr.write(`${errors} error(s), ${warnings} warning(s)\n`);
    }
    return errors > 0 || (args.flags.strict === true && warnings > 0) ? 1 : 0;
  },
);
