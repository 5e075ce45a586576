/**
 * The run commands as a user runs them (`node bin/loom.js …` in a child process) against the real
 * dev server: run, start, status, approve, reject, pause, resume, cancel, result, list and delete,
 * with their exit codes and messages for success and each documented failure — input refused
 * before any workflow starts, misspelt options refused, and every run-control command on a run
 * that has ended saying so (issue 9).
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import * as path from 'path';
import { statusQuery } from '../../src/shared/definitions';
import { CliHarness, DEMO_REGISTRY, EXAMPLES, STACK_TRACE, json, startCliHarness, startedId, statusWhen, until, useBuiltCli } from './harness';

const DEMO = ['--registry', DEMO_REGISTRY];
const SEQUENTIAL = ['--registry', path.join(EXAMPLES, 'orchestrators', 'sequential')];
const PARALLEL = ['--registry', path.join(EXAMPLES, 'orchestrators', 'parallel')];
const PORTO = JSON.stringify({ destination: 'Porto', nights: 2, nightly_rate_eur: 100, daily_budget_eur: 50 });

/** `loom start trip-planner` and wait until its write waits for approval. */
async function startWaiting(input = PORTO): Promise<string> {
  const r = await h.loom(['start', 'trip-planner', ...DEMO, '--input', input]);
  expect(r).toMatchObject({ code: 0, err: '' });
  const id = r.out.trim();
  await statusWhen(h, id, `${id} waiting for approval`, (s) => s.pending_approvals.length === 1);
  return id;
}

/** `loom start AGENT` (prints the id) then `loom result ID` (waits): a completed run's id. */
async function startCompleted(agent: string, registry: string[]): Promise<string> {
  const r = await h.loom(['start', agent, ...registry]);
  expect(r).toMatchObject({ code: 0, err: '' });
  const id = r.out.trim();
  expect(await h.loom(['result', id])).toMatchObject({ code: 0 });
  return id;
}

let h: CliHarness;
// Runs the later tests act on, started together up front so their first turns overlap.
let ready: { reject: Promise<string>; pause: Promise<string>; cancel: Promise<string>; force: Promise<string>; pipeline: Promise<string>; planner: Promise<string> };
beforeAll(async () => {
  // Some 45 CLI processes: the built CLI (the shipped package's build of the same sources) starts several times faster than ts-node.
  await useBuiltCli();
  h = await startCliHarness('runs');
  ready = { reject: startWaiting(), pause: startWaiting(), cancel: startWaiting(), force: startWaiting(), pipeline: startCompleted('pipeline', SEQUENTIAL), planner: startCompleted('weekend-planner', PARALLEL) };
  for (const p of Object.values(ready)) p.catch(() => undefined); // each test awaits its own
}, 600_000); // the first file to ask for the built CLI packs it (test/library/pack.ts)
afterAll(async () => h?.close());

describe('loom run + approve (the demo agent)', () => {
  let id: string;

  test('run shows progress, a misspelt --args is refused, approve --args corrects the call, run exits 0 with typed JSON', async () => {
    const run = h.spawnLoom(['run', 'trip-planner', ...DEMO]);
    id = await startedId(run);
    const waiting = await statusWhen(h, id, 'the approval', (s) => s.pending_approvals.length === 1);
    const callId = waiting.pending_approvals[0].call_id;

    const st = await h.loom(['status', id]);
    expect(st.code).toBe(0);
    expect(st.out).toContain(`pending approval ${callId}: save-itinerary`);
    const stj = json(await h.loom(['status', id, '--json']));
    expect(stj).toMatchObject({ workflow_id: id, temporal_status: 'RUNNING', state: 'waiting_for_approval', agent_id: 'trip-planner' });

    // Issue 16: `--arg` used to approve with the original arguments and exit 0.
    const typo = await h.loom(['approve', id, callId, '--arg', '{"path":"typo.md","content":"x"}']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('unknown option --arg; did you mean --args?');
    expect(typo.out).toBe('');
    // Refused before it reached the run: the call is still the one pending.
    expect((await h.handle(id).query(statusQuery)).pending_approvals.map((p) => p.call_id)).toEqual([callId]);

    const bad = await h.loom(['approve', id, callId, '--args', '{not json']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--args is not valid JSON');
    const unknownCall = await h.loom(['approve', id, 'call_9_9']);
    expect(unknownCall.code).toBe(1);
    expect(unknownCall.err).toMatch(/^loom approve: refused: .*call_9_9/m);

    const ok = await h.loom(['approve', id, callId, '--args', JSON.stringify({ path: 'corrected.md', content: '# Porto\n' })]);
    expect(ok).toMatchObject({ code: 0, out: `approved ${callId} with corrected arguments\n` });

    const done = await run.done;
    expect(done.code).toBe(0);
    expect(done.err).not.toMatch(STACK_TRACE);
    expect(done.err).toContain('input (first of interface.input.examples)');
    expect(done.err).toContain('awaiting approval: save-itinerary');
    expect(done.err).toContain(`loom approve ${id} ${callId}`);
    const answer = JSON.parse(done.out);
    expect(answer).toEqual({ destination: 'Lisbon', total_cost_eur: 660, itinerary_saved: expect.objectContaining({ path: 'corrected.md', bytes_written: 8 }) });
  });

  test('on the completed run: status and result answer; approve, reject, pause, resume, cancel and respond say it is completed and exit 1', async () => {
    const st = await h.loom(['status', id]);
    expect(st.code).toBe(0);
    expect(st.out).toMatch(new RegExp(`^${id}\\s+\\S+\\s+COMPLETED`));
    expect(st.out).toContain('state: completed');
    const res = await h.loom(['result', id, '--json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.out)).toMatchObject({ total_cost_eur: 660 });

    const refusals = await Promise.all([
      h.loom(['approve', id, 'call_1_0']),
      h.loom(['reject', id, 'call_1_0', '--reason', 'late']),
      h.loom(['pause', id]),
      h.loom(['resume', id]),
      h.loom(['cancel', id]),
      h.loom(['respond', id, '--queue', 'q', '--close']),
    ]);
    const verbs = ['approve', 'reject', 'pause', 'resume', 'cancel', 'respond to'];
    refusals.forEach((r, i) => {
      expect({ verb: verbs[i], code: r.code, out: r.out, err: r.err }).toEqual({ verb: verbs[i], code: 1, out: '', err: `loom ${verbs[i].split(' ')[0]}: run ${id} is completed: nothing to ${verbs[i]}\n` });
    });
  });
});

test('loom start + reject: --reason is required, the model sees the rejection, result prints the answer', async () => {
  const id = await ready.reject;
  const noReason = await h.loom(['reject', id, 'call_1_0']);
  expect(noReason.code).toBe(2);
  expect(noReason.err).toContain('--reason is required');
  const rej = await h.loom(['reject', id, 'call_1_0', '--reason', 'no files today']);
  expect(rej).toMatchObject({ code: 0, out: 'rejected call_1_0\n' });
  const res = await h.loom(['result', id]);
  expect(res.code).toBe(0);
  expect(JSON.parse(res.out)).toEqual({ destination: 'Porto', total_cost_eur: 350, itinerary_saved: null });
});

test('loom pause / resume: the run reports paused, then goes on and completes', async () => {
  const id = await ready.pause;
  const p = await h.loom(['pause', id]);
  expect(p).toMatchObject({ code: 0, out: `pause signal sent to ${id}\n` });
  await until('loom status --json to say paused', async () => (json(await h.loom(['status', id, '--json'])).state === 'paused' ? true : undefined));
  const r = await h.loom(['resume', id]);
  expect(r).toMatchObject({ code: 0, out: `resume signal sent to ${id}\n` });
  await statusWhen(h, id, 'the run to leave paused', (s) => s.state !== 'paused');
  expect((await h.loom(['approve', id, 'call_1_0'])).code).toBe(0);
  const res = await h.loom(['result', id, '--json']);
  expect(res.code).toBe(0);
  expect(JSON.parse(res.out)).toMatchObject({ destination: 'Porto', total_cost_eur: 350 });
});

test('loom cancel: requested on a waiting run; result then fails (exit 1); a second cancel says it is cancelled', async () => {
  const id = await ready.cancel;
  const c = await h.loom(['cancel', id]);
  expect(c).toMatchObject({ code: 0, out: `cancellation requested for ${id}\n` });
  const res = await h.loom(['result', id]);
  expect(res.code).toBe(1);
  expect(res.err).toMatch(new RegExp(`^loom result: ${id} failed: .*cancel`, 'im'));
  await until('the run to close as cancelled', async () => ((await h.handle(id).describe()).status.name === 'CANCELLED' ? true : undefined));
  const again = await h.loom(['cancel', id]);
  expect(again).toMatchObject({ code: 1, err: `loom cancel: run ${id} is cancelled: nothing to cancel\n` });
  const st = await h.loom(['status', id]);
  expect(st.out).toMatch(new RegExp(`^${id}\\s+\\S+\\s+CANCELLED`));
});

test('input that fails interface.input.schema is refused before any workflow starts; misspelt --input too', async () => {
  // A task queue of its own: anything started by these commands would be listed on it.
  const env = { LOOM_TASK_QUEUE: `${h.taskQueue}-refused` };
  const refused = await h.loom(['run', 'trip-planner', ...DEMO, '--input', JSON.stringify({ destination: 'Oslo', nights: 0, nightly_rate_eur: 1, daily_budget_eur: 1 })], { env });
  expect(refused.code).toBe(1);
  expect(refused.err).toContain("input refused by trip-planner's interface.input.schema");
  expect(refused.err).toContain('/nights must be >= 1');
  const startRefused = await h.loom(['start', 'trip-planner', ...DEMO, '--input', '{"destination":"Oslo"}'], { env });
  expect(startRefused.code).toBe(1);
  expect(startRefused.err).toContain("must have required property 'nights'");
  const notJson = await h.loom(['start', 'trip-planner', ...DEMO, '--input', '{oops'], { env });
  expect(notJson.code).toBe(2); // bad JSON is a usage error, like --args/--output
  expect(notJson.err).toContain('--input is not valid JSON');
  // Issue 16: `--inptu` used to run the example input.
  const typo = await h.loom(['run', 'trip-planner', ...DEMO, '--inptu', PORTO], { env });
  expect(typo.code).toBe(2);
  expect(typo.err).toContain('unknown option --inptu; did you mean --input?');
  // The positive control on the same queue: a valid start is listed, and it is the only one.
  const ok = await h.loom(['start', 'trip-planner', ...DEMO, '--input', PORTO], { env });
  expect(ok.code).toBe(0);
  const started = await until('the valid run to be listed on its queue', async () => {
    const ids: string[] = [];
    for await (const wf of h.t.client.workflow.list({ query: `TaskQueue = '${env.LOOM_TASK_QUEUE}'` })) ids.push(wf.workflowId);
    return ids.length ? ids : undefined;
  });
  expect(started).toEqual([ok.out.trim()]);
  await h.handle(ok.out.trim()).terminate('test done');
});

test('loom list: runs with their status, filtered by agent and status, --limit; member runs only with --all', async () => {
  const id = await ready.planner;
  const rows = await until('the completed weekend-planner run in loom list', async () => {
    const r = json<{ workflow_id: string; agent_id: string; temporal_status: string; agent_status: string }[]>(await h.loom(['list', '--agent', 'weekend-planner', '--json']));
    return r.some((x) => x.workflow_id === id) ? r : undefined;
  });
  // Other files run the same example agent in the suite's namespace (the docs' runnable examples):
  // every row is that agent, and this file's run is among them, completed.
  expect(rows.every((r) => r.agent_id === 'weekend-planner')).toBe(true);
  expect(rows).toEqual(expect.arrayContaining([expect.objectContaining({ workflow_id: id, agent_id: 'weekend-planner', temporal_status: 'COMPLETED', agent_status: 'completed' })]));
  const [all, roots, one, completed, text] = await Promise.all([
    h.loom(['list', '--all', '--json', '--limit', '500']),
    h.loom(['list', '--json', '--limit', '500']),
    h.loom(['list', '--json', '--limit', '1']),
    h.loom(['list', '--status', 'completed', '--json']),
    h.loom(['list', '--agent', 'weekend-planner']),
  ]);
  expect(json<{ workflow_id: string }[]>(all).filter((r) => r.workflow_id.startsWith(`${id}/`)).length).toBe(2);
  expect(json<{ workflow_id: string }[]>(roots).filter((r) => r.workflow_id.startsWith(`${id}/`))).toEqual([]);
  expect(json<unknown[]>(one)).toHaveLength(1);
  const statuses = json<{ agent_status: string }[]>(completed).map((r) => r.agent_status);
  expect(statuses.length).toBeGreaterThan(0);
  expect(new Set(statuses)).toEqual(new Set(['completed']));
  expect(text.out).toMatch(new RegExp(`^${id}\\s+\\S+\\s+COMPLETED`, 'm'));
  const [none, badLimit, positional] = await Promise.all([h.loom(['list', '--agent', 'no-such-agent']), h.loom(['list', '--limit', 'many']), h.loom(['list', 'extra'])]);
  expect(none).toMatchObject({ code: 0, out: 'no runs\n' });
  expect(badLimit).toMatchObject({ code: 2, err: expect.stringContaining("--limit must be a positive integer (got 'many')") });
  expect(positional).toMatchObject({ code: 2, err: expect.stringContaining("unexpected argument 'extra'") });
});

test('loom delete: proven against the server — the run and its member runs are gone; a running run needs --force', async () => {
  const id = await ready.pipeline;
  const members = async () => {
    const ids: string[] = [];
    for await (const wf of h.t.client.workflow.list({ query: `WorkflowId STARTS_WITH '${id}/'` })) ids.push(wf.workflowId);
    return ids;
  };
  const before = await until('the member runs in visibility', async () => ((await members()).length >= 2 ? await members() : undefined));

  const del = await h.loom(['delete', id]);
  expect(del.code).toBe(0);
  expect(del.out).toBe(`deleted ${id} and ${before.length} member run(s)\n`);
  // "deleted" is printed once the run no longer resolves; its members went first.
  await expect(h.handle(id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  for (const wid of before) await until(`${wid} to be gone`, async () => (await h.handle(wid).describe().then(() => undefined, (e) => (e instanceof WorkflowNotFoundError ? true : undefined))));
  await until('visibility to forget the members', async () => ((await members()).length === 0 ? true : undefined));
  const gone = await h.loom(['status', id]);
  expect(gone).toMatchObject({ code: 1, err: `loom status: no run with id ${id}\n` });
  expect(await h.loom(['delete', id])).toMatchObject({ code: 1, err: `loom delete: no run with id ${id}\n` });

  const running = await ready.force;
  const refused = await h.loom(['delete', running]);
  expect(refused).toMatchObject({ code: 1, err: `loom delete: ${running} is still running: cancel it first, or pass --force\n` });
  expect((await h.handle(running).describe()).status.name).toBe('RUNNING');
  const forced = await h.loom(['delete', running, '--force']);
  expect(forced).toMatchObject({ code: 0, out: `deleted ${running}\n` });
  await expect(h.handle(running).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
});

test('commands on a run that does not exist: exit 1 "no run with id"', async () => {
  const rs = await Promise.all([['status', 'nope-1'], ['approve', 'nope-1', 'c'], ['pause', 'nope-1'], ['result', 'nope-1']].map((a) => h.loom(a)));
  for (const [i, r] of rs.entries()) expect({ i, code: r.code, err: r.err }).toEqual({ i, code: 1, err: expect.stringMatching(/^loom \w+: no run with id nope-1\n$/) });
});
