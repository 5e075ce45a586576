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


/**
 * Each command module's import, written out (not a path built at run time) so that a bundler sees
 * every command: the CLI's one-file build (dist/client.bundle.js) holds them, each run only when its
 * command is. A command of COMMANDS without a loader here is imported by its path.
 */
const LOADERS: Record<string, () => Promise<unknown>> = {
  init: () => import('./commands/init'),
  validate: () => import('./commands/validate'),
  compile: () => import('./commands/compile'),
  publish: () => import('./commands/publish'),
  dev: () => import('./commands/dev'),
  run: () => import('./commands/run'),
  start: () => import('./commands/start'),
  status: () => import('./commands/status'),
  approve: () => import('./commands/approve'),
  reject: () => import('./commands/reject'),
  pause: () => import('./commands/pause'),
  resume: () => import('./commands/resume'),
  cancel: () => import('./commands/cancel'),
  result: () => import('./commands/result'),
  list: () => import('./commands/list'),
  delete: () => import('./commands/delete'),
  escalations: () => import('./commands/escalations'),
  respond: () => import('./commands/respond'),
  inbox: () => import('./commands/inbox'),
  audit: () => import('./commands/audit'),
  mcp: () => import('./commands/mcp'),
  diagram: () => import('./commands/diagram'),
  describe: () => import('./commands/describe'),
  dispatch: () => import('./commands/dispatch'),
  artifacts: () => import('./commands/artifacts'),
  'codec-server': () => import('./commands/codec-server'),
  chat: () => import('./commands/chat'),
  send: () => import('./commands/send'),
  completion: () => import('./commands/completion'),
  version: () => import('./commands/version'),
};

/** Every command's module (for the completion script and the help checks). */
export async function loadCommand(name: string): Promise<CommandModule> {
  const load = LOADERS[COMMANDS[name].module];
  return (await (load ? load() : import(path.join(__dirname, 'commands', COMMANDS[name].module)))) as CommandModule;
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
