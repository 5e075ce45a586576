/**
 * One adapter from an AI SDK language model (the LanguageModelV3 interface every `@ai-sdk/*`
 * provider implements) to our Provider: the conversation becomes the SDK's prompt (tool results
 * in the shape the vendor expects is the vendor package's job), tools become function tools,
 * `interface.output.schema` becomes the SDK's JSON response format (each vendor package turns it
 * into its own structured-output mechanism), and the reply comes back as text, tool calls and
 * usage. The model is called directly (`doGenerate` / `doStream`), not through `generateText`:
 * the SDK's own retries and tool execution stay out, Temporal retries and the react loop runs tools.
 * Each vendor is a small factory (anthropic.ts, google.ts, bedrock.ts, azure.ts) that opens the
 * model with the key read from the model file's env variable.
 */
import type {
  JSONSchema7,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FinishReason,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultPart,
  LanguageModelV3Usage,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import type { JsonSchema } from '../../compiled/types';
import type { Message, ToolCall } from '../../runtime/messages';
import type { Provider, ProviderReply, ProviderRequest } from '../provider';
import { INVALID_ARGUMENTS_KEY, parseToolArguments } from '../openai';
import { providerBlock } from '../../runtime/provider-config';
import { callSignal } from './common';
import { callFailure, contentFiltered, type FailureContext, type HttpFailure } from './failures';

/** What a vendor factory opens for one call. */
export interface OpenedModel {
  model: LanguageModelV3;
  /** For messages: vendor, endpoint and model name, without credentials. */
  endpoint: string;
  credentialEnv?: string;
  /** Credential values used by this call (redacted from every message). */
  secrets: string[];
  /** Vendor options (e.g. Azure's non-strict JSON schema). */
  providerOptions?: SharedV3ProviderOptions;
  /**
   * False when the vendor cannot combine its structured output with function calling (Gemini's
   * JSON response mode): the schema is then sent only on turns that offer no tools.
   */
  structuredWithTools?: boolean;
}

function toolResultPart(m: Message, name: string): LanguageModelV3ToolResultPart {
  return { type: 'tool-result', toolCallId: m.tool_call_id!, toolName: name, output: m.is_error ? { type: 'error-text', value: m.content } : { type: 'text', value: m.content } };
}

/** The conversation as the SDK's prompt; consecutive tool results go back in one tool message. */
export function toPrompt(instructions: string, conversation: Message[]): LanguageModelV3Prompt {
  const out: LanguageModelV3Message[] = [];
  if (instructions.trim()) out.push({ role: 'system', content: instructions });
  const callNames = new Map<string, string>();
  for (const m of conversation) {
    if (m.role === 'user') out.push({ role: 'user', content: [{ type: 'text', text: m.content }] });
    else if (m.role === 'assistant') {
      const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
      if (m.content) content.push({ type: 'text', text: m.content });
      for (const c of m.tool_calls ?? []) {
        callNames.set(c.id, c.name);
        // Arguments that were not a JSON object go back as an empty object: the vendor APIs take only objects.
        const input = c.arguments && !(INVALID_ARGUMENTS_KEY in c.arguments) ? c.arguments : {};
        content.push({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input });
      }
      if (content.length) out.push({ role: 'assistant', content });
    } else if (m.tool_call_id) {
      const part = toolResultPart(m, m.name ?? callNames.get(m.tool_call_id) ?? 'tool');
      const last = out[out.length - 1];
      if (last?.role === 'tool') last.content.push(part);
      else out.push({ role: 'tool', content: [part] });
    } else out.push({ role: 'user', content: [{ type: 'text', text: `tool ${m.name ?? ''} result: ${m.content}` }] });
  }
  return out;
}

/** An object output schema is asked for through the vendor's structured output; text answers are not. */
export function structuredOutput(schema: JsonSchema | undefined): JSONSchema7 | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  const s = schema as { type?: unknown; properties?: unknown };
  return s.type === 'object' || (s.type === undefined && s.properties !== undefined) ? (schema as JSONSchema7) : undefined;
}

export function callOptions(req: ProviderRequest, signal: AbortSignal, providerOptions?: SharedV3ProviderOptions, structuredWithTools = true): LanguageModelV3CallOptions {
  const opts: LanguageModelV3CallOptions = { prompt: toPrompt(req.instructions, req.conversation), abortSignal: signal };
  const tools = req.model.supports_tools === false ? [] : req.tools;
  if (tools.length) {
    opts.tools = tools.map((t) => ({ type: 'function' as const, name: t.name, description: t.description, inputSchema: (t.parameters ?? { type: 'object', properties: {} }) as JSONSchema7 }));
    opts.toolChoice = { type: req.prefs.tool_choice };
  }
  const p = req.prefs;
  if (p.temperature !== undefined) opts.temperature = p.temperature;
  if (p.top_p !== undefined) opts.topP = p.top_p;
  if (p.stop_sequences?.length) opts.stopSequences = p.stop_sequences;
  if (p.max_output_tokens !== undefined) opts.maxOutputTokens = p.max_output_tokens;
  // A model file's `supports_structured_output: false` sends no schema (the correction turn asks instead), as for openai.
  const schema = req.model.supports_structured_output === false ? undefined : structuredOutput(req.agent.interface?.output?.schema);
  if (schema && (structuredWithTools || !opts.tools || req.prefs.tool_choice === 'none')) opts.responseFormat = { type: 'json', schema, name: 'output' };
  if (providerOptions) opts.providerOptions = providerOptions;
  return opts;
}

export function usageOf(u: LanguageModelV3Usage | undefined): ProviderReply['usage'] {
  return { prompt_tokens: u?.inputTokens?.total ?? 0, completion_tokens: u?.outputTokens?.total ?? 0 };
}

function replyOf(text: string, calls: ToolCall[], usage: ProviderReply['usage']): ProviderReply {
  const reply: ProviderReply = { usage };
  if (calls.length) {
    reply.tool_calls = calls;
    if (text) reply.content = text;
  } else reply.content = text;
  return reply;
}

/** The parts of the SDK's APICallError (checked by shape: the class lives in a package we do not load). */
function httpOf(e: unknown): HttpFailure | undefined {
  const x = e as { name?: string; statusCode?: number; responseHeaders?: Record<string, string>; responseBody?: string; message?: string; data?: unknown } | undefined;
  if (!x || x.name !== 'AI_APICallError') {
    // An error event inside a stream (e.g. Anthropic's `overloaded_error`) arrives as the event or its `error`.
    const ev = e as { type?: string; message?: string; error?: { type?: string; message?: string } } | undefined;
    const inner = ev?.type === 'error' && ev.error?.type ? ev.error : ev;
    if (inner?.type && inner.type !== 'error' && !(e instanceof Error)) {
      return { status: inner.type === 'overloaded_error' ? 529 : undefined, body: JSON.stringify({ error: inner }), message: inner.message ?? inner.type };
    }
    return undefined;
  }
  return { status: x.statusCode, headers: x.responseHeaders, body: x.responseBody, message: x.message ?? '' };
}

function finishCheck(finish: LanguageModelV3FinishReason | undefined, text: string, calls: ToolCall[], ctx: FailureContext): void {
  if (finish?.unified === 'content-filter' && !calls.length) throw contentFiltered(ctx.endpoint, `finish reason ${finish.raw ?? 'content-filter'}${text ? '' : ', no text'}`);
}

/** A Provider over the model `open` returns for each call. */
export function aiSdkProvider(open: (req: ProviderRequest) => Promise<OpenedModel>): Provider {
  return async (req) => {
    const m = await open(req);
    const sig = callSignal(providerBlock(req.model) ?? {}, req.signal);
    const ctx = (): FailureContext => ({ endpoint: m.endpoint, credentialEnv: m.credentialEnv, secrets: m.secrets, outer: req.signal, timedOut: sig.timedOut(), timeoutS: sig.timeoutS });
    const opts = callOptions(req, sig.signal, m.providerOptions, m.structuredWithTools);
    try {
      if (req.onCall || req.onText) return await streamed(m.model, opts, req, ctx);
      const res = await m.model.doGenerate(opts);
      let text = '';
      const calls: ToolCall[] = [];
      for (const c of res.content) {
        if (c.type === 'text') text += c.text;
        else if (c.type === 'tool-call' && !c.providerExecuted) calls.push({ id: c.toolCallId || `call_t${req.turn}_${calls.length}`, name: c.toolName, arguments: parseToolArguments(c.input) });
      }
      finishCheck(res.finishReason, text, calls, ctx());
      return replyOf(text, calls, usageOf(res.usage));
    } catch (e) {
      throw callFailure(e, ctx(), httpOf(e));
    } finally {
      sig.done();
    }
  };
}

/**
 * The streaming form: text deltas go to `onText` as they arrive, and each tool call goes to
 * `onCall` as soon as the SDK reports it complete, before the stream is read further.
 */
async function streamed(model: LanguageModelV3, opts: LanguageModelV3CallOptions, req: ProviderRequest, ctx: () => FailureContext): Promise<ProviderReply> {
  const { stream } = await model.doStream(opts);
  let text = '';
  const calls: ToolCall[] = [];
  let usage: LanguageModelV3Usage | undefined;
  let finish: LanguageModelV3FinishReason | undefined;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === 'text-delta') {
        text += value.delta;
        req.onText?.(value.delta);
      } else if (value.type === 'tool-call' && !value.providerExecuted) {
        const call = { id: value.toolCallId || `call_t${req.turn}_${calls.length}`, name: value.toolName, arguments: parseToolArguments(value.input) };
        calls.push(call);
        await req.onCall?.(call);
      } else if (value.type === 'finish') {
        usage = value.usage;
        finish = value.finishReason;
      } else if (value.type === 'error') throw value.error;
    }
  } finally {
    reader.releaseLock();
  }
  finishCheck(finish, text, calls, ctx());
  return replyOf(text, calls, usageOf(usage));
}
