/** Minimal argv parsing shared by the `loom` commands: `--flag`, `--key value`, `--key=value`, positionals. */
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
