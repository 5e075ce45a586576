/** `loom validate [PATHS…] [--registry DIR] [--strict] [--json]`: exit 0 clean, 1 on errors (or warnings with --strict). */
import { parseKnownArgs, flagString, UsageError, type ParsedArgs } from '../args';
import { formatDiagnostic, validatePaths } from '../../compiler';

export async function run(argv: string[]): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseKnownArgs(argv, { boolean: ['strict', 'json'], value: ['registry'] });
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`loom validate: ${e.message}\nusage: loom validate [PATHS…] [--registry DIR] [--strict] [--json]\n`);
    return 2;
  }
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
}
