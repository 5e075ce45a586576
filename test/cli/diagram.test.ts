/**
 * `loom diagram` as a user runs it, against the real dev server (it sits on AgentloomClient.diagram):
 * the plain topology, the marks of a run waiting for approval with --run, a run of another agent
 * and an unknown run refused with exit 1 and one line that says why.
 */
import * as path from 'path';
import { CliHarness, DEMO_REGISTRY, EXAMPLES, STACK_TRACE, startCliHarness, statusWhen, useBuiltCli } from './harness';

const DEMO = ['--registry', DEMO_REGISTRY];

let h: CliHarness;
// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => { h = await startCliHarness('diagram'); });
afterAll(async () => h?.close());

test('loom diagram: the topology; --run marks where the run is; another agent\'s run and an unknown run exit 1', async () => {
  const plain = await h.loom(['diagram', 'trip-planner', ...DEMO]);
  expect(plain).toMatchObject({ code: 0, err: '' });
  expect(plain.out).not.toContain('classDef current');

  const started = await h.loom(['start', 'trip-planner', ...DEMO, '--input', JSON.stringify({ destination: 'Porto', nights: 2, nightly_rate_eur: 100, daily_budget_eur: 50 })]);
  expect(started).toMatchObject({ code: 0, err: '' });
  const id = started.out.trim();
  await statusWhen(h, id, 'the approval', (s) => s.pending_approvals.length === 1);

  const marked = await h.loom(['diagram', 'trip-planner', ...DEMO, '--run', id]);
  expect(marked).toMatchObject({ code: 0, err: '' });
  expect(marked.out).toContain('classDef current');

  const other = await h.loom(['diagram', 'customer-support-agent', '--registry', path.join(EXAMPLES, 'customer-support'), '--run', id]);
  expect(other).toMatchObject({ code: 1, out: '', err: `loom diagram: run ${id} is a run of 'trip-planner', not 'customer-support-agent' (write: loom diagram trip-planner --run ${id})\n` });

  const unknown = await h.loom(['diagram', 'trip-planner', ...DEMO, '--run', 'no-such-run']);
  expect(unknown).toMatchObject({ code: 1, out: '', err: 'loom diagram: no run with id no-such-run\n' });
  expect(unknown.err).not.toMatch(STACK_TRACE);
  await h.handle(id).terminate('diagram test done');
});
