/**
 * Streaming pieces that need no server: the execution plan while a reply streams (calls join one
 * by one, may start before the reply ends; unknown references and cycles are judged at close), the
 * scripted provider's deterministic chunks, and how `loom run --stream` prints the store record.
 */
import { ExecutionPlan } from '../../src/runtime/execution-loop';
import type { ToolCall } from '../../src/runtime/messages';
import { scriptedChunks } from '../../src/activities/model';
import { streamPrinter } from '../../src/operator/progress';

const call = (id: string, args: Record<string, unknown> = {}): ToolCall => ({ id, name: 'echo', arguments: { text: id, ...args } as ToolCall['arguments'] });

test('a streamed call starts as soon as it arrives unblocked; a dependant waits for a call not yet arrived', () => {
  const plan = new ExecutionPlan([], {}, { streaming: true });
  expect(plan.open).toBe(true);
  plan.add(call('b', { _dependsOn: 'a' }));
  expect(plan.settle()).toEqual([]);
  expect(plan.ready()).toEqual([]);
  plan.add(call('a', { _outputPath: '$.state.x' }));
  expect(plan.ready()).toEqual(['a']);
  plan.start('a');
  expect(plan.add(call('a'))).toBe(false);
  plan.complete('a', true, 'A');
  expect(plan.ready()).toEqual(['b']);
  plan.close();
  expect(plan.open).toBe(false);
  plan.start('b');
  plan.complete('b', true);
  expect(plan.done()).toBe(true);
  expect(plan.state).toEqual({ x: 'A' });
});

test('a path dependency waits while the reply streams, and is skipped or refused only once it closes', () => {
  const plan = new ExecutionPlan([], {}, { streaming: true });
  plan.add(call('reader', { _dependsOn: '$.state.city' }));
  plan.add(call('ghost', { _dependsOn: ['nobody'] }));
  plan.add(call('self', { _dependsOn: ['self'] }));
  expect(plan.settle()).toEqual([]);
  plan.close();
  const settled = plan.settle();
  expect(settled.map((s) => [s.id, s.status])).toEqual([
    ['reader', 'refused'],
    ['ghost', 'refused'],
    ['self', 'refused'],
  ]);
  expect(settled[0].reason).toMatch(/\$\.state\.city, which is not in State and no call of this reply writes it/);
  expect(settled[1].reason).toMatch(/unknown call id\(s\) nobody/);
  expect(settled[2].reason).toMatch(/dependency cycle self -> self/);
});

test('write-once against State before the reply refuses at once; a later alternative of a success is skipped', () => {
  const plan = new ExecutionPlan([], { done: 1 }, { streaming: true });
  plan.add(call('again', { _outputPath: '$.state.done' }));
  expect(plan.settle().map((s) => [s.id, s.status])).toEqual([['again', 'refused']]);
  plan.add(call('first', { _outputPath: '$.state.pick' }));
  plan.start('first');
  plan.complete('first', true, 1);
  plan.add(call('second', { _outputPath: '$.state.pick' }));
  const s = plan.settle();
  expect(s.map((x) => [x.id, x.status])).toEqual([['second', 'skipped']]);
  expect(s[0].reason).toBe('skipped: alternative not needed, $.state.pick was already written by call first');
});

test('the scripted provider streams text in chunks of 16 characters', () => {
  expect(scriptedChunks('abcdefghijklmnopqrstu')).toEqual(['abcdefghijklmnop', 'qrstu']);
  expect(scriptedChunks('')).toEqual([]);
});

test('loom run --stream prints each new piece once; a new turn or a retried call starts a new line', () => {
  let out = '';
  const p = streamPrinter((t) => (out += t));
  p({ turn: 0, attempt: 1, text: 'Hel', done: false });
  p({ turn: 0, attempt: 1, text: 'Hello', done: false });
  p({ turn: 0, attempt: 1, text: 'Hello', done: false });
  p({ turn: 0, attempt: 1, text: 'Hello!', done: true });
  p({ turn: 0, attempt: 1, text: 'Hello!', done: true });
  p({ turn: 1, attempt: 1, text: 'Sec', done: false });
  p({ turn: 1, attempt: 2, text: 'Second', done: false });
  p(undefined);
  expect(out).toBe('Hello!\nSec\n(model call retried, attempt 2)\nSecond\n');
});
