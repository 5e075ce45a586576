/**
 * fuseraft's lossless compaction, pure side (src/strategies/compaction.ts): the ContextRebuilder
 * renders the evidence log and the state machine's durable state; nothing recorded is dropped
 * without being counted, and the block sits between the task and the conversation.
 */
import { authorOf, isCompacted, rebuildContext, REBUILD_LIMITS } from '../../src/strategies/compaction';
import type { ShellEvidence, WriteEvidence } from '../../src/strategies/compaction';
import { conversationText } from '../../src/strategies/transcript';

const write = (p: string, role: string, bytes = 10, mode = 'overwrite'): WriteEvidence => ({ path: p, mode, bytes, sha256: `${p.length}`.padEnd(64, 'a'), workflow_id: `run-1/${role}` });
const sh = (command: string, exit: number, role: string, out = ''): ShellEvidence => ({ command, exit_code: exit, timed_out: false, output_tail: out, workflow_id: `run-1/${role}` });

test('compaction is when the window omits entries', () => {
  expect(isCompacted(0)).toBe(false);
  expect(isCompacted(1)).toBe(true);
});

test('the author of a call is the member run role', () => {
  expect(authorOf('run-1/Developer-3')).toBe('Developer-3');
  expect(authorOf('plain')).toBe('plain');
});

test('the rebuilt context quotes the state machine position, counters, files and commands', () => {
  const text = rebuildContext(
    7,
    { position: 'Testing', fired: { 'Planning#0': 1, 'Developing#0': 2, 'Idle#0': 0 }, contract_failures: { 'Developing#0': 1 }, routes: [{ iteration: 4, agent: 'Developer', reason: 'signal "READY" from Developing (Developer)' }, { iteration: 5, agent: 'Tester', reason: 'blocked', failure: 'MissingEvidence' }] },
    [write('brief.json', 'Planner-1', 120), write('src/app.ts', 'Developer-2'), write('src/app.ts', 'Developer-4', 42, 'append')],
    [sh('npm test', 1, 'Developer-2', 'FAIL app'), sh('npm test', 0, 'Developer-4', 'ok\n3 passed')],
  );
  expect(text).toContain('7 earlier conversation entries were compacted');
  expect(text).toContain('Current state: Testing');
  expect(text).toContain('Transitions fired: Developing#0 ×2, Planning#0 ×1');
  expect(text).not.toContain('Idle#0');
  expect(text).toContain('Consecutive contract failures: Developing#0 ×1');
  expect(text).toContain('- iteration 5, Tester: blocked [MissingEvidence]');
  expect(text).toContain('## Files written (2)');
  expect(text).toContain('- brief.json: 120 bytes');
  expect(text).toContain('- src/app.ts: 42 bytes, sha256 ');
  expect(text).toContain('last append by Developer-4 (2 writes)');
  expect(text).toContain('## Commands run (2)');
  expect(text).toContain('- `npm test` by Developer-2: exit 1\n  output: FAIL app');
  expect(text).toContain('- `npm test` by Developer-4: exit 0\n  output: ok\n  3 passed');
});

test('an empty evidence log says so; one compacted entry reads in the singular', () => {
  const text = rebuildContext(1, {}, [], []);
  expect(text).toContain('1 earlier conversation entry was compacted');
  expect(text).not.toContain('## State machine');
  expect(text).toContain('## Files written (0)\n(none)');
  expect(text).toContain('## Commands run (0)\n(none)');
});

test('beyond the limits the earliest commands are counted, the latest kept, long output tailed', () => {
  const n = REBUILD_LIMITS.commands + 5;
  const shell = Array.from({ length: n }, (_, i) => sh(`step ${i}`, i % 2, 'Dev-1', i === n - 1 ? `${'x'.repeat(1000)}END` : ''));
  const text = rebuildContext(3, {}, [], shell);
  expect(text).toContain(`## Commands run (${n}), the 5 earliest not listed`);
  expect(text).not.toContain('`step 4`');
  expect(text).toContain('`step 5`');
  expect(text).toContain(`\`step ${n - 1}\``);
  expect(text).toMatch(/output: …x+END/);
  expect(text).not.toContain('x'.repeat(REBUILD_LIMITS.output_tail_chars + 1));
});

test('the rebuilt block sits after the task and before the conversation', () => {
  const text = conversationText('do it', [{ agent: 'Dev', text: 'hello', kind: 'agent' }], 30, '# Evidence kept across compaction\nX');
  expect(text.indexOf('# Task')).toBeLessThan(text.indexOf('# Evidence kept'));
  expect(text.indexOf('# Evidence kept')).toBeLessThan(text.indexOf('# Conversation so far (30 earlier entries omitted)'));
  expect(conversationText('do it', [], 0)).toBe('# Task\ndo it');
});
