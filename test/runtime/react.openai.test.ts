/**
 * The `openai` provider driven for real: the `openai` npm client in the worker's modelTurn
 * activity talks to a local OpenAI-compatible server (test/helpers/openai-server.ts) on
 * 127.0.0.1, inside react runs on the shared Temporal dev server.
 */
import { WorkflowFailedError, WorkflowHandle } from '@temporalio/client';
import { randomBytes } from 'crypto';
import type { AgentRunResult, RunStatus } from '../../src/shared/contract';
import { FakeOpenAIServer, httpError, reply, startFakeOpenAI, toolCalls } from '../helpers/openai-server';
import { historyEvents } from '../helpers/history';
import { until } from '../helpers/wait';
import type { Worker } from '@temporalio/worker';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { createActivities } from '../../src/activities';
import { agfReactWorkflow } from '../../src/workflows/react';
import type { RunAgentInput } from '../../src/shared/contract';
import { storeTestBundle, testStore } from './builders';
import { builtin, compileAgent, model as modelDefinition, type Definition, type FrontMatter } from '../helpers/definitions';

const KEY_ENV = `LOOM_TEST_OPENAI_KEY_${randomBytes(3).toString('hex').toUpperCase()}`;
const KEY = `sk-test-${randomBytes(12).toString('hex')}`;

let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let srv: FakeOpenAIServer;

beforeAll(async () => {
  process.env[KEY_ENV] = KEY;
  t = await connectTestTemporal('react-openai');
  // The harness's worker, but heartbeats reach the server within ~1 s, so an activity learns of a
  // cancellation at its next 5 s heartbeat (the default throttle is 0.8 × heartbeatTimeout = 48 s).
  worker = await createTestWorker(t, createActivities({ store: testStore() }), { maxHeartbeatThrottleInterval: '1 second' });
  running = worker.run();
});
afterAll(async () => {
  worker.shutdown();
  await running;
  await t.close();
  delete process.env[KEY_ENV];
});

async function startRun(input: RunAgentInput) {
  const wid = `${input.agent_id}-${Math.random().toString(36).slice(2, 10)}`;
  return t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: wid, args: [input] });
}
beforeEach(async () => {
  srv = await startFakeOpenAI();
});
afterEach(async () => {
  await srv.close();
});

/** The openai model definition on the fake server (`over`: fields of its openai block; `model`: other model fields). */
function openaiModel(baseUrl: string, over: FrontMatter = {}, model: FrontMatter = {}): Definition {
  return modelDefinition('oa-test', 'openai', { openai: { base_url: baseUrl, model: 'gpt-fake-1', api_key_env: KEY_ENV, request_timeout_seconds: 10, ...over }, supports_tools: true, ...model });
}

/** What a test says about its agent: every field maps to the front matter (or body) of its definition. */
interface RunSpec {
  agent_id: string;
  model?: Definition;
  tools?: Definition[];
  /** The Markdown body: the agent's instructions. */
  body?: string;
  /** The agf.react execution_policy config. */
  react?: FrontMatter;
  tool_choice?: 'none' | 'auto' | 'required';
  output_schema?: FrontMatter;
  runtime?: FrontMatter;
}

/** Fast retries (0.1 s initial interval) so a Retry-After delay is distinguishable from the backoff. */
async function run(spec: RunSpec, input: unknown = 'what is 6 times 7?') {
  const tools = spec.tools ?? [];
  const { bundle: compiled } = compileAgent({
    agent_id: spec.agent_id,
    model: spec.model ?? openaiModel(srv.baseUrl),
    tools,
    body: spec.body,
    front: {
      // No output schema unless the test gives one (an empty schema: any answer, no response_format).
      interface: { input: { schema: { type: 'string' } }, output: { schema: spec.output_schema ?? {} } },
      runtime: { retry_policy: { max_attempts: 3, backoff_seconds: 0.1 }, ...(spec.runtime ?? {}) },
      ...(spec.react ? { execution_policy: { id: 'agf.react', config: spec.react } } : {}),
      ...(spec.tool_choice ? { tools: { tool_choice: spec.tool_choice, refs: tools.map((t) => ({ ref: String(t.front.tool_id) })) } } : {}),
    },
  });
  const bundle = await storeTestBundle(compiled);
  return startRun({ bundle, agent_id: spec.agent_id, input: input as never });
}

/** The attempt number each modelTurn activity ended on (the started event records the last attempt). */
async function modelAttempts(h: { fetchHistory(): ReturnType<WorkflowHandle['fetchHistory']> }): Promise<number[]> {
  const hist = await h.fetchHistory();
  const events = hist.events ?? [];
  const modelIds = new Set(
    events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'modelTurn').map((e) => String(e.eventId)),
  );
  return events
    .filter((e) => e.activityTaskStartedEventAttributes && modelIds.has(String(e.activityTaskStartedEventAttributes.scheduledEventId)))
    .map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 0);
}

/** Every message along a failure's cause chain. */
function failureText(e: unknown): string {
  const parts: string[] = [];
  let cur = e as { message?: string; cause?: unknown; type?: string } | undefined;
  while (cur) {
    parts.push(`${cur.type ? `[${cur.type}] ` : ''}${cur.message ?? ''}`);
    cur = cur.cause as typeof cur;
  }
  return parts.join(' <- ');
}

async function failureOf(p: Promise<unknown>): Promise<{ err: unknown; text: string }> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(WorkflowFailedError);
    return { err, text: failureText(err) };
  }
  throw new Error('the run was expected to fail but completed');
}

test('tool calls (parallel) then a final answer through the openai client', async () => {
  srv.enqueue(
    toolCalls([
      { id: 'call_A', name: 'arithmetic', arguments: '{"a":6,"b":7,"op":"mul"}' },
      { id: 'call_B', name: 'arithmetic', arguments: { a: 1, b: 2, op: 'add' } },
    ]),
    reply('6 times 7 is 42'),
  );
  const h = await run({
    agent_id: 'oa-calc',
    body: '# Purpose\nMultiply numbers with the tool.\n\n# System behavior\nUse arithmetic.\n\n# Rules\n- Be exact.',
    tools: [builtin('arithmetic')],
    react: { temperature: 0.3, top_p: 0.9, stop_sequences: ['END'], max_output_tokens: 256 },
  });
  const res: AgentRunResult = await h.result();
  expect(res.output).toBe('6 times 7 is 42');

  expect(srv.requests).toHaveLength(2);
  const [first, second] = srv.requests;
  expect(first.method).toBe('POST');
  expect(first.url).toBe('/v1/chat/completions');
  expect(first.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(first.headers['openai-organization']).toBeUndefined();
  expect(first.body.model).toBe('gpt-fake-1');
  expect(first.body.messages?.[0]).toEqual({ role: 'system', content: '# Purpose\nMultiply numbers with the tool.\n\n# System behavior\nUse arithmetic.\n\n# Rules\n- Be exact.' });
  expect(first.body.messages?.[1]).toMatchObject({ role: 'user', content: expect.stringContaining('what is 6 times 7?') });
  expect(first.body.tools).toEqual([
    { type: 'function', function: { name: 'arithmetic', description: 'builtin arithmetic', parameters: builtin('arithmetic').front.input_schema } },
  ]);
  expect(first.body.tool_choice).toBe('auto');
  expect(first.body.parallel_tool_calls).toBe(true);
  expect(first.body).toMatchObject({ temperature: 0.3, top_p: 0.9, stop: ['END'], max_tokens: 256 });

  const msgs = second.body.messages ?? [];
  expect(msgs.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
  expect(msgs[2].tool_calls).toEqual([
    { id: 'call_A', type: 'function', function: { name: 'arithmetic', arguments: JSON.stringify({ a: 6, b: 7, op: 'mul' }) } },
    { id: 'call_B', type: 'function', function: { name: 'arithmetic', arguments: JSON.stringify({ a: 1, b: 2, op: 'add' }) } },
  ]);
  const results = Object.fromEntries(msgs.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]));
  expect(results).toEqual({ call_A: '42', call_B: '3' });
  expect(second.headers.authorization).toBe(`Bearer ${KEY}`);

  const st: RunStatus = await h.query('status');
  expect(st).toMatchObject({ state: 'completed', tool_calls_made: 2, turn: 2 });
});

test('429 with Retry-After: 1 is retried after the server-given delay, then succeeds', async () => {
  srv.enqueue(httpError(429, { 'Retry-After': '1' }, 'Rate limit reached'), reply('after the wait'));
  const h = await run({ agent_id: 'oa-429' });
  const res = await h.result();
  expect(res.output).toBe('after the wait');
  expect(srv.requests).toHaveLength(2);
  const gap = srv.requests[1].at - srv.requests[0].at;
  expect(gap).toBeGreaterThanOrEqual(900);
  expect(await modelAttempts(h)).toEqual([2]);
});

test('Retry-After longer than the retry policy interval sets the retry delay', async () => {
  // The server rounds the policy's 0.1 s interval up to ~1 s, so 2 s can only come from the header.
  srv.enqueue(httpError(429, { 'Retry-After': '2' }), reply('waited 2 s'));
  const h = await run({ agent_id: 'oa-429b' });
  expect((await h.result()).output).toBe('waited 2 s');
  expect(srv.requests).toHaveLength(2);
  expect(srv.requests[1].at - srv.requests[0].at).toBeGreaterThanOrEqual(1900);
});

test('401 fails at once, naming the env var, without retries or leaking the key', async () => {
  srv.enqueue(httpError(401, {}, `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.example/keys.`), reply('never'));
  const h = await run({ agent_id: 'oa-401' });
  const { text } = await failureOf(h.result());
  expect(text).toContain(KEY_ENV);
  expect(text).toMatch(/401/);
  expect(text).toContain('ModelHttp401');
  expect(text).not.toContain(KEY);
  expect(srv.requests).toHaveLength(1);
  expect(srv.pending()).toBe(1);
  expect(await modelAttempts(h)).toEqual([1]);
  // Nothing in the workflow history (payloads, failures) carries the key.
  const hist = await h.fetchHistory();
  const histText = JSON.stringify(hist, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : v));
  expect(histText).toContain(KEY_ENV); // payloads are decoded: the failure message is in there
  expect(histText).not.toContain(KEY);
  const st: RunStatus = await h.query('status');
  expect(st.state).toBe('failed');
});

test('a 500 is retried, then the run succeeds', async () => {
  srv.enqueue(httpError(500, {}, 'upstream exploded'), reply('second time lucky'));
  const h = await run({ agent_id: 'oa-500' });
  expect((await h.result()).output).toBe('second time lucky');
  expect(srv.requests).toHaveLength(2);
  expect(srv.requests[1].body.messages).toEqual(srv.requests[0].body.messages);
  expect(await modelAttempts(h)).toEqual([2]);
});

test('token usage reported by the server is summed into the run result and status', async () => {
  srv.enqueue(
    toolCalls([{ id: 'c1', name: 'echo', arguments: { text: 'hi' } }], { prompt_tokens: 123, completion_tokens: 45 }),
    reply('done', { prompt_tokens: 200, completion_tokens: 7 }),
  );
  const h = await run({ agent_id: 'oa-usage', tools: [builtin('echo')] });
  const res = await h.result();
  expect(res.usage).toEqual({ prompt_tokens: 323, completion_tokens: 52, total_tokens: 375 });
  const st: RunStatus = await h.query('status');
  expect(st.token_usage).toEqual({ prompt_tokens: 323, completion_tokens: 52, total_tokens: 375 });
});

test('invalid JSON tool arguments come back to the model as an error result', async () => {
  const raw = '{"a": 6, "b": 7, op: mul';
  srv.enqueue(toolCalls([{ id: 'bad1', name: 'arithmetic', arguments: raw }]), reply('sorry'));
  const h = await run({ agent_id: 'oa-badjson', tools: [builtin('arithmetic')] });
  expect((await h.result()).output).toBe('sorry');
  const msgs = srv.requests[1].body.messages ?? [];
  const assistant = msgs.find((m) => m.role === 'assistant');
  // The model's own text goes back verbatim, so it can see what it sent.
  expect(assistant?.tool_calls?.[0].function.arguments).toBe(raw);
  const tool = msgs.find((m) => m.role === 'tool');
  expect(tool?.tool_call_id).toBe('bad1');
  expect(tool?.content).toMatch(/^error: arguments for tool arithmetic are not a valid JSON object/);
});

test('an api_key_env that is not set fails before any request, naming the variable', async () => {
  const missing = `${KEY_ENV}_MISSING`;
  srv.enqueue(reply('never'));
  const h = await run({ agent_id: 'oa-nokey', model: openaiModel(srv.baseUrl, { api_key_env: missing }) });
  const { text } = await failureOf(h.result());
  expect(text).toContain(missing);
  expect(text).toContain('ModelCredentialMissing');
  expect(srv.requests).toHaveLength(0);
});

test('a model without api_key_env sends no Authorization header', async () => {
  srv.enqueue(reply('keyless'));
  const h = await run({ agent_id: 'oa-keyless', model: openaiModel(srv.baseUrl, { api_key_env: undefined }) });
  expect((await h.result()).output).toBe('keyless');
  expect(srv.requests).toHaveLength(1);
  expect(srv.requests[0].headers.authorization).toBeUndefined();
});

test('tool_choice none from the agent is sent with the tools', async () => {
  srv.enqueue(reply('no tools used'));
  const h = await run({ agent_id: 'oa-none', tools: [builtin('echo')], tool_choice: 'none' });
  expect((await h.result()).output).toBe('no tools used');
  expect(srv.requests[0].body.tool_choice).toBe('none');
  expect(srv.requests[0].body.parallel_tool_calls).toBeUndefined();
});

test('a request timeout is a retryable ModelTimeout', async () => {
  srv.enqueue({ kind: 'reply', content: 'too late', delay_ms: 5000 }, { kind: 'reply', content: 'too late', delay_ms: 5000 });
  const h = await run({
    agent_id: 'oa-timeout',
    model: openaiModel(srv.baseUrl, { request_timeout_seconds: 1 }),
    runtime: { retry_policy: { max_attempts: 2, backoff_seconds: 0.1 } },
  });
  const { text } = await failureOf(h.result());
  expect(text).toContain('ModelTimeout');
  expect(srv.requests).toHaveLength(2);
});

test('a refused connection is a retryable ModelConnectionError', async () => {
  const dead = await startFakeOpenAI();
  const deadUrl = dead.baseUrl;
  await dead.close();
  const h = await run({
    agent_id: 'oa-conn',
    model: openaiModel(deadUrl),
    runtime: { retry_policy: { max_attempts: 2, backoff_seconds: 0.1 } },
  });
  const { err, text } = await failureOf(h.result());
  expect(text).toContain('ModelConnectionError');
  expect(text).toContain(`cannot connect to ${deadUrl}/chat/completions`);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  // Retried up to max_attempts (2) before the run failed.
  expect(await modelAttempts(h)).toEqual([2]);
});

test('cancelling the run aborts the in-flight HTTP request (activity cancellation signal)', async () => {
  srv.enqueue({ kind: 'reply', content: 'too late', delay_ms: 25000 });
  const h = await run({ agent_id: 'oa-cancel', model: openaiModel(srv.baseUrl, { request_timeout_seconds: 30 }) });
  await until(() => (srv.requests.length === 1 ? true : undefined), 'the model request to reach the fake server', 10000);
  await h.cancel();
  await expect(h.result()).rejects.toThrow(WorkflowFailedError);
  // The request timeout is 30 s and the reply is due in 25 s: a request closed before its reply
  // was written (abortedAt) was closed by the cancellation signal, not by the timeout.
  await until(() => (srv.requests[0].abortedAt !== undefined ? true : undefined), 'the in-flight request to be aborted', 15000);
  // Cancelled, not retried: the model activity was asked to stop and no second request came.
  const ev = await historyEvents(h);
  expect(ev.some((e) => e.activityTaskCancelRequestedEventAttributes)).toBe(true);
  expect(srv.requests).toHaveLength(1);
});

test('agf.react config: instructions reach the model verbatim (before the body); provider/model preferences are reported as overridden', async () => {
  srv.enqueue(reply('done'));
  const h = await run({
    agent_id: 'oa-config',
    body: '# Purpose\nBody section.\n\n# System behavior\nAnswer.\n\n# Rules\n- Be brief.',
    react: { instructions: 'You are CONFIG-ASSISTANT.\nKeep it short.', provider: 'google', model: 'gemini-2.5-pro' },
  });
  const res = await h.result();
  expect(res.output).toBe('done');
  expect(srv.requests[0].body.messages?.[0]).toEqual({ role: 'system', content: 'You are CONFIG-ASSISTANT.\nKeep it short.\n\n# Purpose\nBody section.\n\n# System behavior\nAnswer.\n\n# Rules\n- Be brief.' });
  expect(res.warnings.join('\n')).toMatch(/config.provider 'google' is a preference: this run uses runtime.model/);
  expect(res.warnings.join('\n')).toMatch(/config.model 'gemini-2.5-pro' is a preference/);
});

test('an agent with an output schema sends it as response_format on the first request and finishes in one turn', async () => {
  const schema = { type: 'object', properties: { answer: { type: 'integer' } }, required: ['answer'], additionalProperties: false };
  srv.enqueue(reply('{"answer":42}'));
  const h = await run({ agent_id: 'oa-structured', output_schema: schema });
  const res: AgentRunResult = await h.result();
  expect(res.output).toEqual({ answer: 42 });
  expect(srv.requests).toHaveLength(1);
  expect(srv.requests[0].body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema, strict: true } });
  const st: RunStatus = await h.query('status');
  expect(st).toMatchObject({ state: 'completed', turn: 1 });
});

test('an agent without an output schema sends no response_format', async () => {
  srv.enqueue(reply('plain text'));
  const h = await run({ agent_id: 'oa-plain' });
  expect((await h.result()).output).toBe('plain text');
  expect(srv.requests).toHaveLength(1);
  expect(srv.requests[0].body).not.toHaveProperty('response_format');
});
