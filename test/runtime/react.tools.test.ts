/**
 * The tool executor (src/activities/tools.ts) inside real react runs: an http tool against a local
 * 127.0.0.1 server plus the builtin calculator, the network policy refusal seen by the model, and a
 * transient 503 retried by Temporal.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import type { HttpToolConfig } from '../../src/compiled/types';
import { storeTestBundle } from './builders';
import { builtin, compileAgent, definition, scripted, type Definition } from '../helpers/definitions';
import { Harness, startHarness } from './harness';
import { activityAttempts, historyEvents } from '../helpers/history';

let H: Harness;
let server: http.Server;
let base: string;
const seen: string[] = [];
let flakyFailures = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/flaky' && flakyFailures > 0) {
      flakyFailures--;
      res.writeHead(503, { 'content-type': 'application/json' });
      return res.end('{"error":"try again"}');
    }
    if (u.pathname.startsWith('/price/') || u.pathname === '/flaky') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(u.searchParams.get('currency') === 'EUR' ? '19.5' : '21');
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  H = await startHarness('react-tools');
});
afterAll(async () => {
  await H.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen.length = 0;
});

/** The http tool `price`, as its definition file declares it. */
function priceTool(http: Partial<HttpToolConfig>): Definition {
  return definition('tool', {
    tool_id: 'price',
    version: '1.0.0',
    status: 'active',
    kind: 'http',
    description: 'Look up a price',
    side_effects: false,
    approval_required: false,
    input_schema: { type: 'object', properties: { sku: { type: 'string' }, currency: { type: 'string' } }, required: ['sku'] },
    http: { method: 'GET', url: `${base}/price/{sku}`, allowed_hosts: ['127.0.0.1'], ...http },
  });
}

const calculator = builtin('calculator', {
  input_schema: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'], additionalProperties: false },
});

/** price(sku) → calculator(price * 4) → "total <result>". */
function shopper(id: string, tool: Definition) {
  return compileAgent({
    agent_id: id,
    model: scripted({
      turns: [
        { tool_calls: [{ id: 'p1', name: 'price', arguments: { sku: 'book 1', currency: 'EUR' } }] },
        { tool_calls: [{ id: 'c1', name: 'calculator', arguments: { expression: '{{last_tool_result}} * 4' } }] },
        { content: 'total {{last_tool_result}}' },
      ],
    }),
    tools: [tool, calculator],
  }).bundle;
}

test('an http tool on 127.0.0.1 (allow_private_network) and the calculator both feed the final answer', async () => {
  const bundle = await storeTestBundle(shopper('shopper', priceTool({ allow_private_network: true })));
  const h = await H.start({ bundle, agent_id: 'shopper', input: 'four books' });
  const res = await h.result();
  // 19.5 came from the server (EUR query parameter), 78 from the calculator.
  expect(res.output).toBe('total 78');
  expect(seen).toEqual(['GET /price/book%201?currency=EUR']);
  const st = await h.query<{ tool_calls_made: number }>('status');
  expect(st.tool_calls_made).toBe(2);
});

test('an http tool aimed at loopback without permission: the model gets the refusal as a tool result', async () => {
  const { bundle: compiled } = compileAgent({
    agent_id: 'blocked',
    model: scripted({
      turns: [{ tool_calls: [{ id: 'p1', name: 'price', arguments: { sku: 'x' } }] }, { content: 'saw: {{last_tool_result}}' }],
    }),
    tools: [priceTool({})],
  });
  const bundle = await storeTestBundle(compiled);
  const h = await H.start({ bundle, agent_id: 'blocked', input: 'go' });
  const res = await h.result();
  expect(res.output).toMatch(/^saw: error: tool price failed: .*blocked by policy: host '127\.0\.0\.1' resolves to 127\.0\.0\.1 \(loopback\).*allow_private_network/);
  expect(seen).toEqual([]);
  // A refusal is not retried: runTool ran once.
  // (every() on no events was true: name the one runTool attempt instead)
  expect(activityAttempts(await historyEvents(h), 'runTool')).toEqual([{ attempt: 1 }]);
});

test('a transient 503 fails the activity attempt and Temporal retries it; the model only sees the success', async () => {
  flakyFailures = 1;
  const bundle = await storeTestBundle(shopper('retrier', priceTool({ allow_private_network: true, url: `${base}/flaky` })));
  const h = await H.start({ bundle, agent_id: 'retrier', input: 'go' });
  const res = await h.result();
  expect(res.output).toBe('total 78'); // 19.5 * 4: the retried call succeeded
  expect(seen).toEqual(['GET /flaky?sku=book+1&currency=EUR', 'GET /flaky?sku=book+1&currency=EUR']);
  const hist = await h.fetchHistory();
  const attempts = (hist.events ?? []).filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 1);
  expect(Math.max(...attempts)).toBe(2);
});
