/**
 * Argument parsing for every `loom` command: Node's `util.parseArgs` in strict mode over a
 * per-command spec. An unknown option, a boolean given a value, a value option without one or a
 * wrong number of positionals is a UsageError (exit 2) with a suggestion, never silently ignored.
 */
import { parseArgs as nodeParseArgs } from 'util';
import { damerauDistance } from '../shared/edit-distance';
import type { ConnectionOverrides } from '../connection/config';
import { UsageError } from '../operator/errors';

export type OptionType = 'string' | 'boolean';

/**
 * One option of a command: the parser reads `type`/`short`, `--help` and the shell completion read
 * `help` (one sentence) and `value` (the placeholder of a string option's value), so the options a
 * command accepts and those its help lists come from this one table and cannot drift apart.
 */
export interface OptionSpec { type: OptionType; short?: string; help: string; value?: string }

/** What a command accepts: its options, how many positionals, and the usage line shown on errors. */
export interface CommandSpec {
  /** e.g. `loom approve ID CALL_ID [--args JSON]`; the required positionals are named in `positionals.names`. */
  usage: string;
  options: Record<string, OptionSpec>;
  positionals: { min: number; max: number; names?: string[] };
}

/** What the parser alone needs (a script's own options need no help sentences). */
export interface ParseSpec extends Omit<CommandSpec, 'options'> { options: Record<string, { type: OptionType; short?: string }> }

export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | true>;
}


/**
 * The known word closest to `name` (edit distance ≤ 2 counting a swap of two neighbouring letters as
 * one edit, or a prefix of it), if any: `stauts` → `status`, `--inptu` → `--input`.
 */
export function nearest(name: string, known: string[]): string | undefined {
  const ranked = known
    .map((k) => ({ k, d: k.startsWith(name) || name.startsWith(k) ? Math.min(1, damerauDistance(name, k)) : damerauDistance(name, k) }))
    .sort((a, b) => a.d - b.d);
  return ranked[0] && ranked[0].d <= 2 ? ranked[0].k : undefined;
}

function unknownOption(raw: string, known: string[]): UsageError {
  const name = raw.replace(/^-+/, '').replace(/=.*$/, '');
  // A misspelt connection option (--adress) is suggested too; the list names the command's own.
  const near = nearest(name, known) ?? nearest(name, Object.keys(CONNECTION_OPTIONS));
  const hint = near
    ? `; did you mean --${near}?`
    : known.length ? `; known options: ${known.map((k) => `--${k}`).join(', ')}` : '; this command takes no options';
  return new UsageError(`unknown option ${raw.replace(/=.*$/, '')}${hint}`);
}

/**
 * The `temporal` CLI's connection options, accepted by every command beside its own: they override
 * TEMPORAL_* variables and the config file's profile (src/connection/config.ts). They are taken out
 * of a command's flags and kept for the command's AgentloomClient (`connectionOverrides()`) and for
 * `connect()` (setConnectionOverrides in src/operator/connect.ts).
 */
export const CONNECTION_OPTIONS: Record<string, OptionSpec & { key: keyof ConnectionOverrides }> = {
  address: { type: 'string', key: 'address', value: 'HOST:PORT', help: 'the Temporal frontend to connect to (else TEMPORAL_ADDRESS, the profile, or the embedded dev server).' },
  namespace: { type: 'string', key: 'namespace', value: 'NS', help: 'the Temporal namespace (else TEMPORAL_NAMESPACE or the profile, default "default").' },
  'api-key': { type: 'string', key: 'apiKey', value: 'KEY', help: 'the API key sent to Temporal Cloud (else TEMPORAL_API_KEY); never logged.' },
  tls: { type: 'boolean', key: 'tls', help: 'connect over TLS (the --tls-* paths imply it).' },
  'tls-cert-path': { type: 'string', key: 'tlsCertPath', value: 'FILE', help: 'the client certificate for mutual TLS.' },
  'tls-key-path': { type: 'string', key: 'tlsKeyPath', value: 'FILE', help: 'the private key of the client certificate.' },
  'tls-ca-path': { type: 'string', key: 'tlsCaPath', value: 'FILE', help: 'the CA certificate that signs the server certificate.' },
  'tls-server-name': { type: 'string', key: 'tlsServerName', value: 'NAME', help: 'the server name checked against the server certificate.' },
  profile: { type: 'string', key: 'profile', value: 'NAME', help: 'the profile of the Temporal CLI config file to read (else TEMPORAL_PROFILE, default "default").' },
};

let lastOverrides: ConnectionOverrides = {};
let overridesApplied = false;

/**
 * Hands the command line's connection options to `connect()` (src/operator/connect.ts) for the
 * commands that call it directly. Loaded only when there is something to hand over (or to clear, after
 * an earlier command of this process handed some over): a command without connection options never
 * loads the connection module before it needs it.
 */
async function applyConnectionOverrides(): Promise<void> {
  if (!Object.keys(lastOverrides).length && !overridesApplied) return;
  const { setConnectionOverrides } = await import('../operator/connect');
  setConnectionOverrides(lastOverrides);
  overridesApplied = Object.keys(lastOverrides).length > 0;
}

/** The connection options (--address, --tls, …) of the command line parsed last: what the command's AgentloomClient connects with. */
export function connectionOverrides(): ConnectionOverrides {
  return lastOverrides;
}

/** `--help`/`-h`, accepted by every command. */
export const HELP_OPTION: OptionSpec = { type: 'boolean', short: 'h', help: 'print this help and exit.' };

/** `--NAME VALUE` / `-h, --help` as shown in help and completions. */
function optionLabel(name: string, o: OptionSpec): string {
  return `${o.short ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
}

function optionLines(options: Record<string, OptionSpec>): string[] {
  const labels = Object.entries(options).map(([n, o]) => [optionLabel(n, o), o.help] as const);
  const width = Math.min(32, Math.max(...labels.map(([l]) => l.length)));
  return labels.map(([l, h]) => `  ${l.padEnd(width)}  ${h}`);
}

/** The text of `loom NAME --help`: usage, summary, every option of the spec with its sentence, the connection options. */
export function commandHelp(name: string, spec: CommandSpec, summary?: string): string {
  const lines = [`usage: ${spec.usage}`];
  if (summary) lines.push('', summary.charAt(0).toUpperCase() + summary.slice(1) + (summary.endsWith('.') ? '' : '.'));
  lines.push('', 'options:', ...optionLines({ ...spec.options, help: HELP_OPTION }));
  lines.push('', 'connection options (every command; else TEMPORAL_* variables, else the Temporal config file\'s profile):', ...optionLines(CONNECTION_OPTIONS));
  return lines.join('\n');
}

/** Parse `argv` against `spec` (throws UsageError). `--help`/`-h` and the connection options are accepted by every command. */
export function parseCommand(argv: string[], spec: ParseSpec): ParsedArgs {
  const connection = Object.fromEntries(Object.entries(CONNECTION_OPTIONS).map(([k, o]) => [k, { type: o.type }]));
  const own = Object.fromEntries(Object.entries(spec.options).map(([k, o]) => [k, o.short ? { type: o.type, short: o.short } : { type: o.type }]));
  const options = { ...connection, ...own, help: { type: 'boolean' as const, short: 'h' } };
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
  lastOverrides = overrides as ConnectionOverrides;
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
export const RUN_OPTIONS: Record<string, OptionSpec> = {
  input: { type: 'string', value: 'JSON|@FILE', help: 'the run input as inline JSON or @file.json (default: the first of interface.input.examples).' },
  registry: { type: 'string', value: 'DIR', help: 'the registry folder (else LOOM_REGISTRY, else the current folder).' },
  'approval-timeout': { type: 'string', value: 'SECONDS', help: 'how long a tool call waits for approval before --on-approval-timeout applies.' },
  'on-approval-timeout': { type: 'string', value: 'reject|escalate', help: 'what an approval that times out does: reject the call or escalate to a human queue.' },
  /** `{actorId}` of the agent's memory collections (default $USER). */
  actor: { type: 'string', value: 'ID', help: "the actor id of the agent's memory collections (default $USER)." },
};

/**
 * A command's `run(argv)`: parses `argv` against `spec`, prints `loom NAME: problem` and the usage
 * line on a UsageError (exit 2), the usage on --help (exit 0), else runs `body`.
 */
export function defineCommand(name: string, spec: CommandSpec, body: (args: ParsedArgs) => Promise<number>): CommandRun {
  const run = async (argv: string[]): Promise<number> => {
    let args: ParsedArgs;
    try {
      args = parseCommand(argv, spec);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      process.stderr.write(`loom ${name}: ${err.message}\nusage: ${spec.usage}\n`);
      return 2;
    }
    await applyConnectionOverrides();
    if (args.flags.help === true) {
      const { COMMANDS } = await import('./command-table');
      process.stdout.write(commandHelp(name, spec, COMMANDS[name]?.summary) + '\n');
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
  return Object.assign(run, { spec });
}

/** A command's entry point, with the spec it parses (read by help and the shell completion). */
export type CommandRun = ((argv: string[]) => Promise<number>) & { spec: CommandSpec };
