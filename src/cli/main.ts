/**
 * Command table and dispatch for the `loom` CLI (see client.ts). Each command module parses its own
 * argv with a strict spec (src/cli/args.ts). Exit codes: 0 success, 1 the command failed or was
 * refused (a failed run, no such run, a run that has already ended, invalid input), 2 usage errors.
 */
import * as path from 'path';
import { nearest, type CommandRun } from './args';

export interface CommandModule {
  /** Runs the command with its own argv (after the command name); resolves to the exit code; `run.spec` is its options. */
  run: CommandRun;
}

interface CommandEntry { module: string; summary: string }

/** name -> module under src/cli/commands (loaded lazily) and a one-line summary for `loom help`. */
export const COMMANDS: Record<string, CommandEntry> = {
  init: { module: 'init', summary: 'write a starter project into DIR (an agent on a scripted model, README); never overwrites' },
  validate: { module: 'validate', summary: 'validate agent definitions and registry files (exit 1 on errors)' },
  compile: { module: 'compile', summary: 'compile AGENT_ID and print the canonical JSON bundle' },
  publish: { module: 'publish', summary: 'store the compiled payload under .loom/published/<agent_id>/<version>.json' },
  dev: { module: 'dev', summary: 'embedded Temporal dev server + worker in the foreground; prints the Web UI URL' },
  run: { module: 'run', summary: 'run AGENT_ID, show live progress and print the output' },
  start: { module: 'start', summary: 'start AGENT_ID and print the workflow id' },
  status: { module: 'status', summary: 'show the status of a run' },
  approve: { module: 'approve', summary: 'approve a pending tool call (optionally with corrected --args)' },
  reject: { module: 'reject', summary: 'reject a pending tool call with --reason' },
  pause: { module: 'pause', summary: 'pause a run (no new model or tool call starts)' },
  resume: { module: 'resume', summary: 'resume a paused run' },
  cancel: { module: 'cancel', summary: 'cancel a run' },
  result: { module: 'result', summary: 'wait for and print the output of a run' },
  list: { module: 'list', summary: 'list runs' },
  delete: { module: 'delete', summary: 'delete a run and its state' },
  escalations: { module: 'escalations', summary: 'list runs waiting on a human queue' },
  respond: { module: 'respond', summary: 'answer an escalation: --queue Q --output JSON | --close' },
  inbox: { module: 'inbox', summary: 'every decision waiting on a human in every open run, with the command that answers it' },
  audit: { module: 'audit', summary: 'print the audit log of an agent or a run and verify its hash chain' },
  mcp: { module: 'mcp', summary: 'serve runs as MCP tools (start, status, result, pending decisions, approve/reject) over stdio or --http PORT' },
  diagram: { module: 'diagram', summary: 'print the topology of AGENT_ID (policy, pattern or strategy, tools) as Mermaid or --format dot' },
  describe: { module: 'describe', summary: 'the input form an external UI renders for AGENT_ID (ui, ui_hints, --locale)' },
  dispatch: { module: 'dispatch', summary: 'pick the agent whose routing matches TEXT (--explain shows the ranking), run it, fall back on failure' },
  artifacts: { module: 'artifacts', summary: 'list or print (--get NAME) the artifacts of a run; `artifacts purge [--schedule]` deletes expired ones' },
  'codec-server': { module: 'codec-server', summary: 'serve the payload codec endpoint (/decode, /encode with CORS) so the Temporal Web UI shows encrypted payloads decoded' },
  chat: { module: 'chat', summary: 'chat with AGENT_ID in a session (one line per message, Ctrl-D leaves; --session ID joins one)' },
  send: { module: 'send', summary: 'send one message to a chat session and print the reply' },
  completion: { module: 'completion', summary: 'print the shell completion script: loom completion bash|zsh|fish' },
  version: { module: 'version', summary: 'print the version of loom (also --version, -V)' },
};

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

/**
 * The one line `loom` prints for an unexpected error: its message and every distinct cause under it
 * (a Temporal client error wraps the server's reason: "Failed to start Workflow: … message size
 * exceeds …"), so the root cause is always shown. gRPC errors carry the server's text in `details`.
 */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  for (let cur: unknown = err; cur !== undefined && cur !== null && !seen.has(cur) && parts.length < 10; cur = (cur as { cause?: unknown }).cause) {
    seen.add(cur);
    const e = cur as { message?: unknown; details?: unknown };
    const text = (typeof e.details === 'string' && e.details) || (typeof e.message === 'string' && e.message) || (typeof cur === 'object' ? '' : String(cur));
    const line = text.replace(/\s+/g, ' ').trim();
    if (!line) continue;
    // A wrapper that repeats its cause's text (or the other way round) adds nothing.
    const last = parts[parts.length - 1];
    if (last && (last.includes(line) || line.includes(last))) { if (line.length > last.length) parts[parts.length - 1] = line; continue; }
    parts.push(line);
  }
  return parts.length ? parts.join(': ') : String(err);
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
