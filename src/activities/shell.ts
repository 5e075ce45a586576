/**
 * The `shell` builtin tool (`kind: builtin, builtin: {name: shell, config: {allowed_commands: …}}`):
 * runs one command the tool definition allows in the run's workspace (the folder read_file and
 * write_file use), inside the runTool activity: without a shell (argv from src/governance/shell.ts), with a
 * scrubbed environment (PATH, HOME, LANG and the names the definition lists), a timeout, a cap per
 * output stream (the tail is kept), a heartbeat while it runs, and the whole process group killed
 * on timeout or cancellation. Every run is recorded with its exit code in the workspace's evidence
 * log (evidence-log.ts), which validators read; a retried activity returns the recorded run.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import type { JsonObject } from '../compiled/types';
import type { ExternalToolContext } from './react-tools';
import { OUTPUT_TAIL_CHARS, recordedShellRun, recordShellRun, ShellRecord } from './evidence-log';
import { admitCommand, BASE_ENV, parseShellConfig, ShellConfig } from '../governance/shell';
import { workspaceRoot } from './file-tools';

export interface ShellRunResult extends JsonObject {
  command: string;
  exit_code: number;
  timed_out: boolean;
  stdout: string;
  stderr: string;
  truncated: boolean;
}

/** Keeps the last `cap` bytes of a stream. */
class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly cap: number) {}
  push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
    while (this.size > this.cap && this.chunks.length) {
      const over = this.size - this.cap;
      const first = this.chunks[0];
      this.truncated = true;
      if (first.length <= over) { this.chunks.shift(); this.size -= first.length; } else { this.chunks[0] = first.subarray(over); this.size -= over; }
    }
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

function scrubbedEnv(config: ShellConfig, from: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const n of [...BASE_ENV, ...config.env]) if (from[n] !== undefined) env[n] = from[n];
  return env;
}

/** Replace the values of the passed-through extra variables in output (they may be credentials). */
function redact(text: string, config: ShellConfig, env: NodeJS.ProcessEnv): string {
  const values = config.env.map((n) => env[n]).filter((v): v is string => !!v && v.length >= 4).sort((a, b) => b.length - a.length);
  return values.reduce((acc, v) => acc.split(v).join('[redacted]'), text);
}

/** Spawn argv in `cwd`; resolves with the exit code (127 when the program is not found). */
function runProcess(argv: string[], cwd: string, env: NodeJS.ProcessEnv, config: ShellConfig, ctx: Pick<ExternalToolContext, 'heartbeat' | 'signal'>): Promise<{ code: number; timedOut: boolean; cancelled: boolean; out: Tail; err: Tail; spawnError?: string }> {
  return new Promise((resolve) => {
    const out = new Tail(config.max_output_bytes);
    const err = new Tail(config.max_output_bytes);
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    // detached: the command leads its own process group, so kill(-pid) also ends what it started.
    const child = spawn(argv[0], argv.slice(1), { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const killGroup = (): void => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => { timedOut = true; killGroup(); }, config.timeout_seconds * 1000);
    const beat = setInterval(() => ctx.heartbeat(), 1000);
    const onCancel = (): void => { cancelled = true; killGroup(); };
    ctx.signal?.addEventListener('abort', onCancel, { once: true });
    const finish = (code: number, spawnError?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(beat);
      ctx.signal?.removeEventListener('abort', onCancel);
      resolve({ code, timedOut, cancelled, out, err, spawnError });
    };
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e: NodeJS.ErrnoException) => finish(e.code === 'ENOENT' ? 127 : 126, e.code === 'ENOENT' ? `${argv[0]}: command not found` : `${argv[0]}: ${e.message}`));
    child.on('close', (code, signal) => finish(code ?? (signal ? 128 + 9 : 1)));
  });
}

/**
 * The builtin. A refused command (not allowed, shell operators, no config) is a tool error the
 * model sees with the reason; a command that runs is a result with its exit code, whatever it is.
 */
export async function shellTool(args: JsonObject, ctx: ExternalToolContext, from: NodeJS.ProcessEnv = process.env): Promise<ShellRunResult> {
  const tool = ctx.tool;
  const parsed = parseShellConfig(tool.builtin?.config);
  if (!parsed.config) throw new Error(`tool ${tool.tool_id} is not configured to run commands: ${parsed.problems.map((p) => p.message).join('; ')}`);
  const config = parsed.config;
  const admitted = admitCommand(args.command, config);
  if ('refused' in admitted) throw new Error(`shell: ${admitted.refused}`);
  const command = String(args.command).trim();
  // The real path, as write_file records under it: one evidence log per workspace.
  await fs.promises.mkdir(workspaceRoot(ctx), { recursive: true });
  const root = await fs.promises.realpath(workspaceRoot(ctx));
  const prior = await recordedShellRun(root, ctx.idempotencyKey);
  if (prior && prior.command === command) return { command, exit_code: prior.exit_code, timed_out: prior.timed_out, stdout: prior.output_tail, stderr: '', truncated: true };
  const env = scrubbedEnv(config, from);
  const r = await runProcess(admitted.argv, root, env, config, ctx);
  if (r.cancelled) throw new Error(`shell: \`${command}\` was cancelled (its process group was killed)`);
  const stdout = redact(r.out.text(), config, from);
  const stderr = redact(`${r.err.text()}${r.spawnError ? `${r.spawnError}\n` : ''}${r.timedOut ? `[killed: no exit within ${config.timeout_seconds} s]\n` : ''}`, config, from);
  const rec: ShellRecord = {
    command, exit_code: r.code, timed_out: r.timedOut,
    output_tail: `${stdout}${stderr}`.slice(-OUTPUT_TAIL_CHARS),
    workflow_id: ctx.workflowId, call_id: ctx.callId, at: new Date().toISOString(),
  };
  await recordShellRun(root, ctx.idempotencyKey, rec);
  return { command, exit_code: r.code, timed_out: r.timedOut, stdout, stderr, truncated: r.out.truncated || r.err.truncated };
}
