/**
 * Command table and dispatch for the `loom` CLI (see client.ts). Each command module parses its own
 * argv with a strict spec (src/cli/args.ts). Exit codes: 0 success, 1 the command failed or was
 * refused (a failed run, no such run, a run that has already ended, invalid input), 2 usage errors.
 */
import * as path from 'path';
import { nearest, type CommandRun } from './args';
import { COMMANDS } from './command-table';

export interface CommandModule {
  /** Runs the command with its own argv (after the command name); resolves to the exit code; `run.spec` is its options. */
  run: CommandRun;
}


/** Every command's module (for the completion script and the help checks). */
export async function loadCommand(name: string): Promise<CommandModule> {
  return (await import(path.join(__dirname, 'commands', COMMANDS[name].module))) as CommandModule;
}

export function usage(): string {
  const lines = ['usage: loom <command> [options]', '', 'commands:'];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(12)} ${c.summary}`);
  lines.push('', 'loom COMMAND --help lists its options; --registry DIR (or LOOM_REGISTRY); TEMPORAL_ADDRESS to use a real cluster');
  lines.push('every command takes the temporal CLI\'s connection options: --address, --namespace, --api-key, --tls, --tls-cert-path, --tls-key-path, --tls-ca-path, --tls-server-name, --profile (else TEMPORAL_* variables, else the Temporal config file\'s profile)');
  return lines.join('\n');
}

export async function runCli(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  const name = first === '--version' || first === '-V' ? 'version' : first;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(usage() + '\n');
    return name ? 0 : 2;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    const near = nearest(name, Object.keys(COMMANDS));
    process.stderr.write(`loom: unknown command '${name}'${near ? `; did you mean '${near}'?` : ''}\n\n${usage()}\n`);
    return 2;
  }
  return (await loadCommand(name)).run(rest);
}
