/**
 * Argument parsing for every `loom` command: Node's `util.parseArgs` in strict mode over a
 * per-command spec. An unknown option, a boolean given a value, a value option without one or a
 * wrong number of positionals is a UsageError (exit 2) with a suggestion, never silently ignored.
 */
import { parseArgs as nodeParseArgs } from 'util';
import { editDistance } from '../shared/edit-distance';
import type { ConnectionOverrides } from '../connection/config';

export type OptionType = 'string' | 'boolean';

/** What a command accepts: its options, how many positionals, and the usage line shown on errors. */
export interface CommandSpec {
  /** e.g. `loom approve ID CALL_ID [--args JSON]`; the required positionals are named in `positionals.names`. */
  usage: string;
  options: Record<string, { type: OptionType; short?: string }>;
  positionals: { min: number; max: number; names?: string[] };
}

export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | true>;
}

export class UsageError extends Error {}

/** The known option closest to `name` (edit distance ≤ 2, or a prefix of it), if any. */
function nearest(name: string, known: string[]): string | undefined {
  const ranked = known
    .map((k) => ({ k, d: k.startsWith(name) || name.startsWith(k) ? Math.min(1, editDistance(name, k)) : editDistance(name, k) }))
    .sort((a, b) => a.d - b.d);
  return ranked[0] && ranked[0].d <= 2 ? ranked[0].k : undefined;
}

function unknownOption(raw: string, known: string[]): UsageError {
  const name = raw.replace(/^-+/, '').replace(/=.*$/, '');
  const near = nearest(name, known);
  const hint = near
    ? `; did you mean --${near}?`
    : known.length ? `; known options: ${known.map((k) => `--${k}`).join(', ')}` : '; this command takes no options';
  return new UsageError(`unknown option ${raw.replace(/=.*$/, '')}${hint}`);
}

/**
 * The `temporal` CLI's connection options, accepted by every command beside its own: they override
 * TEMPORAL_* variables and the config file's profile (src/connection/config.ts). They are taken out
 * of a command's flags and kept for `connect()` (cliConnectionOverrides).
 */
export const CONNECTION_OPTIONS: Record<string, { type: OptionType; key: keyof ConnectionOverrides }> = {
  address: { type: 'string', key: 'address' },
  namespace: { type: 'string', key: 'namespace' },
  'api-key': { type: 'string', key: 'apiKey' },
  tls: { type: 'boolean', key: 'tls' },
  'tls-cert-path': { type: 'string', key: 'tlsCertPath' },
  'tls-key-path': { type: 'string', key: 'tlsKeyPath' },
  'tls-ca-path': { type: 'string', key: 'tlsCaPath' },
  'tls-server-name': { type: 'string', key: 'tlsServerName' },
  profile: { type: 'string', key: 'profile' },
};

let connectionOverrides: ConnectionOverrides = {};

/** The connection options of the command line parsed last (one command per process). */
export function cliConnectionOverrides(): ConnectionOverrides {
  return connectionOverrides;
}

/** Parse `argv` against `spec` (throws UsageError). `--help`/`-h` and the connection options are accepted by every command. */
export function parseCommand(argv: string[], spec: CommandSpec): ParsedArgs {
  const connection = Object.fromEntries(Object.entries(CONNECTION_OPTIONS).map(([k, o]) => [k, { type: o.type }]));
  const options = { ...connection, ...spec.options, help: { type: 'boolean' as const, short: 'h' } };
  const known = Object.keys(spec.options);
  let parsed: ReturnType<typeof nodeParseArgs>;
  try {
    parsed = nodeParseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    const e = err as Error & { code?: string };
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const m = /Unknown option '([^']+)'/.exec(e.message);
      throw unknownOption(m?.[1] ?? '?', known);
    }
    if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const m = /Option '(?:-\w, )?--([\w-]+)/.exec(e.message);
      const opt = m?.[1];
      if (opt && options[opt as keyof typeof options]?.type === 'boolean') throw new UsageError(`option --${opt} takes no value`);
      if (opt) throw new UsageError(`option --${opt} needs a value (--${opt} VALUE, or --${opt}=VALUE for a value starting with -)`);
    }
    throw new UsageError(e.message);
  }
  const flags: Record<string, string | true> = {};
  const overrides: Record<string, string | boolean> = {};
  for (const [k, v] of Object.entries(parsed.values)) {
    const conn = k in spec.options ? undefined : CONNECTION_OPTIONS[k];
    if (conn && (typeof v === 'string' || typeof v === 'boolean')) overrides[conn.key] = v;
    else if (typeof v === 'string') flags[k] = v;
    else if (v === true) flags[k] = true;
  }
  connectionOverrides = overrides as ConnectionOverrides;
  const positionals = parsed.positionals;
  if (flags.help !== true) {
    if (positionals.length < spec.positionals.min) {
      const missing = spec.positionals.names?.slice(positionals.length, spec.positionals.min) ?? [];
      throw new UsageError(missing.length ? `missing ${missing.join(' and ')}` : 'missing argument');
    }
    if (positionals.length > spec.positionals.max) {
      throw new UsageError(`unexpected argument '${positionals[spec.positionals.max]}'`);
    }
  }
  return { positionals, flags };
}

export function flagString(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags[name];
  return typeof v === 'string' ? v : undefined;
}

export function flagBool(args: ParsedArgs, name: string): boolean {
  return args.flags[name] === true;
}

/** The registry folder: --registry, else LOOM_REGISTRY, else the current folder. */
export function registryDir(args: ParsedArgs): string {
  return flagString(args, 'registry') ?? process.env.LOOM_REGISTRY ?? process.cwd();
}

/** The options `loom run` and `loom start` share. */
export const RUN_OPTIONS = {
  input: { type: 'string' },
  registry: { type: 'string' },
  'approval-timeout': { type: 'string' },
  'on-approval-timeout': { type: 'string' },
  /** `{actorId}` of the agent's memory collections (default $USER). */
  actor: { type: 'string' },
} as const;

/**
 * A command's `run(argv)`: parses `argv` against `spec`, prints `loom NAME: problem` and the usage
 * line on a UsageError (exit 2), the usage on --help (exit 0), else runs `body`.
 */
export function defineCommand(name: string, spec: CommandSpec, body: (args: ParsedArgs) => Promise<number>): (argv: string[]) => Promise<number> {
  return async (argv) => {
    let args: ParsedArgs;
    try {
      args = parseCommand(argv, spec);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      process.stderr.write(`loom ${name}: ${err.message}\nusage: ${spec.usage}\n`);
      return 2;
    }
    if (args.flags.help === true) {
      process.stdout.write(`usage: ${spec.usage}\n`);
      return 0;
    }
    try {
      return await body(args);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      process.stderr.write(`loom ${name}: ${err.message}\nusage: ${spec.usage}\n`);
      return 2;
    }
  };
}
