/**
 * The native model providers (anthropic, google, bedrock, azure, ollama) driven for real: react runs
 * on the shared Temporal dev server whose worker's modelTurn activity talks to a local stand-in of
 * each vendor's wire API (test/helpers/provider-servers.ts) on 127.0.0.1. For each provider: a tool
 * call in the vendor's own shape runs the tool, the result goes back in the vendor's shape, the
 * answer is the run's output and the usage its token accounting; the vendor's auth headers are
 * sent and no credential reaches the history; the streaming form (SSE, Bedrock's binary event
 * stream, Ollama's NDJSON) assembles text and calls; structured output uses the vendor's mechanism.
 */
import type { Worker } from '@temporalio/worker';
import { randomBytes } from 'crypto';
import type { CompiledModel, JsonSchema } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { createActivities } from '../../src/activities';
import type { ProviderRequest } from '../../src/activities/provider';
import { nativeProviders } from '../../src/activities/providers';
import { agfReactWorkflow } from '../../src/workflows/react';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { anthropic, azure, bedrock, google, ollama, startStandIn, type Answer, type Call, type StandIn, type StandInRequest, type Usage } from '../helpers/provider-servers';
import { agent, builtinTool, bundleOf, storeTestBundle, testStore } from '../runtime/builders';

const tag = randomBytes(3).toString('hex').toUpperCase();
const KEY_ENV = `LOOM_TEST_NATIVE_KEY_${tag}`;
const KEY = `key-${randomBytes(12).toString('hex')}`;
const AK_ENV = `LOOM_TEST_AWS_AK_${tag}`;
const SK_ENV = `LOOM_TEST_AWS_SK_${tag}`;
const AK = `AKIA${randomBytes(8).toString('hex').toUpperCase()}`;
const SK = `sk/${randomBytes(16).toString('hex')}`;

type Content = ({ text: string } | Call)[];
interface Case {
  name: 'anthropic' | 'google' | 'bedrock' | 'azure' | 'ollama';
  model(origin: string): CompiledModel;
  reply(content: Content, usage: Usage): Answer;
  stream(content: Content, usage: Usage): Answer;
  /** The request path of a plain and a streamed call. */
  path: RegExp;
  streamPath: RegExp;
  headers(r: StandInRequest): void;
  /** The tool result the second request carries, in the vendor's own shape. */
  toolResult(r: StandInRequest, call: Call): unknown;
  /** The vendor's structured-output mechanism in the request, and the reply that answers it. */
  structured(r: StandInRequest): void;
  structuredReply(value: Record<string, unknown>): Answer;
  /** Vendors without call ids (Gemini, Ollama): the id our side gives the call. */
  ids: boolean;
}

function compiled(provider: CompiledModel['provider'], block: object): CompiledModel {
  return { model_id: `${provider}-test`, version: '1.0.0', status: 'active', provider, [provider]: { request_timeout_seconds: 10, ...block }, supports_tools: true } as CompiledModel;
}

const OUTPUT_SCHEMA: JsonSchema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] };

const CASES: Case[] = [
  {
    name: 'anthropic',
    model: (o) => compiled('anthropic', { base_url: `${o}/v1`, model: 'claude-sonnet-4-5', api_key_env: KEY_ENV }),
    reply: anthropic.message,
    stream: anthropic.stream,
    path: /^\/v1\/messages$/,
    streamPath: /^\/v1\/messages$/,
    headers: (r) => {
      expect(r.headers['x-api-key']).toBe(KEY);
      expect(r.headers['anthropic-version']).toBe('2023-06-01');
      expect(r.headers.authorization).toBeUndefined();
    },
    toolResult: (r, call) => r.body.messages.flatMap((m: { content: unknown[] }) => m.content).find((c: { type?: string; tool_use_id?: string }) => c.type === 'tool_result' && c.tool_use_id === call.id),
    structured: (r) => expect(r.body.output_config).toEqual({ format: { type: 'json_schema', schema: { ...OUTPUT_SCHEMA, additionalProperties: false } } }),
    structuredReply: (v) => anthropic.message([{ text: JSON.stringify(v) }], { input: 5, output: 3 }),
    ids: true,
  },
  {
    name: 'google',
    model: (o) => compiled('google', { base_url: `${o}/v1beta`, model: 'gemini-2.5-flash', api_key_env: KEY_ENV }),
    reply: google.response,
    stream: google.stream,
    path: /^\/v1beta\/models\/gemini-2\.5-flash:generateContent$/,
    streamPath: /^\/v1beta\/models\/gemini-2\.5-flash:streamGenerateContent\?alt=sse$/,
    headers: (r) => {
      expect(r.headers['x-goog-api-key']).toBe(KEY);
      expect(r.url).not.toContain(KEY);
    },
    toolResult: (r, call) => r.body.contents.flatMap((c: { parts: unknown[] }) => c.parts).find((p: { functionResponse?: { name: string } }) => p.functionResponse?.name === call.name),
    structured: (r) => expect(r.body.generationConfig).toMatchObject({ responseMimeType: 'application/json', responseSchema: { type: 'object', properties: { answer: { type: 'number' } } } }),
    structuredReply: (v) => google.response([{ text: JSON.stringify(v) }], { input: 5, output: 3 }),
    ids: false,
  },
  {
    name: 'bedrock',
    model: (o) => compiled('bedrock', { base_url: o, region: 'eu-central-1', model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', access_key_id_env: AK_ENV, secret_access_key_env: SK_ENV }),
    reply: bedrock.converse,
    stream: bedrock.stream,
    path: /^\/model\/anthropic\.claude-3-5-sonnet-20240620-v1%3A0\/converse$/,
    streamPath: /^\/model\/anthropic\.claude-3-5-sonnet-20240620-v1%3A0\/converse-stream$/,
    headers: (r) => {
      expect(r.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${AK}/\\d{8}/eu-central-1/bedrock/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$`));
      expect(r.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    },
    toolResult: (r, call) => r.body.messages.flatMap((m: { content: unknown[] }) => m.content).find((c: { toolResult?: { toolUseId: string } }) => c.toolResult?.toolUseId === call.id),
    // Converse has no response schema: the package offers a `json` tool and requires a tool call.
    structured: (r) => {
      expect(r.body.toolConfig.tools).toContainEqual({ toolSpec: { name: 'json', description: 'Respond with a JSON object.', inputSchema: { json: OUTPUT_SCHEMA } } });
      expect(r.body.toolConfig.toolChoice).toEqual({ any: {} });
    },
    structuredReply: (v) => bedrock.converse([{ id: 'tooluse_json', name: 'json', input: v }], { input: 5, output: 3 }),
    ids: true,
  },
  {
    name: 'azure',
    model: (o) => compiled('azure', { base_url: `${o}/openai`, deployment: 'gpt4o-prod', api_version: '2024-10-21', api_key_env: KEY_ENV }),
    reply: azure.completion,
    stream: azure.stream,
    path: /^\/openai\/deployments\/gpt4o-prod\/chat\/completions\?api-version=2024-10-21$/,
    streamPath: /^\/openai\/deployments\/gpt4o-prod\/chat\/completions\?api-version=2024-10-21$/,
    headers: (r) => {
      expect(r.headers['api-key']).toBe(KEY);
      expect(r.headers.authorization).toBeUndefined();
    },
    toolResult: (r, call) => r.body.messages.find((m: { role: string; tool_call_id?: string }) => m.role === 'tool' && m.tool_call_id === call.id),
    structured: (r) => expect(r.body.response_format).toEqual({ type: 'json_schema', json_schema: { schema: OUTPUT_SCHEMA, strict: false, name: 'output' } }),
    structuredReply: (v) => azure.completion([{ text: JSON.stringify(v) }], { input: 5, output: 3 }),
    ids: true,
  },
  {
    name: 'ollama',
    model: (o) => compiled('ollama', { base_url: o, model: 'llama3.2', api_key_env: KEY_ENV }),
    reply: ollama.chat,
    stream: ollama.stream,
    path: /^\/api\/chat$/,
    streamPath: /^\/api\/chat$/,
    headers: (r) => expect(r.headers.authorization).toBe(`Bearer ${KEY}`),
    toolResult: (r, call) => r.body.messages.find((m: { role: string; tool_name?: string }) => m.role === 'tool' && m.tool_name === call.name),
    structured: (r) => expect(r.body.format).toEqual(OUTPUT_SCHEMA),
    structuredReply: (v) => ollama.chat([{ text: JSON.stringify(v) }], { input: 5, output: 3 }),
    ids: false,
  },
];

let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let srv: StandIn;

beforeAll(async () => {
  Object.assign(process.env, { [KEY_ENV]: KEY, [AK_ENV]: AK, [SK_ENV]: SK });
  t = await connectTestTemporal('native-providers');
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

async function run(model: CompiledModel, spec: { agent_id: string; tools?: ReturnType<typeof builtinTool>[]; output_schema?: JsonSchema }, streamText = false) {
  const a = agent({ model, instructions: '# Purpose\nMultiply numbers with the tool.', runtime: { retry_policy: { max_attempts: 3, backoff_seconds: 0.1 } }, ...spec });
  const bundle = await storeTestBundle(bundleOf(a));
  const input = { bundle, agent_id: a.agent_id, input: 'what is 6 times 7?' as const, ...(streamText ? { options: { stream_text: true } } : {}) };
  return t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: `${spec.agent_id}-${randomBytes(4).toString('hex')}`, args: [input] });
}

/** The history as text with every payload decoded (bytes, or base64 `data` fields). */
function historyText(hist: unknown): string {
  return JSON.stringify(hist, (k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : k === 'data' && typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : v));
}

describe.each(CASES)('$name', (c) => {
  const call: Call = { id: `${c.name}_call_1`, name: 'arithmetic', input: { a: 6, b: 7, op: 'mul' } };

  test('a tool call in the vendor shape runs the tool, its result goes back in the vendor shape, the answer is the output', async () => {
    srv.enqueue(c.reply([call], { input: 11, output: 7 }), c.reply([{ text: '6 times 7 is 42' }], { input: 23, output: 9 }));
    const h = await run(c.model(srv.origin), { agent_id: `${c.name}-calc`, tools: [builtinTool('arithmetic')] });
    const res: AgentRunResult = await h.result();
    expect(res.output).toBe('6 times 7 is 42');
    expect(res.usage).toEqual({ prompt_tokens: 34, completion_tokens: 16, total_tokens: 50 });
    expect(srv.requests).toHaveLength(2);
    for (const r of srv.requests) {
      expect(r.method).toBe('POST');
      expect(r.url).toMatch(c.path);
      c.headers(r);
    }
    const sent = c.toolResult(srv.requests[1], call);
    expect(sent).toBeDefined();
    expect(JSON.stringify(sent)).toContain('42');
    // No credential anywhere in the run's history (payloads decoded).
    const text = historyText(await h.fetchHistory());
    expect(text).toContain('6 times 7 is 42');
    for (const secret of [KEY, AK, SK]) expect(text).not.toContain(secret);
  });

  test('a run that streams its text (loom run --stream) reads the vendor stream for both turns', async () => {
    srv.enqueue(c.stream([call], { input: 11, output: 7 }), c.stream([{ text: '6 times 7 is 42' }], { input: 23, output: 9 }));
    const h = await run(c.model(srv.origin), { agent_id: `${c.name}-stream`, tools: [builtinTool('arithmetic')] }, true);
    const res: AgentRunResult = await h.result();
    expect(res.output).toBe('6 times 7 is 42');
    expect(res.usage).toEqual({ prompt_tokens: 34, completion_tokens: 16, total_tokens: 50 });
    expect(srv.requests.map((r) => c.streamPath.test(r.url))).toEqual([true, true]);
    expect(JSON.stringify(c.toolResult(srv.requests[1], call))).toContain('42');
  });

  test('structured output through the vendor mechanism', async () => {
    srv.enqueue(c.structuredReply({ answer: 42 }));
    const h = await run(c.model(srv.origin), { agent_id: `${c.name}-json`, output_schema: OUTPUT_SCHEMA });
    expect((await h.result()).output).toEqual({ answer: 42 });
    expect(srv.requests).toHaveLength(1);
    c.structured(srv.requests[0]);
  });

  test('the streamed form assembles text and calls, each call out as soon as it is complete', async () => {
    const provider = nativeProviders()[c.name];
    const req = (conversation: ProviderRequest['conversation'], onCall?: ProviderRequest['onCall']): ProviderRequest => ({
      model: c.model(srv.origin),
      agent: agent({ model: c.model(srv.origin), tools: [builtinTool('arithmetic')] }),
      instructions: 'Multiply.',
      conversation,
      tools: [{ name: 'arithmetic', description: 'builtin arithmetic', parameters: builtinTool('arithmetic').input_schema }],
      prefs: { tool_choice: 'auto' },
      turn: 0,
      input: 'q',
      onText: (d) => deltas.push(d),
      ...(onCall ? { onCall } : {}),
    });
    const deltas: string[] = [];
    const early: string[] = [];
    srv.enqueue(c.stream([{ text: 'Let me compute. ' }, call], { input: 13, output: 8 }));
    const first = await provider(req([{ role: 'user', content: 'what is 6 times 7?' }], async (tc) => void early.push(tc.name)));
    expect(srv.requests[0].url).toMatch(c.streamPath);
    c.headers(srv.requests[0]);
    expect(first.content).toBe('Let me compute. ');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Let me compute. ');
    expect(first.tool_calls).toHaveLength(1);
    expect(first.tool_calls![0]).toMatchObject({ name: 'arithmetic', arguments: call.input });
    if (c.ids) expect(first.tool_calls![0].id).toBe(call.id);
    expect(early).toEqual(['arithmetic']);
    expect(first.usage).toEqual({ prompt_tokens: 13, completion_tokens: 8 });
  });
});

test('supports_parallel_tool_calls: false and reasoning_effort reach Anthropic and Azure in their own fields', async () => {
  const P = nativeProviders();
  const ask = async (m: CompiledModel, reasoning?: 'low'): Promise<StandInRequest> => {
    await P[m.provider as 'anthropic']({
      model: m,
      agent: agent({ model: m }),
      instructions: 'x',
      conversation: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'arithmetic', description: 'd', parameters: builtinTool('arithmetic').input_schema }],
      prefs: { tool_choice: 'auto', ...(reasoning ? { reasoning_effort: reasoning } : {}) },
      turn: 0,
      input: 'hi',
    });
    return srv.requests[srv.requests.length - 1];
  };
  const [a, az] = [CASES[0], CASES[3]];
  srv.enqueue(a.reply([{ text: 'ok' }], { input: 1, output: 1 }), az.reply([{ text: 'ok' }], { input: 1, output: 1 }));
  const ra = await ask({ ...a.model(srv.origin), supports_parallel_tool_calls: false });
  expect(ra.body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
  const rz = await ask({ ...az.model(srv.origin), supports_parallel_tool_calls: false }, 'low');
  expect(rz.body).toMatchObject({ parallel_tool_calls: false, reasoning_effort: 'low' });
});

test('Gemini and Ollama get the output schema only on turns that offer no tools; Anthropic and Azure on every turn', async () => {
  const P = nativeProviders();
  const sent: Record<string, boolean[]> = {};
  for (const c of CASES.filter((x) => x.name !== 'bedrock')) {
    const m = c.model(srv.origin);
    for (const tool_choice of ['auto', 'none'] as const) {
      srv.enqueue(c.structuredReply({ answer: 42 }));
      await P[c.name]({
        model: m,
        agent: agent({ model: m, output_schema: OUTPUT_SCHEMA }),
        instructions: 'x',
        conversation: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'arithmetic', description: 'd', parameters: builtinTool('arithmetic').input_schema }],
        prefs: { tool_choice },
        turn: 0,
        input: 'hi',
      });
      const b = srv.requests[srv.requests.length - 1].body;
      (sent[c.name] ??= []).push(Boolean(b.output_config ?? b.generationConfig?.responseSchema ?? b.response_format ?? b.format));
    }
  }
  expect(sent).toEqual({ anthropic: [true, true], google: [false, true], azure: [true, true], ollama: [false, true] });
});
