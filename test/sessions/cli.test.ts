/**
 * `loom chat` and `loom send` as a user runs them (`node bin/loom.js …` child processes) against
 * the dev server: a chat fed on stdin, the same session continued by `loom send` from another
 * process with the history carried, `loom status` showing the session, `loom send` to a session
 * that has ended refused with how it ended, and a memory writeback answered from `loom inbox`.
 */
import { spawn } from 'child_process';
import * as path from 'path';
import { CliHarness, LOOM_BIN, ROOT, startCliHarness, until } from '../cli/harness';

const REGISTRY = ['--registry', path.join(__dirname, 'registry')];

let h: CliHarness;
beforeAll(async () => { h = await startCliHarness('sessions'); });
afterAll(async () => h?.close());

/** `loom chat ARGS` with `lines` typed on stdin, then end of input (Ctrl-D). */
function chat(args: string[], lines: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [LOOM_BIN, 'chat', ...args], { cwd: ROOT, env: h.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.end(lines.map((l) => l + '\n').join(''));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, out, err })));
}

test('loom chat on stdin, then loom send from another process continues the same session; loom status shows it', async () => {
  const c = await chat(['chat-agent', ...REGISTRY, '--idle-timeout', '600'], ['My name is Ada', 'I like tea']);
  expect(c.code).toBe(0);
  expect(c.out).toBe('Nice to meet you\nNoted: tea\n');
  const id = /session (\S+) \(started; chat-agent\)/.exec(c.err)?.[1];
  expect(id).toMatch(/^chat-agent-chat-[0-9a-f]{8}$/);
  expect(c.err).toContain(`loom send ${id} TEXT\` continues it until it has been idle for 600 s`);

  const s = await h.loom(['send', id!, 'What do you know about me?']);
  expect(s).toMatchObject({ code: 0, out: 'You are Ada and you like tea\n', err: '' });
  const j = await h.loom(['send', id!, 'And now?', '--json']);
  expect(JSON.parse(j.out)).toMatchObject({ message: 4, kept: 6, dropped: 0, workflow_id: id });

  const st = await h.loom(['status', id!, '--json']);
  expect(st.code).toBe(0);
  expect(JSON.parse(st.out)).toMatchObject({ type: 'sessionWorkflow', temporal_status: 'RUNNING', pattern: 'session', progress: { messages: 4, session_history: 'session', max_state_tokens: 1000, idle_timeout_seconds: 600 } });
  await h.handle(id!).terminate('test over');
}, 180_000);

test('loom chat --session joins the running session; loom send to an ended session is refused with how it ended', async () => {
  const first = await chat(['chat-agent', ...REGISTRY, '--session', 'cli-join-1', '--idle-timeout', '600'], ['My name is Ada']);
  expect(first).toMatchObject({ code: 0, out: 'Nice to meet you\n' });
  const again = await chat(['chat-agent', ...REGISTRY, '--session', 'cli-join-1'], ['I like tea']);
  expect(again.err).toContain('session cli-join-1 (joined; chat-agent)');
  expect(again.out).toBe('Noted: tea\n');
  // Once the session has ended, a message is refused, saying how it ended.
  await h.handle('cli-join-1').terminate('operator ended it');
  const late = await h.loom(['send', 'cli-join-1', 'hello?']);
  expect(late).toMatchObject({ code: 1, out: '' });
  expect(late.err).toBe('loom send: run cli-join-1 is terminated: nothing to send to\n');
}, 180_000);

test('a bad --session or --idle-timeout is refused before anything starts', async () => {
  const bad = await chat(['chat-agent', ...REGISTRY, '--session', 'no spaces'], []);
  expect(bad).toMatchObject({ code: 1 });
  expect(bad.err).toContain("--session must be letters, digits, '.', '_', ':' or '-'");
  const idle = await chat(['chat-agent', ...REGISTRY, '--idle-timeout', '0'], []);
  expect(idle.code).toBe(2);
  expect(idle.err).toContain('--idle-timeout must be a positive number of seconds');
}, 120_000);

test('a memory writeback waiting for approval is in loom inbox and answered with loom approve SESSION CALL_ID', async () => {
  const c = await chat(['memory-chat-agent', ...REGISTRY, '--session', 'cli-mem-1', '--actor', 'ada'], ['My name is Ada']);
  expect(c).toMatchObject({ code: 0, out: 'Nice to meet you\n' });
  const inbox = await until('the writeback in loom inbox', async () => {
    const r = await h.loom(['inbox', '--json']);
    const rows = JSON.parse(r.out || '[]') as { root_workflow_id: string; ref: string; tool?: string; answer: string[] }[];
    return rows.find((e) => e.root_workflow_id === 'cli-mem-1');
  });
  expect(inbox).toMatchObject({ ref: 'memory-1-chat-prefs', tool: 'memory_writeback', answer: ['loom approve cli-mem-1 memory-1-chat-prefs', 'loom reject cli-mem-1 memory-1-chat-prefs --reason TEXT'] });
  const ok = await h.loom(['approve', 'cli-mem-1', 'memory-1-chat-prefs']);
  expect(ok).toMatchObject({ code: 0, out: 'approved memory-1-chat-prefs\n' });
  await until('the approved writeback written', async () => {
    const st = JSON.parse((await h.loom(['status', 'cli-mem-1', '--json'])).out) as { pending_approvals: unknown[] };
    return st.pending_approvals.length === 0 ? true : undefined;
  });
  // The actor's next session reads it ("name" matches the stored exchange).
  expect((await chat(['memory-chat-agent', ...REGISTRY, '--session', 'cli-mem-2', '--actor', 'ada'], [])).code).toBe(0);
  const next = await h.loom(['send', 'cli-mem-2', 'What is my name?', '--json']);
  expect(JSON.parse(next.out)).toMatchObject({ message: 1, memory: { read: { 'chat-prefs': 1 }, pending: ['memory-1-chat-prefs'] } });
  await Promise.all([h.handle('cli-mem-1').terminate('test over'), h.handle('cli-mem-2').terminate('test over')]);
}, 180_000);
