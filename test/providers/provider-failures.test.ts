/**
 * Rate limits and errors of the native model providers, each in the vendor's own shape from a
 * local stand-in (test/helpers/provider-servers.ts): retry hints are honoured by real runs on the
 * dev server (Anthropic's 529 `overloaded_error` with `retry-after`, Gemini's `RetryInfo`
 * `retryDelay` in the body, Azure's `retry-after-ms`, Ollama's `retry-after`, Bedrock's
 * `ThrottlingException`); a request over the context window and a content-filter refusal fail at
 * once, non-retryable, with what an operator can change; a credential never appears in a failure.
 */
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { randomBytes } from 'crypto';
import { createActivities } from '../../src/activities';
import type { ProviderRequest } from '../../src/activities/provider';
import { nativeProviders } from '../../src/activities/providers';
import { agfReactWorkflow } from '../../src/workflows/react';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { anthropic, azure, bedrock, google, ollama, startStandIn, type Answer, type StandIn } from '../helpers/provider-servers';
import { storeTestBundle, testStore } from '../runtime/builders';
import { compileAgent, model as modelDefinition, type FrontMatter } from '../helpers/definitions';
import { until } from '../helpers/wait';

const tag = randomBytes(3).toString('hex').toUpperCase();
const KEY_ENV = `LOOM_TEST_FAIL_KEY_${tag}`;
const KEY = `key-${randomBytes(12).toString('hex')}`;
const AK_ENV = `LOOM_TEST_FAIL_AK_${tag}`;
const SK_ENV = `LOOM_TEST_FAIL_SK_${tag}`;

type Name = 'anthropic' | 'google' | 'bedrock' | 'azure' | 'ollama';
const BLOCKS: Record<Name, (o: string) => object> = {
  anthropic: (o) => ({ base_url: `${o}/v1`, model: 'claude-sonnet-4-5', api_key_env: KEY_ENV }),
  google: (o) => ({ base_url: `${o}/v1beta`, model: 'gemini-2.5-flash', api_key_env: KEY_ENV }),
  bedrock: (o) => ({ base_url: o, region: 'us-east-1', model: 'amazon.nova-pro-v1:0', access_key_id_env: AK_ENV, secret_access_key_env: SK_ENV }),
  azure: (o) => ({ base_url: `${o}/openai`, deployment: 'dep', api_key_env: KEY_ENV }),
  ollama: (o) => ({ base_url: o, model: 'llama3.2' }),
};
/** An agent on the `name` provider pointed at `origin`, compiled from its model and agent definitions. */
const providerAgent = (name: Name, origin: string, agentId: string, timeoutS = 10, front: FrontMatter = {}) =>
  compileAgent({
    agent_id: agentId,
    model: modelDefinition(`${name}-test`, name, { [name]: { request_timeout_seconds: timeoutS, ...BLOCKS[name](origin) }, supports_tools: true }),
    front,
  });
const ok: Record<Name, (text: string) => Answer> = {
  anthropic: (t) => anthropic.message([{ text: t }], { input: 2, output: 2 }),
  google: (t) => google.response([{ text: t }], { input: 2, output: 2 }),
  bedrock: (t) => bedrock.converse([{ text: t }], { input: 2, output: 2 }),
  azure: (t) => azure.completion([{ text: t }], { input: 2, output: 2 }),
  ollama: (t) => ollama.chat([{ text: t }], { input: 2, output: 2 }),
};

let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let srv: StandIn;

beforeAll(async () => {
  Object.assign(process.env, { [KEY_ENV]: KEY, [AK_ENV]: 'AKIAFAILTEST', [SK_ENV]: 'fail-test-secret' });
  t = await connectTestTemporal('provider-failures');
  worker = await createTestWorker(t, createActivities({ store: testStore() }));
  running = worker.run();
});
afterAll(async () => {
  worker.shutdown();
  await running;
  await t.close();
  for (const k of [KEY_ENV, AK_ENV, SK_ENV]) delete process.env[k];
});
beforeEach(async () => {
  srv = await startStandIn();
});
afterEach(async () => {
  await srv.close();
});

async function run(name: Name) {
  const { agent: a, bundle: compiled } = providerAgent(name, srv.origin, `${name}-fail`, 10, { runtime: { retry_policy: { max_attempts: 3, backoff_seconds: 0.1 } } });
  const bundle = await storeTestBundle(compiled);
  return t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: `${a.agent_id}-${randomBytes(4).toString('hex')}`, args: [{ bundle, agent_id: a.agent_id, input: 'hello' }] });
}

/** The attempt each modelTurn activity ended on. */
async function modelAttempts(h: WorkflowHandle): Promise<number[]> {
  const events = (await h.fetchHistory()).events ?? [];
  const ids = new Set(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'modelTurn').map((e) => String(e.eventId)));
  return events.filter((e) => e.activityTaskStartedEventAttributes && ids.has(String(e.activityTaskStartedEventAttributes.scheduledEventId))).map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 0);
}

/** One direct provider call; what it throws. */
async function thrownBy(name: Name, over: Partial<ProviderRequest> = {}, timeoutS = 10): Promise<unknown> {
  const { agent: a } = providerAgent(name, srv.origin, `${name}-direct`, timeoutS);
  const req: ProviderRequest = { model: a.runtime.model, agent: a, instructions: 'x', conversation: [{ role: 'user', content: 'hello' }], tools: [], prefs: { tool_choice: 'auto' }, turn: 0, input: 'hello', ...over };
  try {
    await nativeProviders()[name](req);
  } catch (e) {
    return e;
  }
  throw new Error('the call was expected to fail');
}

/** One direct provider call; the failure it throws. */
async function failureOf(name: Name, stream = false): Promise<ApplicationFailure> {
  const e = await thrownBy(name, stream ? { onText: () => undefined } : {});
  expect(e).toBeInstanceOf(ApplicationFailure);
  return e as ApplicationFailure;
}

describe('retry hints are honoured by the run', () => {
  // Hints of 1.5 s and more: the server rounds the policy's 0.1 s backoff up to about 1 s.
  const cases: { name: Name; what: string; error: Answer; minGapMs: number; type: string }[] = [
    { name: 'anthropic', what: '529 overloaded_error, retry-after: 2', error: anthropic.error(529, 'overloaded_error', 'Overloaded', { 'retry-after': '2' }), minGapMs: 1900, type: 'ModelOverloaded' },
    {
      name: 'google',
      what: '429 RESOURCE_EXHAUSTED, RetryInfo retryDelay 2s in the body',
      error: google.error(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded', [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2s' }]),
      minGapMs: 1900,
      type: 'ModelRateLimited',
    },
    { name: 'azure', what: '429, retry-after-ms: 1500', error: azure.error(429, '429', 'Requests to the ChatCompletions_Create Operation have exceeded call rate limit.', { 'retry-after-ms': '1500', 'retry-after': '2' }), minGapMs: 1400, type: 'ModelRateLimited' },
    { name: 'ollama', what: '429, retry-after: 2', error: ollama.error(429, 'too many requests', { 'retry-after': '2' }), minGapMs: 1900, type: 'ModelRateLimited' },
    { name: 'bedrock', what: '429 ThrottlingException, retry-after: 2', error: bedrock.error(429, 'ThrottlingException', 'Too many requests, please wait before trying again.', { 'retry-after': '2' }), minGapMs: 1900, type: 'ModelRateLimited' },
  ];
  test.each(cases)('$name: $what', async (c) => {
    srv.enqueue(c.error, ok[c.name]('after the wait'));
    const h = await run(c.name);
    expect((await h.result()).output).toBe('after the wait');
    expect(srv.requests).toHaveLength(2);
    expect(srv.requests[1].at - srv.requests[0].at).toBeGreaterThanOrEqual(c.minGapMs);
    expect(await modelAttempts(h)).toEqual([2]);
    // The failure of the first attempt, as the provider classified it.
    srv.enqueue(c.error);
    const f = await failureOf(c.name);
    expect(f.type).toBe(c.type);
    expect(f.nonRetryable).toBe(false);
    expect(Number(f.nextRetryDelay)).toBeGreaterThanOrEqual(c.minGapMs);
  });
});

test("Anthropic's overloaded_error inside a stream is a retryable ModelOverloaded", async () => {
  srv.enqueue({ kind: 'sse', events: [{ event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }] });
  const f = await failureOf('anthropic', true);
  expect(f.type).toBe('ModelOverloaded');
  expect(f.nonRetryable).toBe(false);
});

describe('a request over the context window fails at once, non-retryable, saying what to change', () => {
  const cases: { name: Name; error: Answer }[] = [
    { name: 'anthropic', error: anthropic.error(400, 'invalid_request_error', 'prompt is too long: 212345 tokens > 200000 maximum') },
    { name: 'google', error: google.error(400, 'INVALID_ARGUMENT', 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).') },
    { name: 'bedrock', error: bedrock.error(400, 'ValidationException', 'Input is too long for requested model.') },
    { name: 'azure', error: azure.error(400, 'context_length_exceeded', "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.") },
  ];
  test.each(cases)('$name', async (c) => {
    srv.enqueue(c.error);
    const f = await failureOf(c.name);
    expect(f.type).toBe('ModelContextLengthExceeded');
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toMatch(/context window; shorten the input or instructions/);
  });

  test('a run fails on its first attempt', async () => {
    srv.enqueue(anthropic.error(400, 'invalid_request_error', 'prompt is too long: 212345 tokens > 200000 maximum'), ok.anthropic('never'));
    const h = await run('anthropic');
    const err = await h.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    let text = '';
    for (let cur = err as { message?: string; cause?: unknown } | undefined; cur; cur = cur.cause as typeof cur) text += ` ${cur.message ?? ''}`;
    expect(text).toContain("the conversation no longer fits the model's context window");
    expect(srv.requests).toHaveLength(1);
    expect(await modelAttempts(h)).toEqual([1]);
  });
});

describe('a content-filter refusal fails at once, non-retryable, saying what to change', () => {
  const cases: { name: Name; what: string; answer: Answer }[] = [
    {
      name: 'azure',
      what: '400 content_filter',
      answer: azure.error(400, 'content_filter', "The response was filtered due to the prompt triggering Azure OpenAI's content management policy."),
    },
    { name: 'azure', what: 'finish_reason content_filter', answer: azure.completion([], { input: 2, output: 0 }, 'content_filter') },
    { name: 'google', what: 'finishReason SAFETY', answer: google.response([], { input: 2, output: 0 }, 'SAFETY') },
    { name: 'anthropic', what: 'stop_reason refusal', answer: anthropic.message([], { input: 2, output: 0 }, 'refusal') },
  ];
  test.each(cases)('$name: $what', async (c) => {
    srv.enqueue(c.answer);
    const f = await failureOf(c.name);
    expect(f.type).toBe('ModelContentFiltered');
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toMatch(/content filter .*change the input or instructions/);
  });
});

test('a 401 names the env variable, not the key, even when the vendor echoes the key', async () => {
  srv.enqueue(anthropic.error(401, 'authentication_error', `invalid x-api-key ${KEY}`));
  const f = await failureOf('anthropic');
  expect(f.type).toBe('ModelHttp401');
  expect(f.nonRetryable).toBe(true);
  expect(f.message).toContain(KEY_ENV);
  expect(f.message).not.toContain(KEY);
});

test('an unset key variable fails before any request, naming the variable', async () => {
  const saved = process.env[KEY_ENV];
  delete process.env[KEY_ENV];
  try {
    const f = await failureOf('google');
    expect(f.type).toBe('ModelCredentialMissing');
    expect(f.message).toContain(`${KEY_ENV} (google.api_key_env)`);
    expect(srv.requests).toHaveLength(0);
  } finally {
    process.env[KEY_ENV] = saved;
  }
});

describe('request_timeout_seconds and cancellation', () => {
  test.each(['anthropic', 'ollama'] as Name[])('%s: no reply within the timeout is a retryable ModelTimeout', async (name) => {
    srv.enqueue({ ...(ok[name]('late') as Extract<Answer, { kind: 'json' }>), delay_ms: 5000 });
    const e = await thrownBy(name, {}, 1);
    expect(e).toBeInstanceOf(ApplicationFailure);
    expect((e as ApplicationFailure).type).toBe('ModelTimeout');
    expect((e as ApplicationFailure).nonRetryable).toBe(false);
    expect((e as ApplicationFailure).message).toContain('no reply within 1 s');
  });

  test.each(['google', 'ollama'] as Name[])("%s: the activity's cancellation ends the call with its own reason", async (name) => {
    srv.enqueue({ ...(ok[name]('late') as Extract<Answer, { kind: 'json' }>), delay_ms: 5000 });
    const ctl = new AbortController();
    const reason = new Error('cancelled by the activity');
    const pending = thrownBy(name, { signal: ctl.signal });
    await until(() => (srv.requests.length ? true : undefined), 'the request to arrive');
    ctl.abort(reason);
    expect(await pending).toBe(reason);
  });
});

test('a 200 whose body is not the vendor shape is a retryable ModelCallFailed', async () => {
  srv.enqueue({ kind: 'sse', events: [{ data: { unexpected: true } }] });
  const f = await failureOf('google');
  expect(f.type).toBe('ModelCallFailed');
  expect(f.nonRetryable).toBe(false);
  expect(f.message).toContain('could not be read');
});
