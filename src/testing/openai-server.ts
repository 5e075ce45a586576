/**
 * A tiny OpenAI-compatible server for tests (the package's /testing entry): node http on 127.0.0.1 (port 0), implementing
 * POST /v1/chat/completions from a scriptable queue of responses, and POST /v1/embeddings with
 * deterministic vectors (`fakeEmbedding`), recording every request (headers, parsed body, arrival
 * time) so tests can assert on what the `openai` client sent.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';

export interface FakeToolCall {
  id?: string;
  name: string;
  /** A JSON string as a model sends it (may be invalid JSON), or an object to stringify. */
  arguments: string | Record<string, unknown>;
}

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export type FakeResponse =
  | {
      kind: 'reply';
      content?: string | null;
      tool_calls?: FakeToolCall[];
      usage?: FakeUsage;
      finish_reason?: string;
      /** Wait this long before answering (timeouts, cancellation). */
      delay_ms?: number;
      /** Only for requests with `stream: true` (server-sent events). */
      stream?: FakeStream;
    }
  | { kind: 'error'; status: number; headers?: Record<string, string>; message?: string; type?: string; code?: string }
  /** A 200 whose body is not JSON. */
  | { kind: 'raw'; status: number; body: string; headers?: Record<string, string> };

/**
 * How a streamed reply is sent: the content in chunks of `chunk_chars`, then each tool call as a
 * first chunk (id, name) and its arguments in two halves; the finish chunk, usage and [DONE] last.
 */
export interface FakeStream {
  chunk_chars?: number;
  /** Pause between chunks. */
  chunk_delay_ms?: number;
  /** Before the first chunk of tool call i (0-based), wait for this. */
  before_call?: (i: number) => Promise<void>;
  /** Before the end of the stream (the finish chunk), wait for this: e.g. until a streamed call has started. */
  hold_end?: () => Promise<void>;
  /** Drop the connection right after the first chunk of tool call i (a stream that breaks mid-reply). */
  cut_after_call_start?: number;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (undefined if it was not JSON). */
  body: {
    model?: string;
    messages?: Array<{ role: string; content: string | null; tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>; tool_call_id?: string }>;
    tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
    tool_choice?: unknown;
    parallel_tool_calls?: boolean;
    temperature?: number;
    top_p?: number;
    stop?: string[];
    max_tokens?: number;
    [k: string]: unknown;
  };
  /** Date.now() when the request arrived. */
  at: number;
  /** Set when the client closed the connection before the (delayed) response was sent. */
  abortedAt?: number;
  /** Streamed replies: Date.now() when the last event ([DONE]) was written. */
  streamEndedAt?: number;
}

export interface FakeOpenAIServer {
  /** `http://127.0.0.1:<port>/v1`: the model file's base_url. */
  baseUrl: string;
  port: number;
  requests: RecordedRequest[];
  /** Append responses to the queue (served in order, one per chat-completions request). */
  enqueue(...r: FakeResponse[]): void;
  /** Responses not served yet. */
  pending(): number;
  /** The next `times` /v1/embeddings requests answer HTTP `status` (an error body). */
  failEmbeddings(status: number, times?: number): void;
  close(): Promise<void>;
}

export const reply = (content: string, usage?: FakeUsage): FakeResponse => ({ kind: 'reply', content, ...(usage ? { usage } : {}) });
export const toolCalls = (calls: FakeToolCall[], usage?: FakeUsage): FakeResponse => ({ kind: 'reply', content: null, tool_calls: calls, ...(usage ? { usage } : {}) });
export const httpError = (status: number, headers?: Record<string, string>, message?: string): FakeResponse => ({ kind: 'error', status, headers, message });

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers });
  res.end(text);
}

/** Dimensions of the fake embeddings. */
export const FAKE_EMBEDDING_DIMS = 64;

function bucket(word: string): number {
  let h = 2166136261;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619) >>> 0;
  return h % FAKE_EMBEDDING_DIMS;
}

/**
 * A deterministic "semantic" vector: a hashed bag of concepts, where each word (lower-cased, 3+
 * letters) counts as its concept in `concepts` (a synonym table: `{ reimbursement: 'refund' }`)
 * or as itself. Two texts with synonyms but no shared word are close; unrelated texts are not.
 */
export function fakeEmbedding(text: string, concepts: Record<string, string> = {}): number[] {
  const v = new Array<number>(FAKE_EMBEDDING_DIMS).fill(0);
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (w.length > 2) v[bucket(concepts[w] ?? w)] += 1;
  return v;
}

export interface FakeOpenAIOptions {
  /** The synonym table of `fakeEmbedding` for /v1/embeddings. */
  concepts?: Record<string, string>;
}

export async function startFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAIServer> {
  const queue: FakeResponse[] = [];
  const embedFailures: number[] = [];
  const requests: RecordedRequest[] = [];
  let seq = 0;
  const timers = new Set<NodeJS.Timeout>();

  const server = http.createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: RecordedRequest['body'] = {};
      try {
        body = raw ? (JSON.parse(raw) as RecordedRequest['body']) : {};
      } catch {
        body = { unparsable: raw };
      }
      const rec: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at };
      requests.push(rec);
      res.on('close', () => {
        if (!res.writableFinished) rec.abortedAt = Date.now();
      });
      if (req.method === 'POST' && (req.url ?? '').startsWith('/v1/embeddings')) {
        const failWith = embedFailures.shift();
        if (failWith !== undefined) {
          send(res, failWith, { error: { message: `fake embeddings error ${failWith}`, type: 'fake_error' } });
          return;
        }
        const input = Array.isArray(body.input) ? (body.input as unknown[]) : [body.input];
        if (!input.every((x) => typeof x === 'string')) {
          send(res, 400, { error: { message: 'fake openai server: embeddings input must be a string or a list of strings', type: 'invalid_request_error' } });
          return;
        }
        const data = (input as string[]).map((t, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(t, opts.concepts) }));
        const tokens = (input as string[]).reduce((n, t) => n + t.split(/\s+/).length, 0);
        send(res, 200, { object: 'list', data, model: body.model ?? 'fake-embed', usage: { prompt_tokens: tokens, total_tokens: tokens } });
        return;
      }
      if (req.method !== 'POST' || !(req.url ?? '').startsWith('/v1/chat/completions')) {
        send(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } });
        return;
      }
      const next = queue.shift();
      if (!next) {
        // Non-retryable on purpose: an unscripted call ends the run quickly with a clear reason.
        send(res, 400, { error: { message: 'fake openai server: no scripted response left', type: 'invalid_request_error' } });
        return;
      }
      if (next.kind === 'error') {
        send(res, next.status, { error: { message: next.message ?? `fake error ${next.status}`, type: next.type ?? 'fake_error', code: next.code ?? null } }, next.headers);
        return;
      }
      if (next.kind === 'raw') {
        send(res, next.status, next.body, next.headers);
        return;
      }
      seq += 1;
      if (body.stream === true) {
        void streamReply(res, rec, next, `chatcmpl-${seq}`, body.model ?? 'fake', seq);
        return;
      }
      const usage = next.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
      const toolCallsOut = next.tool_calls?.map((c, i) => ({
        id: c.id ?? `call_${seq}_${i}`,
        type: 'function',
        function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
      }));
      const payload = {
        id: `chatcmpl-${seq}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model ?? 'fake',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: next.content ?? null, ...(toolCallsOut?.length ? { tool_calls: toolCallsOut } : {}) },
            finish_reason: next.finish_reason ?? (toolCallsOut?.length ? 'tool_calls' : 'stop'),
          },
        ],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      };
      if (next.delay_ms) {
        const t = setTimeout(() => {
          timers.delete(t);
          if (!res.destroyed) send(res, 200, payload);
        }, next.delay_ms);
        timers.add(t);
      } else send(res, 200, payload);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    enqueue: (...r) => void queue.push(...r),
    pending: () => queue.length,
    failEmbeddings: (status, times = 1) => void embedFailures.push(...new Array<number>(times).fill(status)),
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A reply as server-sent events (`stream: true`), chunked as `next.stream` says. */
async function streamReply(res: http.ServerResponse, rec: RecordedRequest, next: Extract<FakeResponse, { kind: 'reply' }>, id: string, model: string, seq: number): Promise<void> {
  const opts = next.stream ?? {};
  const pause = () => (opts.chunk_delay_ms ? new Promise((r) => setTimeout(r, opts.chunk_delay_ms)) : Promise.resolve());
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const created = Math.floor(Date.now() / 1000);
  const event = async (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    if (res.destroyed) return;
    // resolved once flushed, so a cut right after it still delivers it
    await new Promise<void>((r) => res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`, () => r()));
    await pause();
  };
  await event({ role: 'assistant', content: '' });
  const text = next.content ?? '';
  const n = opts.chunk_chars ?? 8;
  for (let i = 0; i < text.length; i += n) await event({ content: text.slice(i, i + n) });
  for (const [i, c] of (next.tool_calls ?? []).entries()) {
    await opts.before_call?.(i);
    const args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
    const half = Math.floor(args.length / 2);
    await event({ tool_calls: [{ index: i, id: c.id ?? `call_${seq}_${i}`, type: 'function', function: { name: c.name, arguments: '' } }] });
    if (opts.cut_after_call_start === i) {
      res.destroy();
      return;
    }
    await event({ tool_calls: [{ index: i, function: { arguments: args.slice(0, half) } }] });
    await event({ tool_calls: [{ index: i, function: { arguments: args.slice(half) } }] });
  }
  await opts.hold_end?.();
  if (res.destroyed) return;
  const usage = next.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  const finish = next.finish_reason ?? (next.tool_calls?.length ? 'tool_calls' : 'stop');
  res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta: {}, finish_reason: finish }] })}\n\n`);
  res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`);
  res.write('data: [DONE]\n\n');
  rec.streamEndedAt = Date.now();
  res.end();
}
