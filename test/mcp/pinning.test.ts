/**
 * HTTP MCP sessions connect only to addresses the network policy allows, checked at connect time
 * (src/mcp/guarded-fetch.ts, decision 175): the session's connections resolve through the policy's
 * guarded lookup, so a host that passed the check with a public address and then resolves to a
 * loopback one (DNS rebinding) is refused instead of reached. A real MCP server on 127.0.0.1 under
 * a made-up `.test` host name that only the test's resolver knows.
 */
import type { McpServerConfig } from '../../src/compiled/types';
import { connectMcp } from '../../src/mcp/connect';
import { assertMcpUrlAllowed } from '../../src/mcp/net-check';

const fixture = require('./fixture-server.js') as {
  startHttpFixture(o: { port?: number }): Promise<{ url: string; port: number; close(): Promise<void> }>;
};

let srv: { url: string; port: number; close(): Promise<void> };
beforeAll(async () => {
  srv = await fixture.startHttpFixture({});
});
afterAll(async () => srv?.close());

const server = (extra: Partial<McpServerConfig> = {}): McpServerConfig => ({ url: `http://mcp-pin.test:${srv.port}/mcp`, ...extra }) as McpServerConfig;

test('the session connects through the policy\'s resolver: a private address is reached only with allow_private_network', async () => {
  const asked: string[] = [];
  const resolve = async (host: string) => { asked.push(host); return ['127.0.0.1']; };
  const conn = await connectMcp(server({ allow_private_network: true }), { resolve });
  try {
    const tools = await conn.client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('echo');
    const res = await conn.client.callTool({ name: 'echo', arguments: { text: 'pinned' } });
    expect(JSON.stringify(res.content)).toContain('pinned');
  } finally {
    await conn.close();
  }
  // Every connection asked the guarded resolver (the system DNS knows no mcp-pin.test).
  expect(asked.length).toBeGreaterThanOrEqual(2);
  expect(new Set(asked)).toEqual(new Set(['mcp-pin.test']));

  await expect(connectMcp(server(), { resolve })).rejects.toThrow(/blocked by policy: host 'mcp-pin.test' resolves to 127\.0\.0\.1 \(loopback\)/);
}, 30_000);

test('DNS rebinding: the check sees a public address, the connection would get loopback; the connection is refused at its lookup', async () => {
  let lookups = 0;
  // First answer (the policy check): a public address; every later answer: loopback.
  const rebinding = async () => (lookups++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']);
  await assertMcpUrlAllowed(server({ allowed_hosts: ['mcp-pin.test'] }), false, rebinding);
  await expect(connectMcp(server({ allowed_hosts: ['mcp-pin.test'] }), { resolve: rebinding, timeoutMs: 5000 })).rejects.toThrow(/resolves to 127\.0\.0\.1/);
  expect(lookups).toBeGreaterThanOrEqual(2);
}, 30_000);
