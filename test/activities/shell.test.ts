/**
 * The `shell` builtin (src/activities/shell.ts) and write_file's change log, through the tool
 * executor with real processes and a real workspace: exit codes recorded as evidence, the scrubbed
 * environment, output caps, timeout and cancellation killing the process group, refusals, retries
 * returning the recorded run, and the evidence activity reading one turn's records.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { CompiledTool, JsonObject } from '../../src/compiled/types';
import type { ExternalToolContext } from '../../src/activities/react-tools';
import { executeTool } from '../../src/activities/tools';
import { CHANGES_FILE, shellRecords } from '../../src/activities/evidence-log';
import { createEvidenceActivities } from '../../src/activities/evidence';
import { until } from '../helpers/wait';

function shellTool(config: JsonObject | undefined): CompiledTool {
  return {
    tool_id: 'run-command', version: '1.0.0', status: 'active', description: 'run a command', kind: 'builtin',
    input_schema: { type: 'object' }, approval_required: false, sensitive_fields: [], side_effects: true,
    builtin: { name: 'shell', ...(config ? { config } : {}) },
  };
}
const writeTool: CompiledTool = { ...shellTool(undefined), tool_id: 'write_file', builtin: { name: 'write_file' } };

let tmp: string;
let n = 0;
beforeAll(() => { tmp = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'shell-')); });

function ctx(tool: CompiledTool, args: JsonObject, workspace: string, over: Partial<ExternalToolContext> = {}): ExternalToolContext {
  const callId = `call-${++n}`;
  return { tool, args, idempotencyKey: `run-1/turn-1-Dev/${callId}`, workflowId: 'run-1/turn-1-Dev', callId, workspace, heartbeat: () => undefined, ...over };
}
const ws = (): string => fs.mkdtempSync(path.join(tmp, 'ws-'));
const allow = (...allowed_commands: string[]): CompiledTool => shellTool({ allowed_commands, timeout_seconds: 5 });

test('runs an allowed command in the workspace and records its exit code, pass or fail', async () => {
  const w = ws();
  fs.writeFileSync(path.join(w, 'marker.txt'), 'x');
  const t = allow("sh -c 'test -f *'", 'node -e *');
  const ok = await executeTool(ctx(t, { command: "sh -c 'test -f marker.txt'" }, w)) as JsonObject;
  const bad = await executeTool(ctx(t, { command: "sh -c 'test -f missing.txt'" }, w)) as JsonObject;
  const out = await executeTool(ctx(t, { command: 'node -e "console.log(process.cwd()); process.exitCode = 3"' }, w)) as JsonObject;
  expect([ok.exit_code, bad.exit_code, out.exit_code]).toEqual([0, 1, 3]);
  expect(String(out.stdout).trim()).toBe(fs.realpathSync(w));
  const recs = await shellRecords(fs.realpathSync(w));
  expect(recs.map((r) => [r.command, r.exit_code, r.workflow_id])).toEqual([
    ["sh -c 'test -f marker.txt'", 0, 'run-1/turn-1-Dev'],
    ["sh -c 'test -f missing.txt'", 1, 'run-1/turn-1-Dev'],
    ['node -e "console.log(process.cwd()); process.exitCode = 3"', 3, 'run-1/turn-1-Dev'],
  ]);
});

test('refuses what the definition does not allow, with the reason; a definition without allowed_commands runs nothing', async () => {
  const w = ws();
  await expect(executeTool(ctx(allow('node -e *'), { command: 'rm -rf .' }, w))).rejects.toThrow(/not allowed by this tool; allowed patterns: "node -e \*"/);
  await expect(executeTool(ctx(allow('node -e *'), { command: 'node -e 1 | cat' }, w))).rejects.toThrow(/'\|' is a shell operator/);
  await expect(executeTool(ctx(shellTool(undefined), { command: 'node -e 1' }, w))).rejects.toThrow(/not configured to run commands: .*allowed_commands/);
  expect(await shellRecords(fs.realpathSync(w))).toEqual([]);
});

test('the environment is PATH, HOME, LANG and the allowed names only; allowed values are redacted from output', async () => {
  const w = ws();
  const t = shellTool({ allowed_commands: ['node -e *'], env: ['LOOM_SHELL_TEST_TOKEN'] });
  process.env.LOOM_SHELL_TEST_TOKEN = 'tok-123456';
  process.env.LOOM_SHELL_TEST_OTHER = 'other-value';
  try {
    const r = await executeTool(ctx(t, { command: 'node -e "console.log(JSON.stringify(Object.keys(process.env).sort()), process.env.LOOM_SHELL_TEST_TOKEN)"' }, w)) as JsonObject;
    const [keys, token] = String(r.stdout).trim().split(' ');
    expect((JSON.parse(keys) as string[]).filter((k) => !['PATH', 'HOME', 'LANG'].includes(k))).toEqual(['LOOM_SHELL_TEST_TOKEN']);
    expect(token).toBe('[redacted]');
  } finally {
    delete process.env.LOOM_SHELL_TEST_TOKEN;
    delete process.env.LOOM_SHELL_TEST_OTHER;
  }
});

test('output beyond max_output_bytes keeps the tail', async () => {
  const w = ws();
  const t = shellTool({ allowed_commands: ['node -e *'], max_output_bytes: 1024 });
  const r = await executeTool(ctx(t, { command: 'node -e "process.stdout.write(\'a\'.repeat(5000) + \'END\')"' }, w)) as JsonObject;
  expect(r.truncated).toBe(true);
  expect(String(r.stdout)).toHaveLength(1024);
  expect(String(r.stdout).endsWith('END')).toBe(true);
});

/** The pid the command's background child wrote, once it is there. */
async function childPid(w: string): Promise<number> {
  const f = path.join(w, 'pid.txt');
  const pid = await until(() => (fs.existsSync(f) && fs.readFileSync(f, 'utf8').trim()) || undefined, `the background child to write its pid to ${f}`, 30_000, 50);
  return Number(pid);
}
/** Resolves when `pid` no longer exists (killed and reaped). */
async function gone(pid: number): Promise<true> {
  return until(() => {
    try {
      process.kill(pid, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') return true;
    }
    return undefined;
  }, `process ${pid} to be gone`, 30_000, 50);
}
// The background `sleep` is a grandchild of the tool call: only a kill of the process group ends it.
const BACKGROUND = "sh -c 'sleep 60 & echo $! > pid.txt; sleep 60'";

test('a command past its timeout is killed with the processes it started', async () => {
  const w = ws();
  const t = shellTool({ allowed_commands: ['sh -c *'], timeout_seconds: 1 });
  const r = await executeTool(ctx(t, { command: BACKGROUND }, w)) as JsonObject;
  expect(r.timed_out).toBe(true);
  expect(r.exit_code).not.toBe(0);
  expect(String(r.stderr)).toContain('[killed: no exit within 1 s]');
  expect(await gone(await childPid(w))).toBe(true);
});

test('cancellation kills the process group and fails the call; it heartbeats while it runs', async () => {
  const w = ws();
  const t = shellTool({ allowed_commands: ['sh -c *'], timeout_seconds: 60 });
  const ac = new AbortController();
  let beats = 0;
  let beaten: () => void = () => undefined;
  const beat = new Promise<void>((res) => { beaten = res; });
  const p = executeTool(ctx(t, { command: BACKGROUND }, w, { signal: ac.signal, heartbeat: () => { beats++; beaten(); } }));
  const pid = await childPid(w);
  await beat;
  ac.abort();
  await expect(p).rejects.toThrow(/was cancelled \(its process group was killed\)/);
  expect(beats).toBeGreaterThan(0);
  expect(await gone(pid)).toBe(true);
});

test('a retried call returns the recorded run instead of running again', async () => {
  const w = ws();
  const t = allow('node -e *');
  const c = ctx(t, { command: 'node -e "require(\'fs\').appendFileSync(\'count.txt\', \'x\')"' }, w);
  await executeTool(c);
  await executeTool({ ...c });
  expect(fs.readFileSync(path.join(w, 'count.txt'), 'utf8')).toBe('x');
});

test('write_file records changes.json, refuses to write it, and the evidence activity reads one turn', async () => {
  const w = ws();
  await executeTool(ctx(writeTool, { path: 'src/a.txt', content: 'a' }, w));
  await executeTool(ctx(writeTool, { path: 'b.txt', content: 'b' }, w, { workflowId: 'run-1/turn-2-Tester', idempotencyKey: 'run-1/turn-2-Tester/c1', callId: 'c1' }));
  await expect(executeTool(ctx(writeTool, { path: CHANGES_FILE, content: '[]' }, w))).rejects.toThrow(/change log the runtime records/);
  await expect(executeTool(ctx(writeTool, { path: '.loom-evidence/x.json', content: '{}' }, w))).rejects.toThrow(/reserved by the runtime/);
  const log = JSON.parse(fs.readFileSync(path.join(w, CHANGES_FILE), 'utf8')) as { path: string; workflow_id: string }[];
  expect(log.map((e) => [e.path, e.workflow_id])).toEqual([['src/a.txt', 'run-1/turn-1-Dev'], ['b.txt', 'run-1/turn-2-Tester']]);
  await executeTool(ctx(allow('node -e *'), { command: 'node -e 0' }, w, { workflowId: 'run-1/turn-2-Tester', idempotencyKey: 'run-1/turn-2-Tester/c2', callId: 'c2' }));
  const acts = createEvidenceActivities();
  const root = await acts.strategyWorkspace({ workflow_id: 'ignored', workspace: w });
  const ev = await acts.collectTurnEvidence({ workspace: root, member_workflow_id: 'run-1/turn-2-Tester', files: ['b.txt', 'brief.json'] });
  expect(ev).toEqual({ writes: ['b.txt'], changes: ['src/a.txt', 'b.txt'], shell: [{ command: 'node -e 0', exitCode: 0, outputTail: '' }], files: { 'b.txt': 'b', 'brief.json': null } });
});
