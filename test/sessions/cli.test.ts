/**
 * `loom chat` and `loom send` as a user runs them (`node bin/loom.js …` child processes) against
 * the dev server: a chat fed on stdin, the same session continued by `loom send` from another
 * process with the history carried, `loom status` showing the session, and `loom send` to a
 * session that has ended refused with how it ended.
 */
import { spawn } from 'child_process';
import * as path from 'path';
import { CliHarness, LOOM_BIN, ROOT, startCliHarness } from '../cli/harness';

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
  expect(JSON.parse(j.out)).toMatchObject({ message: 4, kept: 6, dropped: 0, workflow_id: `${id}/message-4` });

  const st = await h.loom(['status', id!, '--json']);
  expect(st.code).toBe(0);
  expect(JSON.parse(st.out)).toMatchObject({ type: 'sessionWorkflow', temporal_status: 'RUNNING', pattern: 'session', progress: { messages: 4, session_history: 'session', max_state_tokens: 1000, idle_timeout_seconds: 600 } });
  await h.handle(id!).terminate('test over');
}, 180_000);

test('loom chat --session joins the running session; loom send to an ended session is refused with how it ended', async () => {
  const first = await chat(['chat-agent', ...REGISTRY, '--session', 'cli-join-1', '--idle-timeout', '3'], ['My name is Ada']);
  expect(first).toMatchObject({ code: 0, out: 'Nice to meet you\n' });
  const again = await chat(['chat-agent', ...REGISTRY, '--session', 'cli-join-1'], ['I like tea']);
  expect(again.err).toContain('session cli-join-1 (joined; chat-agent)');
  expect(again.out).toBe('Noted: tea\n');
  // The idle timer ends it; then a message is refused, saying the session completed.
  await h.handle('cli-join-1').result();
  const late = await h.loom(['send', 'cli-join-1', 'hello?']);
  expect(late).toMatchObject({ code: 1, out: '' });
  expect(late.err).toBe('loom send: run cli-join-1 is completed: nothing to send to\n');
}, 180_000);

test('a bad --session or --idle-timeout is refused before anything starts', async () => {
  const bad = await chat(['chat-agent', ...REGISTRY, '--session', 'no spaces'], []);
  expect(bad).toMatchObject({ code: 1 });
  expect(bad.err).toContain("--session must be letters, digits, '.', '_', ':' or '-'");
  const idle = await chat(['chat-agent', ...REGISTRY, '--idle-timeout', '0'], []);
  expect(idle.code).toBe(2);
  expect(idle.err).toContain('--idle-timeout must be a positive number of seconds');
}, 120_000);
