/**
 * The `openai` model provider: chat completions through the `openai` npm client against any
 * OpenAI-compatible endpoint (`openai.base_url` in the model file).
 *
 * - The client's own retries are OFF (`maxRetries: 0`): Temporal owns retries. Failures are
 *   classified by `classifyFailure` (errors.ts): 429/5xx/timeouts/connection errors are retryable
 *   (`Retry-After` becomes the ApplicationFailure's `nextRetryDelay`): outages the worker waits out
 *   (src/activities/outages.ts); other 4xx are not retried.
 * - The key is read at call time from the env variable named by `openai.api_key_env`. When the
 *   model declares `api_key_env` and the variable is unset or empty, the call fails at once
 *   (non-retryable `ModelCredentialMissing`, naming the variable) without contacting the endpoint.
 *   When the model declares no `api_key_env` the endpoint is taken to need no key: a placeholder
 *   key satisfies the client and no Authorization header is sent. Ambient `OPENAI_API_KEY`,
 *   `OPENAI_ORG_ID`, `OPENAI_PROJECT_ID` and `OPENAI_BASE_URL` are never used.
 * - The key never appears in a failure message, payload or log: server messages are redacted
 *   (the key itself and anything shaped like `sk-…`), and the original client error (whose message
 *   is the server's text) is not attached as the failure's cause.
 * - Tool-call arguments the model produced that are not a JSON object are handed to the runtime
 *   as `{ [INVALID_ARGUMENTS_KEY]: { raw, error } }`; the react workflow answers such a call with
 *   an error result instead of running the tool, and the raw text is sent back verbatim as the
 *   assistant's arguments on the next turn.
 * - An agent whose `interface.output.schema` is an object schema sends it with every request as
 *   `response_format: { type: 'json_schema', json_schema: { name: 'output', schema, strict } }`
 *   (the field the native providers pass as the AI SDK's JSON response format), so the first answer
 *   can already be the structured one; `strict: true` only when the schema meets OpenAI's strict
 *   rules (`strictSchema`). A model file with `supports_structured_output: false` sends none. The
 *   react loop's correction turn remains the fallback for an answer that does not match.
 */
import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { JsonObject, JsonSchema, JsonValue } from '../compiled/types';
import type { Message, ToolCall } from '../runtime/messages';
import { classifyFailure, toApplicationFailure } from './errors';
import type { Provider, ProviderReply, ProviderRequest } from './provider';

/**
 * Marks tool-call arguments that were not a JSON object. The same literal is checked in
 * src/workflows/react.ts (workflow code cannot import this module).
 */
export const INVALID_ARGUMENTS_KEY = '__agentloom_invalid_arguments';

/** Default per-request timeout; react.ts sizes the activity's startToCloseTimeout from the same value. */
export const DEFAULT_REQUEST_TIMEOUT_S = 300;
/** Placeholder key for endpoints that need none (no Authorization header is sent with it). */
const NO_KEY = 'agentloom-no-key';
const MAX_RAW_ARGS = 4000;

/** `http://user:pw@host/v1?key=x` → `http://host/v1`: endpoints in messages carry no credentials. */
export function safeEndpoint(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString().replace(/\/+$/, '');
  } catch {
    return '(invalid base_url)';
  }
}

/** Remove the key (and anything that looks like an OpenAI-style secret) from server text. */
export function redact(text: string, key?: string): string {
  let out = text;
  if (key && key.length >= 4) out = out.split(key).join('[redacted]');
  return out.replace(/\b(sk|rk|pk)-[A-Za-z0-9_*.-]{6,}/g, '[redacted]');
}

/** Parse tool-call arguments: a JSON object, `{}` for empty text, or the invalid-arguments marker. */
export function parseToolArguments(raw: string | undefined | null): JsonObject {
  const text = raw ?? '';
  if (text.trim() === '') return {};
  let err: string;
  try {
    const v = JSON.parse(text) as JsonValue;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v;
    err = `expected a JSON object, got ${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v}`;
  } catch (e) {
    err = (e as Error).message;
  }
  return { [INVALID_ARGUMENTS_KEY]: { raw: text.length > MAX_RAW_ARGS ? `${text.slice(0, MAX_RAW_ARGS)}…` : text, error: err } };
}

function argumentsText(args: JsonObject | undefined): string {
  const bad = args?.[INVALID_ARGUMENTS_KEY];
  if (bad && typeof bad === 'object' && !Array.isArray(bad) && typeof bad.raw === 'string') return bad.raw;
  return JSON.stringify(args ?? {});
}

/** The conversation (runtime messages) as chat-completions messages, after the system message. */
export function toChatMessages(instructions: string, conversation: Message[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (instructions.trim()) out.push({ role: 'system', content: instructions });
  for (const m of conversation) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content });
    else if (m.role === 'assistant') {
      if (m.tool_calls?.length) {
        out.push({
          role: 'assistant',
          content: m.content ? m.content : null,
          tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: argumentsText(c.arguments) } })),
        });
      } else out.push({ role: 'assistant', content: m.content });
    } else if (m.tool_call_id) out.push({ role: 'tool', tool_call_id: m.tool_call_id, content: m.content });
    // A tool message without a call id cannot be sent as one: keep its text as user context.
    else out.push({ role: 'user', content: `tool ${m.name ?? ''} result: ${m.content}` });
  }
  return out;
}

/** An object output schema (the native providers' rule): text answers get no response format. */
export function objectOutputSchema(schema: JsonSchema | undefined): Record<string, unknown> | undefined {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  const s = schema as { type?: unknown; properties?: unknown };
  return s.type === 'object' || (s.type === undefined && s.properties !== undefined) ? (schema as Record<string, unknown>) : undefined;
}

/** Keywords OpenAI's strict structured outputs do not support: a schema using one is sent non-strict. */
const NON_STRICT_KEYWORDS = ['allOf', 'not', 'if', 'then', 'else', 'oneOf', 'patternProperties', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties'];

/**
 * Whether OpenAI's strict json_schema mode accepts the schema as written: every object (at any
 * depth: properties, items, anyOf, $defs/definitions) has `additionalProperties: false` and lists
 * every property in `required`, every sub-schema is typed (`type`, `anyOf`, `$ref`, `enum` or
 * `const`), and no unsupported composition keyword appears. The schema is
 * never rewritten to fit (that would change what the output check accepts): it is sent non-strict.
 */
export function strictSchema(schema: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  // A boolean or untyped (`{}`) sub-schema leaves the value open: strict mode wants each one typed.
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return false;
  const s = schema as Record<string, unknown>;
  if (NON_STRICT_KEYWORDS.some((k) => k in s)) return false;
  if (!['type', 'anyOf', '$ref', 'enum', 'const'].some((k) => k in s)) return false;
  const types = Array.isArray(s.type) ? s.type : [s.type];
  const props = s.properties && typeof s.properties === 'object' && !Array.isArray(s.properties) ? (s.properties as Record<string, unknown>) : undefined;
  if (types.includes('object') || props) {
    if (s.additionalProperties !== false) return false;
    const required = Array.isArray(s.required) ? (s.required as unknown[]) : [];
    const keys = Object.keys(props ?? {});
    if (keys.some((k) => !required.includes(k))) return false;
  }
  const subs: unknown[] = [...Object.values(props ?? {})];
  if (s.items !== undefined) subs.push(...(Array.isArray(s.items) ? s.items : [s.items]));
  if (Array.isArray(s.anyOf)) subs.push(...(s.anyOf as unknown[]));
  for (const defs of [s.$defs, s.definitions]) if (defs && typeof defs === 'object') subs.push(...Object.values(defs as Record<string, unknown>));
  return subs.every((x) => strictSchema(x, depth + 1));
}

/** `response_format` for the agent's output schema, or undefined (no object schema, or the model opts out). */
export function responseFormat(req: Pick<ProviderRequest, 'model' | 'agent'>): ChatCompletionCreateParamsNonStreaming['response_format'] {
  if (req.model.supports_structured_output === false) return undefined;
  const schema = objectOutputSchema(req.agent.interface?.output?.schema);
  if (!schema) return undefined;
  return { type: 'json_schema', json_schema: { name: 'output', schema, strict: strictSchema(schema) } };
}

/** The chat-completions request body for one turn. */
export function buildRequest(req: ProviderRequest): ChatCompletionCreateParamsNonStreaming {
  const cfg = req.model.openai!;
  const body: ChatCompletionCreateParamsNonStreaming = { model: cfg.model, messages: toChatMessages(req.instructions, req.conversation) };
  const tools: ChatCompletionTool[] =
    req.model.supports_tools === false
      ? []
      : req.tools.map((t) => ({
          type: 'function' as const,
          function: { name: t.name, description: t.description, parameters: (t.parameters ?? { type: 'object', properties: {} }) as Record<string, unknown> },
        }));
  if (tools.length) {
    body.tools = tools;
    body.tool_choice = req.prefs.tool_choice;
    if (req.prefs.tool_choice !== 'none') body.parallel_tool_calls = req.model.supports_parallel_tool_calls !== false;
  }
  const p = req.prefs;
  if (p.temperature !== undefined) body.temperature = p.temperature;
  if (p.top_p !== undefined) body.top_p = p.top_p;
  if (p.stop_sequences?.length) body.stop = p.stop_sequences;
  if (p.max_output_tokens !== undefined) body.max_tokens = p.max_output_tokens;
  if (p.reasoning_effort) body.reasoning_effort = p.reasoning_effort;
  const format = responseFormat(req);
  if (format) body.response_format = format;
  return body;
}

function failure(req: ProviderRequest, e: unknown, key: string | undefined): Error {
  const cfg = req.model.openai!;
  const endpoint = `${safeEndpoint(cfg.base_url)}/chat/completions (model ${cfg.model})`;
  const base = { endpoint, credentialEnv: cfg.api_key_env, subject: 'model' as const };
  if (e instanceof OpenAI.APIUserAbortError) {
    // Activity cancellation: rethrow the signal's reason (a CancelledFailure) so it completes as cancelled.
    if (req.signal?.aborted) return (req.signal.reason as Error) ?? e;
    return toApplicationFailure(classifyFailure({ ...base, kind: 'connection', message: 'request aborted' }));
  }
  if (e instanceof OpenAI.APIConnectionTimeoutError) return toApplicationFailure(classifyFailure({ ...base, kind: 'timeout', message: `no reply within ${cfg.request_timeout_seconds ?? DEFAULT_REQUEST_TIMEOUT_S} s` }));
  if (e instanceof OpenAI.APIConnectionError) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return toApplicationFailure(classifyFailure({ ...base, kind: 'connection', message: redact(cause?.code ?? cause?.message ?? e.message, key) }));
  }
  if (e instanceof OpenAI.APIError && typeof e.status === 'number') {
    const detail = (e.error as { message?: string } | undefined)?.message ?? e.message;
    return toApplicationFailure(classifyFailure({ ...base, kind: 'http', status: e.status, headers: e.headers, message: redact(String(detail), key) }));
  }
  // Anything else (an unparsable reply, a client bug): retryable, redacted, without the original error.
  const msg = redact(e instanceof Error ? e.message : String(e), key);
  return ApplicationFailure.create({ message: `model call to ${endpoint} failed: ${msg}`, type: 'ModelCallFailed', nonRetryable: false });
}

function toReply(res: OpenAI.Chat.Completions.ChatCompletion, turn: number): ProviderReply {
  const choice = res.choices?.[0];
  if (!choice?.message) throw new Error('the reply has no choices[0].message');
  const msg = choice.message;
  const calls: ToolCall[] = (msg.tool_calls ?? [])
    .filter((c) => c.type === undefined || c.type === 'function')
    .map((c, i) => ({ id: c.id || `call_t${turn}_${i}`, name: c.function?.name ?? '', arguments: parseToolArguments(c.function?.arguments) }));
  const content = msg.content ?? (msg.refusal ? msg.refusal : undefined);
  const reply: ProviderReply = {
    usage: { prompt_tokens: res.usage?.prompt_tokens ?? 0, completion_tokens: res.usage?.completion_tokens ?? 0 },
  };
  if (calls.length) {
    reply.tool_calls = calls;
    if (content) reply.content = content;
  } else reply.content = content ?? '';
  return reply;
}

/** Extra headers from env variables (`header_envs`); unset variables are skipped. */
function extraHeaders(headerEnvs: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, env] of Object.entries(headerEnvs ?? {})) {
    const v = process.env[env];
    if (v) out[name] = v;
  }
  return out;
}

export const openaiProvider: Provider = async (req) => {
  const cfg = req.model.openai;
  if (!cfg) throw ApplicationFailure.nonRetryable(`model ${req.model.model_id} has provider openai but no openai block`, 'ModelConfigError');
  let key: string | undefined;
  if (cfg.api_key_env) {
    key = process.env[cfg.api_key_env];
    if (!key) {
      throw ApplicationFailure.nonRetryable(
        `model ${req.model.model_id}: env ${cfg.api_key_env} (openai.api_key_env) is not set in the worker's environment; set it to the API key for ${safeEndpoint(cfg.base_url)}`,
        'ModelCredentialMissing',
      );
    }
  }
  const client = new OpenAI({
    baseURL: cfg.base_url,
    apiKey: key ?? NO_KEY,
    organization: null,
    project: null,
    maxRetries: 0,
    timeout: (cfg.request_timeout_seconds ?? DEFAULT_REQUEST_TIMEOUT_S) * 1000,
    defaultHeaders: { ...extraHeaders(cfg.header_envs), ...(key ? {} : { Authorization: null }) },
  });
  // Streaming (the Execution Loop specification): asked for by the model activity when calls or text go out as they arrive.
  if (req.onCall || req.onText) {
    try {
      return await streamReply(client, req);
    } catch (e) {
      throw failure(req, e, key);
    }
  }
  let res: OpenAI.Chat.Completions.ChatCompletion;
  try {
    res = await client.chat.completions.create(buildRequest(req), { signal: req.signal });
  } catch (e) {
    throw failure(req, e, key);
  }
  try {
    return toReply(res, req.turn);
  } catch (e) {
    throw failure(req, e, key);
  }
};

/**
 * One turn over the streaming API: text deltas go to `onText` as they arrive; a tool call is
 * complete once the stream moves on to the next call's index (or finishes), and goes to `onCall`
 * then, before the rest of the stream is read. Ids and arguments are assembled exactly as the
 * final reply reports them, so a call that went out early matches its entry in the reply.
 */
async function streamReply(client: OpenAI, req: ProviderRequest): Promise<ProviderReply> {
  const stream = await client.chat.completions.create({ ...buildRequest(req), stream: true, stream_options: { include_usage: true } }, { signal: req.signal });
  const parts: { id: string; name: string; args: string }[] = [];
  let content = '';
  let refusal = '';
  let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
  let sent = 0;
  const toCall = (i: number): ToolCall => ({ id: parts[i].id || `call_t${req.turn}_${i}`, name: parts[i].name, arguments: parseToolArguments(parts[i].args) });
  const sendUpTo = async (n: number): Promise<void> => {
    for (; sent < n; sent++) if (parts[sent]) await req.onCall?.(toCall(sent));
  };
  for await (const chunk of stream) {
    if (chunk.usage) usage = { prompt_tokens: chunk.usage.prompt_tokens ?? 0, completion_tokens: chunk.usage.completion_tokens ?? 0 };
    const choice = chunk.choices?.[0];
    const d = choice?.delta;
    if (d?.content) {
      content += d.content;
      req.onText?.(d.content);
    }
    if (d?.refusal) refusal += d.refusal;
    for (const tc of d?.tool_calls ?? []) {
      if (tc.type !== undefined && tc.type !== 'function') continue;
      await sendUpTo(tc.index);
      const p = (parts[tc.index] ??= { id: '', name: '', args: '' });
      if (tc.id) p.id = tc.id;
      if (tc.function?.name) p.name += tc.function.name;
      if (tc.function?.arguments) p.args += tc.function.arguments;
    }
    if (choice?.finish_reason) await sendUpTo(parts.length);
  }
  await sendUpTo(parts.length);
  const calls = parts.map((_, i) => toCall(i)).filter((_, i) => parts[i]);
  const text = content || refusal || undefined;
  const reply: ProviderReply = { usage: usage ?? { prompt_tokens: 0, completion_tokens: 0 } };
  if (calls.length) {
    reply.tool_calls = calls;
    if (text) reply.content = text;
  } else reply.content = text ?? '';
  return reply;
}
