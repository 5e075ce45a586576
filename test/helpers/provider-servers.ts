/**
 * Local stand-ins of the native model providers' wire APIs for tests: one node http server on
 * 127.0.0.1 (port 0) serving a queue of answers and recording every request (headers, raw and
 * parsed body), and builders of each vendor's own reply shapes — Anthropic Messages (JSON and
 * SSE), Gemini generateContent (JSON and SSE), Bedrock Converse (JSON and the binary AWS event
 * stream, encoded with the codec the Bedrock client decodes with), Azure OpenAI chat completions
 * (JSON and SSE) and Ollama /api/chat (JSON and newline-delimited JSON).
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

export interface StandInRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
  at: number;
}

export type Answer =
  /** `delay_ms`: answer only after this long (timeouts, cancellation). */
  | { kind: 'json'; status?: number; headers?: Record<string, string>; body: unknown; delay_ms?: number }
  /** Server-sent events: each item is one event's data (an object is JSON); `event:` names it when given. */
  | { kind: 'sse'; events: { event?: string; data: unknown }[] }
  | { kind: 'ndjson'; lines: unknown[] }
  | { kind: 'binary'; contentType: string; frames: Uint8Array[] };

export interface StandIn {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: StandInRequest[];
  enqueue(...a: Answer[]): void;
  pending(): number;
  close(): Promise<void>;
}

export async function startStandIn(): Promise<StandIn> {
  const queue: Answer[] = [];
  const requests: StandInRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw, body, at: Date.now() });
      const a = queue.shift();
      if (!a) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'stand-in: no answer queued' } }));
        return;
      }
      if (a.kind === 'json') {
        const answer = (): void => {
          if (res.destroyed) return;
          res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...(a.headers ?? {}) });
          res.end(JSON.stringify(a.body));
        };
        if (a.delay_ms) {
          const timer = setTimeout(answer, a.delay_ms);
          res.on('close', () => clearTimeout(timer));
        } else answer();
      } else if (a.kind === 'sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const e of a.events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`);
        res.end();
      } else if (a.kind === 'ndjson') {
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        for (const l of a.lines) res.write(`${JSON.stringify(l)}\n`);
        res.end();
      } else {
        res.writeHead(200, { 'content-type': a.contentType });
        for (const f of a.frames) res.write(Buffer.from(f));
        res.end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...a) => queue.push(...a),
    pending: () => queue.length,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface Call {
  id: string;
  name: string;
  input: Record<string, unknown>;
}
export interface Usage {
  input: number;
  output: number;
}

export const json = (body: unknown, status = 200, headers?: Record<string, string>): Answer => ({ kind: 'json', status, body, ...(headers ? { headers } : {}) });

// ---- Anthropic Messages ------------------------------------------------------------------------
export const anthropic = {
  message(content: ({ text: string } | Call)[], usage: Usage, stop?: string): Answer {
    const blocks = content.map((c) => ('text' in c ? { type: 'text', text: c.text } : { type: 'tool_use', id: c.id, name: c.name, input: c.input }));
    const hasCall = content.some((c) => !('text' in c));
    return json({
      id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: blocks,
      stop_reason: stop ?? (hasCall ? 'tool_use' : 'end_turn'), stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: usage.output },
    });
  },
  stream(content: ({ text: string } | Call)[], usage: Usage): Answer {
    const events: { event: string; data: unknown }[] = [
      { event: 'message_start', data: { type: 'message_start', message: { id: 'msg_s', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input, output_tokens: 1 } } } },
    ];
    content.forEach((c, index) => {
      if ('text' in c) {
        events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
        for (const piece of halves(c.text)) events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } } });
      } else {
        events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } } });
        for (const piece of halves(JSON.stringify(c.input))) events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } } });
      }
      events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
    });
    const hasCall = content.some((c) => !('text' in c));
    events.push({ event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: hasCall ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output } } });
    events.push({ event: 'message_stop', data: { type: 'message_stop' } });
    return { kind: 'sse', events };
  },
  error(status: number, type: string, message: string, headers?: Record<string, string>): Answer {
    return json({ type: 'error', error: { type, message } }, status, headers);
  },
};

// ---- Gemini generateContent --------------------------------------------------------------------
function geminiParts(content: ({ text: string } | Call)[]): unknown[] {
  return content.map((c) => ('text' in c ? { text: c.text } : { functionCall: { name: c.name, args: c.input } }));
}
export const google = {
  response(content: ({ text: string } | Call)[], usage: Usage, finishReason = 'STOP'): Answer {
    return json({
      candidates: [{ content: { role: 'model', parts: geminiParts(content) }, finishReason, index: 0 }],
      usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output },
    });
  },
  stream(content: ({ text: string } | Call)[], usage: Usage): Answer {
    const events: { data: unknown }[] = [];
    for (const c of content) {
      if ('text' in c) for (const piece of halves(c.text)) events.push({ data: { candidates: [{ content: { role: 'model', parts: [{ text: piece }] }, index: 0 }] } });
      else events.push({ data: { candidates: [{ content: { role: 'model', parts: geminiParts([c]) }, index: 0 }] } });
    }
    events.push({ data: { candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output } } });
    return { kind: 'sse', events };
  },
  error(status: number, code: string, message: string, details?: unknown[], headers?: Record<string, string>): Answer {
    return json({ error: { code: status, message, status: code, ...(details ? { details } : {}) } }, status, headers);
  },
};

// ---- Bedrock Converse --------------------------------------------------------------------------
const codec = new EventStreamCodec(toUtf8, fromUtf8);
function awsEvent(type: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}
function bedrockContent(content: ({ text: string } | Call)[]): unknown[] {
  return content.map((c) => ('text' in c ? { text: c.text } : { toolUse: { toolUseId: c.id, name: c.name, input: c.input } }));
}
export const bedrock = {
  converse(content: ({ text: string } | Call)[], usage: Usage): Answer {
    const hasCall = content.some((c) => !('text' in c));
    return json({
      output: { message: { role: 'assistant', content: bedrockContent(content) } },
      stopReason: hasCall ? 'tool_use' : 'end_turn',
      usage: { inputTokens: usage.input, outputTokens: usage.output, totalTokens: usage.input + usage.output },
      metrics: { latencyMs: 12 },
    });
  },
  stream(content: ({ text: string } | Call)[], usage: Usage): Answer {
    const frames: Uint8Array[] = [awsEvent('messageStart', { role: 'assistant' })];
    content.forEach((c, contentBlockIndex) => {
      if ('text' in c) {
        frames.push(awsEvent('contentBlockStart', { contentBlockIndex, start: {} }));
        for (const piece of halves(c.text)) frames.push(awsEvent('contentBlockDelta', { contentBlockIndex, delta: { text: piece } }));
      } else {
        frames.push(awsEvent('contentBlockStart', { contentBlockIndex, start: { toolUse: { toolUseId: c.id, name: c.name } } }));
        for (const piece of halves(JSON.stringify(c.input))) frames.push(awsEvent('contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input: piece } } }));
      }
      frames.push(awsEvent('contentBlockStop', { contentBlockIndex }));
    });
    const hasCall = content.some((c) => !('text' in c));
    frames.push(awsEvent('messageStop', { stopReason: hasCall ? 'tool_use' : 'end_turn' }));
    frames.push(awsEvent('metadata', { usage: { inputTokens: usage.input, outputTokens: usage.output, totalTokens: usage.input + usage.output }, metrics: { latencyMs: 12 } }));
    return { kind: 'binary', contentType: 'application/vnd.amazon.eventstream', frames };
  },
  error(status: number, awsType: string, message: string, headers?: Record<string, string>): Answer {
    return json({ message }, status, { 'x-amzn-errortype': `${awsType}:http://internal.amazon.com/coral/com.amazon.bedrock/`, ...(headers ?? {}) });
  },
};

// ---- Azure OpenAI chat completions -------------------------------------------------------------
export const azure = {
  completion(content: ({ text: string } | Call)[], usage: Usage, finish?: string): Answer {
    const text = content.filter((c): c is { text: string } => 'text' in c).map((c) => c.text).join('');
    const calls = content.filter((c): c is Call => !('text' in c)).map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }));
    return json({
      id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o',
      choices: [{ index: 0, message: { role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) }, finish_reason: finish ?? (calls.length ? 'tool_calls' : 'stop') }],
      usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
    });
  },
  stream(content: ({ text: string } | Call)[], usage: Usage): Answer {
    const base = { id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o' };
    const events: { data: unknown }[] = [];
    let callIndex = 0;
    for (const c of content) {
      if ('text' in c) for (const piece of halves(c.text)) events.push({ data: { ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] } });
      else {
        const index = callIndex++;
        const [a, b] = halves(JSON.stringify(c.input));
        events.push({ data: { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: a } }] }, finish_reason: null }] } });
        events.push({ data: { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: b } }] }, finish_reason: null }] } });
      }
    }
    events.push({ data: { ...base, choices: [{ index: 0, delta: {}, finish_reason: callIndex ? 'tool_calls' : 'stop' }] } });
    events.push({ data: { ...base, choices: [], usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } } });
    events.push({ data: '[DONE]' });
    return { kind: 'sse', events };
  },
  error(status: number, code: string, message: string, headers?: Record<string, string>): Answer {
    return json({ error: { code, message, type: null, param: 'prompt' } }, status, headers);
  },
};

// ---- Ollama /api/chat --------------------------------------------------------------------------
export const ollama = {
  chat(content: ({ text: string } | Call)[], usage: Usage): Answer {
    const text = content.filter((c): c is { text: string } => 'text' in c).map((c) => c.text).join('');
    const calls = content.filter((c): c is Call => !('text' in c)).map((c) => ({ function: { name: c.name, arguments: c.input } }));
    return json({
      model: 'llama-test', created_at: '2026-01-01T00:00:00Z',
      message: { role: 'assistant', content: text, ...(calls.length ? { tool_calls: calls } : {}) },
      done: true, done_reason: 'stop', prompt_eval_count: usage.input, eval_count: usage.output,
    });
  },
  stream(content: ({ text: string } | Call)[], usage: Usage): Answer {
    const lines: unknown[] = [];
    const at = '2026-01-01T00:00:00Z';
    for (const c of content) {
      if ('text' in c) for (const piece of halves(c.text)) lines.push({ model: 'llama-test', created_at: at, message: { role: 'assistant', content: piece }, done: false });
      else lines.push({ model: 'llama-test', created_at: at, message: { role: 'assistant', content: '', tool_calls: [{ function: { name: c.name, arguments: c.input } }] }, done: false });
    }
    lines.push({ model: 'llama-test', created_at: at, message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: usage.input, eval_count: usage.output });
    return { kind: 'ndjson', lines };
  },
  error(status: number, message: string, headers?: Record<string, string>): Answer {
    return json({ error: message }, status, headers);
  },
};

function halves(s: string): string[] {
  const mid = Math.ceil(s.length / 2);
  return s.length > 1 ? [s.slice(0, mid), s.slice(mid)] : [s];
}
