/** Minimal argv parsing shared by the `loom` commands: `--flag`, `--key value`, `--key=value`, positionals. */
import { editDistance } from '../shared/edit-distance';
export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | true>;
}

export function parseArgs(argv: string[], booleanFlags: string[] = []): ParsedArgs {
  const positionals: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) { flags[a.slice(2, eq)] = a.slice(eq + 1); continue; }
      const key = a.slice(2);
      const next = argv[i + 1];
      if (!booleanFlags.includes(key) && next !== undefined && !next.startsWith('--')) { flags[key] = next; i++; }
      else flags[key] = true;
    } else positionals.push(a);
  }
  return { positionals, flags };
}

export function flagString(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags[name];
  return typeof v === 'string' ? v : undefined;
}

/** The registry folder: --registry, else LOOM_REGISTRY, else the current folder. */
export function registryDir(args: ParsedArgs): string {
  return flagString(args, 'registry') ?? process.env.LOOM_REGISTRY ?? process.cwd();
}

export class UsageError extends Error {}

/** Allowed options of a command for `parseKnownArgs`: boolean flags and flags taking a value. */
export interface FlagSpec { boolean: string[]; value: string[] }


/**
 * Opt-in strict variant of `parseArgs` (the default parser stays permissive for the other
 * commands): an option not in `spec` throws UsageError("unknown option --stict (did you mean
 * --strict?)") before it can swallow the next argument; a boolean flag never takes a value, a
 * value flag needs one.
 */
export function parseKnownArgs(argv: string[], spec: FlagSpec): ParsedArgs {
  const known = [...spec.boolean, ...spec.value];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    const key = eq > 0 ? a.slice(2, eq) : a.slice(2);
    if (!known.includes(key)) {
      const near = known.map((k) => ({ k, d: editDistance(key, k) })).sort((x, y) => x.d - y.d)[0];
      const hint = near && near.d <= 2 ? ` (did you mean --${near.k}?)` : known.length ? ` (known options: ${known.map((k) => `--${k}`).join(', ')})` : '';
      throw new UsageError(`unknown option --${key}${hint}`);
    }
    if (spec.boolean.includes(key) && eq > 0) throw new UsageError(`option --${key} takes no value`);
    if (spec.value.includes(key) && eq < 0) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`option --${key} needs a value (--${key} VALUE)`);
      i++;
    }
  }
  return parseArgs(argv, spec.boolean);
}
