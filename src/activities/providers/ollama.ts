/**
 * The `ollama` model provider: an Ollama server's /api/chat through the official `ollama` client
 * (default http://127.0.0.1:11434; newline-delimited JSON when streamed). Tool calls come back
 * without ids, so each gets `call_t<turn>_<i>`; tool results go back as `tool` messages naming the
 * tool (`tool_name`). Structured output is Ollama's `format` (a JSON schema), on turns without tools. `api_key_env`, when
 * given, is sent as a bearer token (Ollama's hosted service, a proxy in front of a server).
 * The client reports an HTTP failure without its headers, so the fetch it is given keeps the last
 * response's status and headers for the failure mapping (a 429's `retry-after`).
 */
import { Ollama, type ChatRequest, type ChatResponse, type Message as OllamaMessage } from 'ollama';
import type { Message, ToolCall } from '../../runtime/messages';
import type { Provider, ProviderReply, ProviderRequest } from '../provider';
import { INVALID_ARGUMENTS_KEY, parseToolArguments } from '../openai';
import { structuredOutput } from './ai-sdk';
import { blockOf, callSignal, endpointOf, envCredential, envHeaders } from './common';
import { callFailure, type FailureContext, type HttpFailure } from './failures';

export const DEFAULT_OLLAMA_URL = 'http://127.0.0.1:11434';

export function toOllamaMessages(instructions: string, conversation: Message[]): OllamaMessage[] {
  const out: OllamaMessage[] = [];
  if (instructions.trim()) out.push({ role: 'system', content: instructions });
  const callNames = new Map<string, string>();
  for (const m of conversation) {
    if (m.role === 'assistant') {
      const msg: OllamaMessage = { role: 'assistant', content: m.content };
      if (m.tool_calls?.length) {
        msg.tool_calls = m.tool_calls.map((c) => {
          callNames.set(c.id, c.name);
          return { function: { name: c.name, arguments: c.arguments && !(INVALID_ARGUMENTS_KEY in c.arguments) ? c.arguments : {} } };
        });
      }
      out.push(msg);
    } else if (m.role === 'tool') out.push({ role: 'tool', content: m.content, tool_name: m.name ?? (m.tool_call_id ? callNames.get(m.tool_call_id) : undefined) ?? 'tool' });
    else out.push({ role: 'user', content: m.content });
  }
  return out;
}

export function ollamaRequest(req: ProviderRequest, model: string): ChatRequest {
  const body: ChatRequest = { model, messages: toOllamaMessages(req.instructions, req.conversation) };
  const tools = req.model.supports_tools === false || req.prefs.tool_choice === 'none' ? [] : req.tools;
  if (tools.length) body.tools = tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: (t.parameters ?? { type: 'object', properties: {} }) as never } }));
  const p = req.prefs;
  const options: ChatRequest['options'] = {};
  if (p.temperature !== undefined) options.temperature = p.temperature;
  if (p.top_p !== undefined) options.top_p = p.top_p;
  if (p.stop_sequences?.length) options.stop = p.stop_sequences;
  if (p.max_output_tokens !== undefined) options.num_predict = p.max_output_tokens;
  if (Object.keys(options).length) body.options = options;
  // A `format` constrains the whole reply to the schema, which leaves no room for a tool call:
  // sent only on turns that offer no tools.
  const schema = req.model.supports_structured_output === false ? undefined : structuredOutput(req.agent.interface?.output?.schema);
  if (schema && !body.tools) body.format = schema;
  return body;
}

function usageOf(r: Partial<ChatResponse> | undefined): ProviderReply['usage'] {
  return { prompt_tokens: r?.prompt_eval_count ?? 0, completion_tokens: r?.eval_count ?? 0 };
}

function toCall(c: { function: { name: string; arguments: unknown } }, turn: number, i: number): ToolCall {
  const args = c.function.arguments;
  return { id: `call_t${turn}_${i}`, name: c.function.name, arguments: parseToolArguments(typeof args === 'string' ? args : JSON.stringify(args ?? {})) };
}

function replyOf(text: string, calls: ToolCall[], usage: ProviderReply['usage']): ProviderReply {
  const reply: ProviderReply = { usage };
  if (calls.length) {
    reply.tool_calls = calls;
    if (text) reply.content = text;
  } else reply.content = text;
  return reply;
}

export const ollamaProvider: Provider = async (req) => {
  const cfg = blockOf(req.model, 'ollama');
  const url = endpointOf(cfg, DEFAULT_OLLAMA_URL);
  const key = cfg.api_key_env ? envCredential(req.model, 'api_key_env', cfg.api_key_env, url) : undefined;
  const sig = callSignal(cfg, req.signal);
  const seen: { last?: { status: number; headers: Record<string, string> } } = {};
  const client = new Ollama({
    host: cfg.base_url ?? DEFAULT_OLLAMA_URL,
    headers: { ...envHeaders(cfg.header_envs), ...(key ? { Authorization: `Bearer ${key}` } : {}) },
    fetch: async (input, init) => {
      const res = await fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, sig.signal]) : sig.signal });
      seen.last = { status: res.status, headers: Object.fromEntries(res.headers.entries()) };
      return res;
    },
  });
  const ctx = (): FailureContext => ({ endpoint: `ollama ${url} (model ${cfg.model})`, credentialEnv: cfg.api_key_env, secrets: key ? [key] : [], outer: req.signal, timedOut: sig.timedOut(), timeoutS: sig.timeoutS });
  const body = ollamaRequest(req, cfg.model);
  try {
    if (!req.onCall && !req.onText) {
      const res = await client.chat({ ...body, stream: false });
      const calls = (res.message?.tool_calls ?? []).map((c, i) => toCall(c, req.turn, i));
      return replyOf(res.message?.content ?? '', calls, usageOf(res));
    }
    const stream = await client.chat({ ...body, stream: true });
    let text = '';
    const calls: ToolCall[] = [];
    let final: ChatResponse | undefined;
    for await (const part of stream) {
      if (part.message?.content) {
        text += part.message.content;
        req.onText?.(part.message.content);
      }
      // Ollama sends each tool call whole, in the chunk that completes it.
      for (const c of part.message?.tool_calls ?? []) {
        const call = toCall(c, req.turn, calls.length);
        calls.push(call);
        await req.onCall?.(call);
      }
      if (part.done) final = part;
    }
    return replyOf(text, calls, usageOf(final));
  } catch (e) {
    const err = e as { name?: string; status_code?: number; error?: string; message?: string };
    const lastRes = seen.last;
    const http: HttpFailure | undefined =
      err?.name === 'ResponseError' ? { status: err.status_code, headers: lastRes && lastRes.status === err.status_code ? lastRes.headers : undefined, body: JSON.stringify({ error: err.error ?? err.message }), message: err.error ?? err.message ?? '' } : undefined;
    throw callFailure(e, ctx(), http);
  } finally {
    sig.done();
  }
};
