/**
 * `loom run --session` as a user runs it, on the suite's dev server: each run of a chat agent sees
 * the session's earlier exchanges, its progress says how many it was given, and `--json` prints
 * the output alone (no progress line); the output is printed as the agent renders it (JSON by
 * default). The run goes through AgentloomClient.runDetail.
 */
import * as path from 'path';
import { CliHarness, STACK_TRACE, startCliHarness, useBuiltCli } from './harness';

const REGISTRY = ['--registry', path.join(__dirname, '..', 'sessions', 'registry')];

let h: CliHarness;
// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => { h = await startCliHarness('run-session'); });
afterAll(async () => h?.close());

test('loom run --session: the second run sees the first exchange and says so; --json prints only the output', async () => {
  const first = await h.loom(['run', 'chat-agent', ...REGISTRY, '--session', 'cli-run-1', '--input', '"My name is Ada"']);
  expect(first).toMatchObject({ code: 0, out: '"Nice to meet you"\n' });
  const lines = first.err.split('\n');
  expect(lines[0]).toBe('session cli-run-1: 0 earlier run(s), 0 earlier message(s) given to the model');
  expect(lines[1]).toMatch(/^started chat-agent-\d{8}-[0-9a-f]{8}$/);
  const second = await h.loom(['run', 'chat-agent', ...REGISTRY, '--session', 'cli-run-1', '--input', '"I like tea"']);
  expect(second).toMatchObject({ code: 0, out: '"Noted: tea"\n' });
  expect(second.err.split('\n')[0]).toBe('session cli-run-1: 1 earlier run(s), 2 earlier message(s) given to the model');
  const third = await h.loom(['run', 'chat-agent', ...REGISTRY, '--session', 'cli-run-1', '--input', '"What do you know about me?"', '--json']);
  expect(third).toMatchObject({ code: 0, out: '"You are Ada and you like tea"\n', err: '' });
  for (const r of [first, second, third]) expect(r.err).not.toMatch(STACK_TRACE);
}, 120_000);
