/**
 * http tools against a local node http server on 127.0.0.1 (no other network is used).
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import type { CompiledTool, HttpToolConfig, JsonObject } from '../../src/compiled/types';
import { BundleCache } from '../../src/activities/agent-loader';
import { MessageStore } from '../../src/activities/message-store';
import { createReactToolActivities, ExternalToolContext, RunToolInput, RunToolOutput } from '../../src/activities/react-tools';
import { createToolExecutor, executeTool } from '../../src/activities/tools';
import { fillUrlTemplate } from '../../src/activities/http-tool';
import { agent, bundleOf, scriptedModel, storeTestBundle, testStore } from '../runtime/builders';
import { until } from '../helpers/wait';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const SECRET = 'sk-test-very-secret-value';
let server: http.Server;
let base: string;
let port: number;
const seen: Seen[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const u = new URL(req.url ?? '/', 'http://x');
      const json = (status: number, v: unknown, extra: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...extra });
        res.end(JSON.stringify(v));
      };
      if (u.pathname.startsWith('/items/')) return json(200, { path: u.pathname, query: Object.fromEntries(u.searchParams) });
      if (u.pathname === '/orders') return json(201, { received: JSON.parse(body || 'null'), auth_echo: req.headers.authorization });
      if (u.pathname === '/status/503') return json(503, { error: 'overloaded' }, { 'retry-after': '2' });
      if (u.pathname === '/status/429') return json(429, { error: 'slow down' });
      if (u.pathname === '/status/404') return json(404, { error: 'no such item' });
      if (u.pathname === '/status/401') return json(401, { error: `bad key ${String(req.headers.authorization)}` });
      if (u.pathname === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
        return res.end();
      }
      if (u.pathname === '/text') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('plain 19.5');
      }
      if (u.pathname === '/bad-json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{not json');
      }
      if (u.pathname === '/big') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ data: 'x'.repeat(5000) }));
      }
      if (u.pathname === '/empty') {
        res.writeHead(204);
        return res.end();
      }
      if (u.pathname === '/slow') return; // never answers
      json(500, { error: 'unexpected path' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  process.env.LOOM_TEST_TOOL_KEY = SECRET;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  delete process.env.LOOM_TEST_TOOL_KEY;
});
beforeEach(() => {
  seen.length = 0;
});

function httpTool(cfg: Partial<HttpToolConfig> & { url: string }, over: Partial<CompiledTool> = {}): CompiledTool {
  return {
    tool_id: over.tool_id ?? 'api',
    version: '1.0.0',
    status: 'active',
    description: 'http tool',
    kind: 'http',
    input_schema: { type: 'object' },
    approval_required: false,
    sensitive_fields: [],
    side_effects: false,
    http: { method: 'GET', allowed_hosts: ['127.0.0.1'], allow_private_network: true, ...cfg },
    ...over,
  };
}

function ctx(tool: CompiledTool, args: JsonObject, over: Partial<ExternalToolContext> = {}): ExternalToolContext {
  return { tool, args, idempotencyKey: 'wf-9/call_1_0', workflowId: 'wf-9', callId: 'call_1_0', heartbeat: () => undefined, allowExternalHttp: false, ...over };
}

async function failure(p: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApplicationFailure) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

describe('requests', () => {
  test('GET fills the URL template from URL-encoded args and sends the rest as the query string', async () => {
    const out = await executeTool(ctx(httpTool({ url: `${base}/items/{id}?fixed=1` }), { id: 'a b/c?d', q: 'x&y', n: 2, tags: ['t1', 't2'], f: { k: 1 } }));
    expect(seen).toHaveLength(1);
    expect(seen[0].method).toBe('GET');
    expect(seen[0].url).toBe('/items/a%20b%2Fc%3Fd?fixed=1&q=x%26y&n=2&tags=t1&tags=t2&f=%7B%22k%22%3A1%7D');
    expect(seen[0].headers['idempotency-key']).toBeUndefined();
    expect(seen[0].body).toBe('');
    // JSON responses are parsed.
    expect(out).toEqual({ path: '/items/a%20b%2Fc%3Fd', query: { fixed: '1', q: 'x&y', n: '2', tags: 't2', f: '{"k":1}' } });
  });

  test('POST sends a JSON body, the Idempotency-Key and headers from env; the secret never reaches the result', async () => {
    const tool = httpTool({
      method: 'POST',
      url: `${base}/orders`,
      headers: { Authorization: { value_env: 'LOOM_TEST_TOOL_KEY' }, 'X-Client': { value: 'agentloom-test' } },
    });
    const out = await executeTool(ctx(tool, { item: 'book', qty: 2 }));
    expect(seen).toHaveLength(1);
    const s = seen[0];
    expect(s.method).toBe('POST');
    expect(s.url).toBe('/orders');
    expect(s.headers['content-type']).toBe('application/json');
    expect(JSON.parse(s.body)).toEqual({ item: 'book', qty: 2 });
    expect(s.headers['idempotency-key']).toBe('wf-9/call_1_0');
    expect(s.headers.authorization).toBe(SECRET);
    expect(s.headers['x-client']).toBe('agentloom-test');
    // The server echoed the key back: it is redacted in what the model sees.
    expect(out).toEqual({ received: { item: 'book', qty: 2 }, auth_echo: '[redacted]' });
    expect(JSON.stringify(out)).not.toContain(SECRET);
  });

  test('body: none puts the remaining args in the query string even for POST', async () => {
    await executeTool(ctx(httpTool({ method: 'POST', body: 'none', url: `${base}/items/{id}` }), { id: '7', verbose: true }));
    expect(seen[0].url).toBe('/items/7?verbose=true');
    expect(seen[0].body).toBe('');
    expect(seen[0].headers['idempotency-key']).toBe('wf-9/call_1_0');
  });

  test('a missing env var is a clear, non-retryable error naming the variable', async () => {
    const tool = httpTool({ method: 'POST', url: `${base}/orders`, headers: { Authorization: { value_env: 'LOOM_TEST_NOT_SET_ANYWHERE' } } });
    const f = await failure(executeTool(ctx(tool, {})));
    expect(f.message).toMatch(/header 'Authorization' reads env var LOOM_TEST_NOT_SET_ANYWHERE, which is not set/);
    expect(f.nonRetryable).toBe(true);
    expect(seen).toHaveLength(0);
  });

  test('a missing placeholder argument and placeholders in the host are refused', async () => {
    await expect(executeTool(ctx(httpTool({ url: `${base}/items/{id}` }), {}))).rejects.toThrow(/missing argument 'id'/);
    expect(() => fillUrlTemplate('http://{host}/x', { host: '10.0.0.1' })).toThrow(/only allowed in the path and query/);
    expect(seen).toHaveLength(0);
  });

  test('text responses come back as text; invalid JSON falls back to text; 204 is described', async () => {
    await expect(executeTool(ctx(httpTool({ url: `${base}/text` }), {}))).resolves.toBe('plain 19.5');
    await expect(executeTool(ctx(httpTool({ url: `${base}/bad-json` }), {}))).resolves.toBe('{not json');
    await expect(executeTool(ctx(httpTool({ url: `${base}/empty` }), {}))).resolves.toBe('HTTP 204 (empty body)');
  });

  test('large responses are capped with a note', async () => {
    const out = (await createToolExecutor({ maxResponseBytes: 100 })(ctx(httpTool({ url: `${base}/big` }), {}))) as string;
    expect(typeof out).toBe('string');
    expect(out).toMatch(/^\{"data":"x{90}/);
    expect(out).toMatch(/\[truncated: the response exceeded 100 bytes\]$/);
  });

  test('the connection goes to the checked address (a name resolved once, never re-resolved)', async () => {
    const resolver = jest.fn(async () => ['127.0.0.1']);
    const exec = createToolExecutor({ resolver });
    const out = await exec(ctx(httpTool({ url: `http://api.internal.test:${port}/items/1`, allowed_hosts: ['*.internal.test'] }), {}));
    expect(out).toMatchObject({ path: '/items/1' });
    expect(seen[0].headers.host).toBe(`api.internal.test:${port}`);
    expect(resolver).toHaveBeenCalledTimes(1);
  });
});

describe('network policy', () => {
  test('loopback is refused without allow_private_network', async () => {
    const f = await failure(executeTool(ctx(httpTool({ url: `${base}/items/1`, allow_private_network: false }), {})));
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe('ToolPolicyBlocked');
    expect(f.message).toMatch(/127\.0\.0\.1 \(loopback\).*allow_private_network/);
    expect(seen).toHaveLength(0);
  });

  test('localhost (a name) is refused the same way', async () => {
    const f = await failure(executeTool(ctx(httpTool({ url: `http://localhost:${port}/items/1`, allowed_hosts: ['localhost'], allow_private_network: false }), {})));
    expect(f.message).toMatch(/loopback/);
    expect(seen).toHaveLength(0);
  });

  test('a host outside allowed_hosts is refused when the agent disallows external HTTP', async () => {
    const tool = httpTool({ url: `${base}/items/1`, allowed_hosts: ['api.example.com'] });
    const f = await failure(executeTool(ctx(tool, {}, { allowExternalHttp: false })));
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toMatch(/allow_external_http: false.*'127\.0\.0\.1' is not in the tool's http\.allowed_hosts/);
    expect(seen).toHaveLength(0);
    // No policy from the caller means external HTTP is off.
    const g = await failure(executeTool(ctx(tool, {}, { allowExternalHttp: undefined })));
    expect(g.message).toMatch(/allow_external_http: false/);
    // The same tool may reach the host when the agent allows external HTTP.
    await expect(executeTool(ctx(tool, {}, { allowExternalHttp: true }))).resolves.toMatchObject({ path: '/items/1' });
  });

  test('redirects are not followed', async () => {
    const f = await failure(executeTool(ctx(httpTool({ url: `${base}/redirect` }), {})));
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toMatch(/302 .*redirect to http:\/\/169\.254\.169\.254\/latest\/meta-data not followed/);
    expect(seen).toHaveLength(1);
  });

  test('non-http schemes are refused', async () => {
    const f = await failure(executeTool(ctx(httpTool({ url: 'file:///etc/passwd' }), {})));
    expect(f.message).toMatch(/scheme 'file:'/);
  });
});

describe('failures', () => {
  test('503 is a retryable failure carrying Retry-After', async () => {
    const f = await failure(executeTool(ctx(httpTool({ url: `${base}/status/503` }), { q: 'secret-arg' })));
    expect(f.nonRetryable).toBe(false);
    expect(f.type).toBe('ToolHttp503');
    expect(f.nextRetryDelay).toBe(2000);
    expect(f.message).toContain(`tool api (GET ${base}/status/503)`);
    expect(f.message).not.toContain('secret-arg'); // the query string is left out of errors
  });

  test('429 is retryable', async () => {
    const f = await failure(executeTool(ctx(httpTool({ url: `${base}/status/429` }), {})));
    expect(f.nonRetryable).toBe(false);
    expect(f.type).toBe('ToolRateLimited');
  });

  test('404 is non-retryable', async () => {
    const f = await failure(executeTool(ctx(httpTool({ url: `${base}/status/404` }), {})));
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe('ToolHttp404');
    expect(f.message).toMatch(/404 from tool api .*check the tool URL.*no such item/);
  });

  test('401 names the env var and redacts an echoed secret', async () => {
    const tool = httpTool({ url: `${base}/status/401`, headers: { Authorization: { value_env: 'LOOM_TEST_TOOL_KEY' } } });
    const f = await failure(executeTool(ctx(tool, {})));
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toMatch(/env LOOM_TEST_TOOL_KEY/);
    expect(f.message).toContain('[redacted]');
    expect(f.message).not.toContain(SECRET);
  });

  test('timeout_seconds bounds the call (retryable timeout)', async () => {
    // The type proves the 0.3 s timeout fired (how long that took is bench material, not a test).
    const f = await failure(executeTool(ctx(httpTool({ url: `${base}/slow`, timeout_seconds: 0.3 }), {})));
    expect(f.type).toBe('ToolTimeout');
    expect(f.nonRetryable).toBe(false);
  });

  test('cancellation through ctx.signal aborts the request', async () => {
    const ac = new AbortController();
    const sent = seen.filter((s) => s.url === '/slow').length;
    const p = executeTool(ctx(httpTool({ url: `${base}/slow`, timeout_seconds: 30 }), {}, { signal: ac.signal }));
    // Cancel once the request is on the server: the abort must end a call in flight.
    await until(() => (seen.filter((s) => s.url === '/slow').length > sent ? true : undefined), 'the /slow request to reach the server', 10_000, 20);
    ac.abort(new Error('activity cancelled'));
    await expect(p).rejects.toThrow('activity cancelled');
  });

  test('a refused connection is a retryable connection error', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const p = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const f = await failure(executeTool(ctx(httpTool({ url: `http://127.0.0.1:${p}/` }), {})));
    expect(f.type).toBe('ToolConnectionError');
    expect(f.nonRetryable).toBe(false);
  });
});

describe('through the runTool activity', () => {
  let acts: ReturnType<typeof createReactToolActivities>;
  let bundle: Awaited<ReturnType<typeof storeTestBundle>>;
  beforeAll(async () => {
    const store = testStore();
    acts = createReactToolActivities({ bundles: new BundleCache(store), messages: new MessageStore(store), executor: executeTool });
    const a = agent({
      agent_id: 'http-agent',
      model: scriptedModel({ turns: [{ content: 'x' }] }),
      tools: [
        httpTool({ url: `${base}/status/503` }, { tool_id: 'flaky' }),
        httpTool({ url: `${base}/status/404` }, { tool_id: 'missing' }),
        httpTool({ url: `${base}/items/1`, allow_private_network: false }, { tool_id: 'loopback' }),
        httpTool({ url: `${base}/items/1`, allowed_hosts: [] }, { tool_id: 'external' }),
      ],
    });
    bundle = await storeTestBundle(bundleOf(a));
  });
  const input = (tool: string) => ({ bundle, agent_id: 'http-agent', workflow_id: 'wf-act', call_id: 'c1', tool, args: {} });
  const env = (attempt: number) => {
    const e = new MockActivityEnvironment({ attempt, retryPolicy: { maximumAttempts: 3 } }, { logger: new DefaultLogger('ERROR') });
    return { run: (inp: RunToolInput): Promise<RunToolOutput> => e.run(acts.runTool, inp) };
  };

  test('503 fails the attempt (Temporal retries) while attempts remain', async () => {
    const f = await failure(env(1).run(input('flaky')));
    expect(f.type).toBe('ToolHttp503');
    expect(f.nonRetryable).toBe(false);
  });

  test('503 on the last attempt becomes an error result for the model', async () => {
    const out = await env(3).run(input('flaky'));
    expect(out.is_error).toBe(true);
    expect(out.preview).toMatch(/^error: tool flaky failed after 3 attempts: 503 from tool flaky/);
  });

  test('404 becomes an error result for the model on the first attempt', async () => {
    const out = await env(1).run(input('missing'));
    expect(out.is_error).toBe(true);
    expect(out.preview).toMatch(/^error: tool missing failed: 404 from tool missing .*check the tool URL/);
  });

  test("policy refusals become error results; the agent's allow_external_http reaches the tool", async () => {
    const lo = await env(1).run(input('loopback'));
    expect(lo.is_error).toBe(true);
    expect(lo.preview).toMatch(/blocked by policy: host '127\.0\.0\.1' resolves to 127\.0\.0\.1 \(loopback\)/);
    const ext = await env(1).run(input('external'));
    expect(ext.is_error).toBe(true);
    expect(ext.preview).toMatch(/external HTTP is disabled \(policies\.allow_external_http: false\)/);
    expect(seen).toHaveLength(0);
  });
});
