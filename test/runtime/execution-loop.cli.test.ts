/**
 * The execution loop as an operator sees it (`node bin/loom.js …` against the dev server, the
 * examples/execution-loop registry): `loom status` shows the State and each call while a write waits
 * for approval, `loom approve --tool` replaces the call (refused with the reason for a tool the
 * agent does not have), and the run ends with the State in its result.
 */
import * as path from 'path';
import type { AgentRunResult } from '../../src/shared/contract';
import { CliHarness, EXAMPLES, json, startCliHarness, statusWhen, useBuiltCli } from '../cli/harness';

jest.setTimeout(180000);

const REG = ['--registry', path.join(EXAMPLES, 'execution-loop')];
let h: CliHarness;
// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => {
  h = await startCliHarness('exec-loop');
});
afterAll(async () => h?.close());

type Progress = { state: Record<string, unknown>; calls: { call_id: string; status: string; reason?: string }[] };

test('status shows State while a write waits; approve --tool replaces it; the result carries the State', async () => {
  const started = await h.loom(['start', 'order-planner', ...REG]);
  expect(started).toMatchObject({ code: 0, err: '' });
  const id = started.out.trim();
  // price ran, shipping (unblocked by $.state.price) ran, while save waits for approval
  const waiting = await statusWhen(h, id, 'shipping done while save waits', (s) => (s.progress as Progress | undefined)?.calls.find((c) => c.call_id === 'shipping')?.status === 'succeeded' && s.pending_approvals.length === 1);
  expect(waiting.pending_approvals[0]).toMatchObject({ call_id: 'save', tool: 'save-order', arguments: { path: 'order.md', content: '4 x chairs\n' } });

  const st = await h.loom(['status', id]);
  expect(st.code).toBe(0);
  expect(st.out).toContain('progress: {"state":{"price":120,"shipping":8}');
  const calls = (json(await h.loom(['status', id, '--json'])).progress as Progress).calls;
  expect(calls.map((c) => [c.call_id, c.status])).toEqual([
    ['price', 'succeeded'],
    ['shipping', 'succeeded'],
    ['save', 'running'],
    ['save-fallback', 'pending'],
  ]);

  const bad = await h.loom(['approve', id, 'save', '--tool', 'delete-everything']);
  expect(bad.code).not.toBe(0);
  expect(bad.err).toMatch(/cannot replace save with 'delete-everything': not a tool of this agent; use one of calculator, save-order, note/);
  const ok = await h.loom(['approve', id, 'save', '--tool', 'note', '--args', '{"text":"saved by hand"}']);
  expect(ok).toMatchObject({ code: 0, out: 'approved save replaced by note\n' });

  expect(await h.loom(['result', id])).toMatchObject({ code: 0 });
  const res = (await h.handle(id).result()) as AgentRunResult;
  expect(res.output).toEqual({ item: 'chairs', done: true });
  expect(res.state).toEqual({ price: 120, shipping: 8, saved: 'saved by hand' });
  expect(res.warnings.join('\n')).toMatch(/call save \(save-order\) replaced by .* with note/);
});
