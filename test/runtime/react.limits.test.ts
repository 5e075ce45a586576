import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { ScriptedReply } from '../../src/compiled/types';
import { storeTestBundle } from './builders';
import { builtin, compileAgent, scripted, type AgentDef } from '../helpers/definitions';

/** The agent compiled from its definitions, stored for a run. */
const stored = (a: AgentDef) => storeTestBundle(compileAgent(a).bundle);
import { Harness, startHarness } from './harness';
import { activityCompletedEventIds, activityEventIds, historyEvents } from '../helpers/history';

let H: Harness;
beforeAll(async () => {
  H = await startHarness('react-limits');
});
afterAll(async () => H.close());

async function failure(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    () => undefined,
    (e) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect(err.cause).toBeInstanceOf(ApplicationFailure);
  return err.cause as ApplicationFailure;
}

const echoForever: ScriptedReply = { tool_calls: [{ name: 'echo', arguments: { text: 'again' } }] };

test('max_steps is a hard limit', async () => {
  const h = await H.start({ bundle: await stored({ agent_id: 'steps', model: scripted({ turns: [echoForever] }), tools: [builtin('echo')], front: { execution_policy: { id: 'agf.react', config: { max_steps: 5 } } } }), agent_id: 'steps', input: 'x' });
  const f = await failure(h.result());
  expect(f.type).toBe('LimitExceeded');
  expect(f.message).toMatch(/max_steps \(5\) reached/);
  const st = await h.query('status');
  expect(st).toMatchObject({ state: 'failed', step: 6 });
});

test('runtime.max_turns is a hard limit', async () => {
  const bundle = await stored({ agent_id: 'turns', model: scripted({ turns: [echoForever] }), tools: [builtin('echo')], front: { runtime: { max_turns: 3 } } });
  const f = await failure((await H.start({ bundle, agent_id: 'turns', input: 'x' })).result());
  expect(f.message).toMatch(/max_turns \(3\)/);
});

test('max_tool_calls: calls beyond the limit are refused to the model, then tools are switched off', async () => {
  const two: ScriptedReply = { tool_calls: [{ name: 'echo', arguments: { text: 'a' } }, { name: 'echo', arguments: { text: 'b' } }] };
  const bundle = await stored({
    agent_id: 'maxcalls',
    model: scripted({ rules: [{ when: { last_message_contains: 'max_tool_calls' }, reply: { content: 'stopped: {{message}}' } }], turns: [two] }),
    tools: [builtin('echo')],
    front: { runtime: { max_tool_calls: 3 } },
  });
  const h = await H.start({ bundle, agent_id: 'maxcalls', input: 'x' });
  const res = await h.result();
  expect(res.output).toMatch(/stopped: error: runtime.max_tool_calls \(3\) reached/);
  expect((await h.query('status')) as object).toMatchObject({ tool_calls_made: 4 });
});

test('per-tool max_calls_per_run', async () => {
  const bundle = await stored({
    agent_id: 'pertool',
    model: scripted({ rules: [{ when: { last_message_contains: 'max_calls_per_run' }, reply: { content: 'limit seen' } }], turns: [echoForever] }),
    tools: [builtin('echo', { max_calls_per_run: 2 })],
  });
  const res = await (await H.start({ bundle, agent_id: 'pertool', input: 'x' })).result();
  expect(res.output).toBe('limit seen');
});

test('runtime.timeout_seconds is a workflow timer racing the loop', async () => {
  const bundle = await stored({
    agent_id: 'timeout',
    model: scripted({ turns: [{ tool_calls: [{ name: 'sleep', arguments: { ms: 20000 } }] }, { content: 'late' }] }),
    tools: [builtin('sleep')],
    front: { runtime: { timeout_seconds: 2 } },
  });
  const h = await H.start({ bundle, agent_id: 'timeout', input: 'x' });
  const f = await failure(h.result());
  expect(f.type).toBe('Timeout');
  expect(f.message).toMatch(/timeout_seconds \(2\) exceeded/);
  // The 2 s timer ended the run, not the 20 s tool call: the timer fired and the call never completed.
  const ev = await historyEvents(h);
  const timer = ev.find((e) => e.timerStartedEventAttributes);
  expect(Number(timer?.timerStartedEventAttributes?.startToFireTimeout?.seconds)).toBeLessThanOrEqual(2);
  expect(ev.some((e) => e.timerFiredEventAttributes?.startedEventId?.toString() === timer?.eventId?.toString())).toBe(true);
  expect(activityEventIds(ev, 'runTool')).toHaveLength(1);
  expect(activityCompletedEventIds(ev, 'runTool')).toEqual([]);
});

const outputSchema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'], additionalProperties: false };
/** Front matter declaring that output schema. */
const totalOutput = { interface: { input: { schema: { type: 'string' }, examples: ['x'] }, output: { schema: outputSchema } } };

test('invalid JSON for the output schema gets one correction turn', async () => {
  const bundle = await stored({
    agent_id: 'fix',
    model: scripted({
      rules: [{ when: { last_message_contains: 'not accepted' }, reply: { content: { total: 3 } } }],
      turns: [{ content: 'the total is three' }],
    }),
    front: totalOutput,
  });
  const res = await (await H.start({ bundle, agent_id: 'fix', input: 'x' })).result();
  expect(res.output).toEqual({ total: 3 });
  expect(res.warnings[0]).toMatch(/not valid JSON.*correction/);
});

test('a reply that stays invalid fails clearly, naming the schema error', async () => {
  const bundle = await stored({ agent_id: 'bad', model: scripted({ turns: [{ content: { total: 'three' } }] }), front: totalOutput });
  const f = await failure((await H.start({ bundle, agent_id: 'bad', input: 'x' })).result());
  expect(f.type).toBe('OutputSchemaError');
  expect(f.message).toMatch(/after a correction turn: the reply does not match interface.output.schema: \/total must be number/);
});

test('after the correction turn, fallback_model gets a try', async () => {
  const bundle = await stored({
    agent_id: 'fallback',
    model: scripted({ turns: [{ content: 'nope' }] }, 'primary'),
    others: [scripted({ turns: [{ content: { total: 7 } }] }, 'backup')],
    front: { ...totalOutput, runtime: { fallback_model: 'backup' } },
  });
  const res = await (await H.start({ bundle, agent_id: 'fallback', input: 'x' })).result();
  expect(res.output).toEqual({ total: 7 });
  expect(res.warnings.join('\n')).toMatch(/fallback model backup/);
});

test('when the model keeps failing past retry_policy, fallback_model takes over', async () => {
  const bundle = await stored({
    agent_id: 'outage',
    model: scripted({ turns: [{ error: { status: 503, message: 'overloaded' } }] }, 'primary'),
    others: [scripted({ turns: [{ content: { total: 9 } }] }, 'backup')],
    front: { ...totalOutput, runtime: { fallback_model: 'backup', retry_policy: { max_attempts: 2, backoff_seconds: 1 } } },
  });
  const h = await H.start({ bundle, agent_id: 'outage', input: 'x' });
  const res = await h.result();
  expect(res.output).toEqual({ total: 9 });
  expect(res.warnings.join('\n')).toMatch(/model primary failed .*503.*switching to fallback model backup/);
  const hist = await h.fetchHistory();
  const failedAttempts = (hist.events ?? []).filter((e) => e.activityTaskFailedEventAttributes).length;
  expect(failedAttempts).toBe(1); // two attempts (retry_policy.max_attempts: 2) end in one failed event
});

test('without a fallback_model, a model that keeps failing fails the run with the provider error', async () => {
  const bundle = await stored({
    agent_id: 'outage2',
    model: scripted({ turns: [{ error: { status: 503, message: 'overloaded' } }] }, 'primary'),
    front: { runtime: { retry_policy: { max_attempts: 2, backoff_seconds: 1 } } },
  });
  const err = await (await H.start({ bundle, agent_id: 'outage2', input: 'x' })).result().catch((e) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect(String(err.cause?.cause?.message ?? err.cause?.message)).toMatch(/503/);
});

test('unknown tool, schema-invalid args and tool errors go back to the model as tool results', async () => {
  const bundle = await stored({
    agent_id: 'toolerr',
    model: scripted({
      turns: [
        {
          tool_calls: [
            { name: 'launch_rockets', arguments: {} },
            { name: 'arithmetic', arguments: { a: 'one', b: 2, op: 'add' } },
            { name: 'fail', arguments: { message: 'disk on fire' } },
          ],
        },
        { content: 'done' },
      ],
    }),
    tools: [builtin('arithmetic'), builtin('fail')],
  });
  const h = await H.start({ bundle, agent_id: 'toolerr', input: 'x' });
  expect((await h.result()).output).toBe('done');
  // Read the conversation back from the message store through the last model turn's head.
  const hist = await h.fetchHistory();
  const lastModel = [...(hist.events ?? [])].reverse().find((e) => e.activityTaskCompletedEventAttributes);
  expect(lastModel).toBeDefined();
  const { MessageStore } = await import('../../src/activities/message-store');
  const { testStore } = await import('./builders');
  const payload = lastModel!.activityTaskCompletedEventAttributes!.result!.payloads![0].data!;
  const out = JSON.parse(Buffer.from(payload).toString('utf8'));
  const conv = await new MessageStore(testStore()).conversation(out.head);
  const tools = conv.filter((m) => m.role === 'tool').map((m) => m.content);
  expect(tools[0]).toMatch(/unknown tool 'launch_rockets'; available tools: arithmetic, fail/);
  expect(tools[1]).toMatch(/invalid arguments for tool arithmetic: \/a must be number/);
  expect(tools[2]).toMatch(/tool fail failed: disk on fire/);
  expect((await h.query('status')) as object).toMatchObject({ tool_calls_made: 3 });
});
