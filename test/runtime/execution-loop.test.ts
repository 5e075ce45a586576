/**
 * Seed 003's execution loop on a real dev server (runtime.execution_loop: dependencies): calls of
 * one reply start as their `_dependsOn` are met, `_outputPath` results land in the write-once
 * State, alternatives apply once, approval waits do not hold up independent calls, and an
 * operator can replace a call at approval. Order is proven from the recorded history, never timing.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { JsonObject, ScriptedReply } from '../../src/compiled/types';
import type { ApproveArgs, RunStatus } from '../../src/shared/contract';
import { storeTestBundle } from './builders';
import { builtin, compileAgent, scripted } from '../helpers/definitions';
import { Harness, startHarness, waitForStatus } from './harness';
import { historyEvents, HistoryEvent } from '../helpers/history';

jest.setTimeout(120000);

let H: Harness;
beforeAll(async () => {
  H = await startHarness('exec-loop');
});
afterAll(async () => H.close());

type Call = { id: string; name: string; arguments: JsonObject };

/** An agent on the dependencies loop whose model replies `turns` in order, then repeats the last. */
function loopAgent(id: string, turns: ScriptedReply[], approval: string[] = []) {
  return compileAgent({
    agent_id: id,
    model: scripted({ turns }),
    tools: ['echo', 'sleep', 'fail', 'arithmetic'].map((t) => builtin(t, { approval_required: approval.includes(t) })),
    front: { runtime: { execution_loop: 'dependencies' } },
  }).bundle;
}

async function start(id: string, turns: ScriptedReply[], approval: string[] = []): Promise<WorkflowHandle> {
  const bundle = await storeTestBundle(loopAgent(id, turns, approval));
  return H.start({ bundle, agent_id: id, input: 'go' });
}

const decode = (p: { data?: Uint8Array | null } | undefined): Record<string, unknown> => JSON.parse(Buffer.from(p?.data ?? []).toString('utf8'));

/** Per call id: the event ids at which its runTool was scheduled and completed. */
function toolTimeline(events: HistoryEvent[]): Record<string, { scheduled: number; completed?: number }> {
  const byScheduled = new Map<number, string>();
  const out: Record<string, { scheduled: number; completed?: number }> = {};
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s && s.activityType?.name === 'runTool') {
      const callId = String(decode(s.input?.payloads?.[0]).call_id);
      byScheduled.set(Number(e.eventId), callId);
      out[callId] = { scheduled: Number(e.eventId) };
    }
    const c = e.activityTaskCompletedEventAttributes;
    if (c && byScheduled.has(Number(c.scheduledEventId))) out[byScheduled.get(Number(c.scheduledEventId))!].completed = Number(e.eventId);
  }
  return out;
}

test('a diamond of dependencies runs in dependency order with the two branches concurrent; an independent call starts at once', async () => {
  const plan: Call[] = [
    { id: 'a', name: 'sleep', arguments: { ms: 300 } },
    { id: 'b', name: 'sleep', arguments: { ms: 400, _dependsOn: ['a'] } },
    { id: 'c', name: 'sleep', arguments: { ms: 400, _dependsOn: 'a' } },
    { id: 'd', name: 'echo', arguments: { text: 'joined', _dependsOn: ['b', 'c'], _outputPath: '$.state.joined' } },
    { id: 'e', name: 'echo', arguments: { text: 'independent' } },
  ];
  const h = await start('diamond', [{ tool_calls: plan }, { content: 'done: {{last_tool_result}}' }]);
  const res = await h.result();
  expect(res.output).toBe('done: independent');
  expect(res.state).toEqual({ joined: 'joined' });
  const t = toolTimeline(await historyEvents(h));
  // a and e are scheduled together, before anything completed
  expect(Math.max(t.a.scheduled, t.e.scheduled)).toBeLessThan(Math.min(t.a.completed!, t.e.completed!));
  // b and c only after a completed, and both before either completed (concurrent)
  expect(Math.min(t.b.scheduled, t.c.scheduled)).toBeGreaterThan(t.a.completed!);
  expect(Math.max(t.b.scheduled, t.c.scheduled)).toBeLessThan(Math.min(t.b.completed!, t.c.completed!));
  // d only after both b and c completed
  expect(t.d.scheduled).toBeGreaterThan(Math.max(t.b.completed!, t.c.completed!));
  // the arguments the tool saw have no reserved keys
  const ev = await historyEvents(h);
  const dArgs = ev.map((e) => e.activityTaskScheduledEventAttributes).filter((s) => s?.activityType?.name === 'runTool').map((s) => decode(s!.input?.payloads?.[0])).find((i) => i.call_id === 'd')!.args;
  expect(dArgs).toEqual({ text: 'joined' });
});

test('a failed dependency skips its dependants (never run) with a reason the model sees', async () => {
  const h = await start('skip', [
    {
      tool_calls: [
        { id: 'f', name: 'fail', arguments: { message: 'disk full' } },
        { id: 'g', name: 'echo', arguments: { text: 'never', _dependsOn: ['f'] } },
        { id: 'h', name: 'echo', arguments: { text: 'never either', _dependsOn: 'g' } },
      ],
    },
    { content: 'model saw: {{last_tool_result}}' },
  ]);
  const res = await h.result();
  expect(res.output).toBe('model saw: error: skipped: dependency g was skipped');
  expect(Object.keys(toolTimeline(await historyEvents(h)))).toEqual(['f']);
});

test('cycles and unknown references are refused with a clear message; the rest of the reply runs', async () => {
  const h = await start('refuse', [
    {
      tool_calls: [
        { id: 'ok', name: 'echo', arguments: { text: 'fine' } },
        { id: 'x', name: 'echo', arguments: { text: 'x', _dependsOn: 'y' } },
        { id: 'y', name: 'echo', arguments: { text: 'y', _dependsOn: 'x' } },
        { id: 'u', name: 'echo', arguments: { text: 'u', _dependsOn: ['nope'] } },
      ],
    },
    { content: 'model saw: {{last_tool_result}}' },
  ]);
  const res = await h.result();
  expect(res.output).toBe('model saw: error: _dependsOn names unknown call id(s) nope; calls of this reply: ok, x, y (State paths are written `$.state.<name>`)');
  expect(Object.keys(toolTimeline(await historyEvents(h)))).toEqual(['ok']);
});

test('State is write-once: a second write to an _outputPath in a later reply is refused and the model is told', async () => {
  const h = await start('write-once', [
    { tool_calls: [{ id: 'w1', name: 'arithmetic', arguments: { a: 6, b: 7, op: 'mul', _outputPath: '$.state.answer' } }] },
    { tool_calls: [{ id: 'w2', name: 'arithmetic', arguments: { a: 1, b: 1, op: 'add', _outputPath: '$.state.answer' } }] },
    { content: 'model saw: {{last_tool_result}}' },
  ]);
  const res = await h.result();
  expect(res.output).toBe('model saw: error: $.state.answer is already written and State is write-once; choose a new _outputPath or read the value from State');
  expect(res.state).toEqual({ answer: 42 });
  expect(Object.keys(toolTimeline(await historyEvents(h)))).toEqual(['w1']);
});

test('alternatives on one path: the first fails, the second wins', async () => {
  const h = await start('alt-fail', [
    {
      tool_calls: [
        { id: 'p1', name: 'fail', arguments: { message: 'primary down', _outputPath: '$.state.source' } },
        { id: 'p2', name: 'echo', arguments: { text: 'backup', _outputPath: '$.state.source' } },
      ],
    },
    { content: 'model saw: {{last_tool_result}}' },
  ]);
  const res = await h.result();
  expect(res.state).toEqual({ source: 'backup' });
  expect(res.output).toBe('model saw: backup');
  const t = toolTimeline(await historyEvents(h));
  // one at a time: the backup starts only after the primary ended
  expect(t.p2.scheduled).toBeGreaterThan(t.p1.completed!);
});

test('alternatives on one path where both would succeed: only the first applies, the other never runs', async () => {
  const h = await start('alt-both', [
    {
      tool_calls: [
        { id: 'q1', name: 'echo', arguments: { text: 'first', _outputPath: '$.state.pick' } },
        { id: 'q2', name: 'echo', arguments: { text: 'second', _outputPath: '$.state.pick' } },
      ],
    },
    { content: 'model saw: {{last_tool_result}}' },
  ]);
  const res = await h.result();
  expect(res.state).toEqual({ pick: 'first' });
  expect(res.output).toBe('model saw: error: skipped: alternative not needed, $.state.pick was already written by call q1');
  expect(Object.keys(toolTimeline(await historyEvents(h)))).toEqual(['q1']);
});

test('a completed call unblocks its dependant while another call of the same reply still waits for approval; State shows in status', async () => {
  const h = await start(
    'reactive',
    [
      {
        tool_calls: [
          { id: 'risky', name: 'arithmetic', arguments: { a: 2, b: 3, op: 'add', _outputPath: '$.state.sum' } },
          { id: 'e1', name: 'echo', arguments: { text: 'hello', _outputPath: '$.state.greeting' } },
          { id: 'e2', name: 'echo', arguments: { text: 'after hello', _dependsOn: '$.state.greeting' } },
        ],
      },
      { content: 'done' },
    ],
    ['arithmetic'],
  );
  // e2 depends on e1's State write; it completes while `risky` is still pending approval.
  const st = await waitForStatus(h, (s) => progressCall(s, 'e2')?.status === 'succeeded', 60000);
  expect(st.pending_approvals.map((p) => p.call_id)).toEqual(['risky']);
  expect(st.state).toBe('waiting_for_approval');
  expect((st.progress as { state: JsonObject }).state).toEqual({ greeting: 'hello' });
  expect(progressCall(st, 'risky')?.status).toBe('running');
  const before = toolTimeline(await historyEvents(h));
  expect(before.e2.completed).toBeDefined();
  expect(before.risky).toBeUndefined();
  await h.executeUpdate('approveCall', { args: [{ call_id: 'risky' } satisfies ApproveArgs] });
  const res = await h.result();
  expect(res.state).toEqual({ greeting: 'hello', sum: 5 });
});

test('an operator replaces a call at approval with another tool: validated, recorded in history, the model is told', async () => {
  const h = await start(
    'replace',
    [
      { tool_calls: [{ id: 'r1', name: 'arithmetic', arguments: { a: 1, b: 2, op: 'add', _outputPath: '$.state.result' } }] },
      { content: 'model saw: {{message}}' },
    ],
    ['arithmetic'],
  );
  await waitForStatus(h, (s) => s.pending_approvals.length === 1, 60000);
  expect(await refusal(h.executeUpdate('approveCall', { args: [{ call_id: 'r1', tool: 'rm_rf', args: {} } satisfies ApproveArgs] }))).toMatch(/cannot replace r1 with 'rm_rf': not a tool of this agent; use one of echo, sleep, fail, arithmetic/);
  expect(await refusal(h.executeUpdate('approveCall', { args: [{ call_id: 'r1', tool: 'echo', args: { words: 1 } } satisfies ApproveArgs] }))).toMatch(/replacement echo refused for r1: invalid arguments for tool echo/);
  const ok = await h.executeUpdate('approveCall', { args: [{ call_id: 'r1', tool: 'echo', args: { text: 'replaced' }, by: 'ops' } satisfies ApproveArgs] });
  expect(ok).toBe('approved r1 replaced by echo');
  const res = await h.result();
  expect(res.state).toEqual({ result: 'replaced' });
  expect(res.output).toBe('model saw: ops replaced your call r1 (arithmetic {"a":1,"b":2,"op":"add"}) with echo {"text":"replaced"}; the result of r1 is the result of echo');
  const ev = await historyEvents(h);
  const runs = ev.map((e) => e.activityTaskScheduledEventAttributes).filter((s) => s?.activityType?.name === 'runTool').map((s) => decode(s!.input?.payloads?.[0]));
  expect(runs.map((r) => [r.call_id, r.tool, r.args])).toEqual([['r1', 'echo', { text: 'replaced' }]]);
  const accepted = ev.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).map((e) => decode(e.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest?.input?.args?.payloads?.[0]));
  // the refused correction was accepted then failed by its argument check (as corrected arguments are); the replacement is the last update
  expect(accepted.at(-1)).toEqual({ call_id: 'r1', tool: 'echo', args: { text: 'replaced' }, by: 'ops' });
});

/** The reason an update was refused (it must be refused). */
async function refusal(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(WorkflowUpdateFailedError);
  return String((e as WorkflowUpdateFailedError).cause?.message);
}

test('State is carried across continue-as-new: a later execution reads it, still refuses a second write, and returns it whole', async () => {
  const bundle = await storeTestBundle(
    loopAgent('can-state', [
      { tool_calls: [{ id: 's1', name: 'echo', arguments: { text: 'one', _outputPath: '$.state.one' } }] },
      { tool_calls: [{ id: 's2', name: 'echo', arguments: { text: 'two', _dependsOn: '$.state.one', _outputPath: '$.state.two' } }] },
      { tool_calls: [{ id: 's3', name: 'echo', arguments: { text: 'again', _outputPath: '$.state.one' } }] },
      { content: 'model saw: {{last_tool_result}}' },
    ]),
  );
  const h = await H.start({ bundle, agent_id: 'can-state', input: 'go', carried: { continue_as_new_every: 1 } });
  const res = await h.result();
  expect(res.state).toEqual({ one: 'one', two: 'two' });
  expect(res.output).toBe('model saw: error: $.state.one is already written and State is write-once; choose a new _outputPath or read the value from State');
  expect((await h.describe()).runId).not.toBe(h.firstExecutionRunId);
});

function progressCall(s: RunStatus, id: string): { status: string } | undefined {
  return (s.progress as { calls?: { call_id: string; status: string }[] } | undefined)?.calls?.find((c) => c.call_id === id);
}
