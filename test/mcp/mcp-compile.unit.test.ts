/**
 * Pinning MCP tools at compile time: `pinMcpServers` connects to the real stdio fixture server and the
 * compiler expands the definition into one tool per (listed) MCP tool with the server's schemas and
 * per-tool approval and limits; offline compiles use `mcp.pinned` or fail with AGF130.
 */
import { compileBundle } from '../../src/compiler';
import { pinMcpServers } from '../../src/mcp/discover';
import { mcpSchemaHash } from '../../src/compiler/mcp-tools';
import { mcpRegistry } from './registry';

process.env.FIXTURE_LOG = process.env.FIXTURE_LOG ?? require('os').tmpdir();

test('compile pins the narrowed tool list and schemas of a stdio MCP server into the bundle', async () => {
  const dir = mcpRegistry();
  const pins = await pinMcpServers(dir);
  expect(Object.keys(pins)).toEqual(['calc']);
  const { bundle, diagnostics } = compileBundle(dir, 'calc-agent');
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const refs = bundle!.agents['calc-agent'].tools.refs;
  expect(refs.map((t) => t.tool_id)).toEqual(['calc__add', 'calc__echo']);
  const add = refs[0];
  expect(add).toMatchObject({ kind: 'mcp', approval_required: true, max_calls_per_run: 2, description: 'Add two numbers' });
  expect(add.input_schema).toEqual({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
  expect(add.mcp).toMatchObject({ server_id: 'calc', name: 'add', server: { command: 'node', env: ['FIXTURE_LOG'] } });
  expect(add.mcp!.schema_hash).toBe(mcpSchemaHash('add', add.input_schema));
  expect(refs[1].approval_required).toBe(false);
});

test('an unreachable server without mcp.pinned is AGF130 naming the server and what to write', async () => {
  const dir = mcpRegistry({ mcpBlock: `  command: node\n  args: ['/nonexistent/server.js']` });
  await pinMcpServers(dir, { timeoutMs: 10000 });
  const { bundle, diagnostics } = compileBundle(dir, 'calc-agent');
  expect(bundle).toBeUndefined();
  const d = diagnostics.find((x) => x.code === 'AGF130')!;
  expect(d.message).toMatch(/`calc` has no pinned tool list: its server could not be listed \(node \/nonexistent\/server.js: /);
  expect(d.message).toMatch(/write the list under `mcp.pinned` in tools\/calc.tool.md/);
});

test('offline: mcp.pinned compiles without a server; a narrowed name the list lacks is AGF131', () => {
  const pinned = `  url: http://127.0.0.1:9/mcp
  allowed_hosts: ['127.0.0.1']
  allow_private_network: true
  tools: [{ name: add }, { name: mul }]
  pinned:
    - { name: add, description: Add, input_schema: { type: object, properties: { a: { type: number } } } }`;
  const { diagnostics } = compileBundle(mcpRegistry({ mcpBlock: pinned }), 'calc-agent');
  expect(diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.message])).toEqual([
    ['AGF131', 'tools/calc.tool.md: `mcp.tools` names `mul`, which the MCP server does not list (it lists: add); fix the name or remove the entry'],
  ]);
  const ok = compileBundle(mcpRegistry({ mcpBlock: pinned.replace(', { name: mul }', '') }), 'calc-agent');
  expect(ok.bundle!.agents['calc-agent'].tools.refs.map((t) => t.tool_id)).toEqual(['calc__add']);
});

test('no discovery and no pinned list: AGF130 says to compile with the server reachable', () => {
  const { diagnostics } = compileBundle(mcpRegistry({ mcpBlock: `  url: http://127.0.0.1:9/never-pinned\n  allowed_hosts: ['127.0.0.1']` }), 'calc-agent');
  expect(diagnostics.find((d) => d.code === 'AGF130')?.message).toMatch(/no discovery ran/);
});

test('the schema refuses command and url together, and env values instead of names', () => {
  const { diagnostics } = compileBundle(mcpRegistry({ mcpBlock: `  command: node\n  url: http://127.0.0.1:9/mcp\n  env: ['token=abc']` }), 'calc-agent');
  expect(diagnostics.filter((d) => d.severity === 'error').length).toBeGreaterThan(0);
  expect(diagnostics.map((d) => d.field).join(' ')).toMatch(/mcp/);
});

test('AGF150: an mcp url host outside mcp.allowed_hosts while the agent does not allow external HTTP', () => {
  const block = `  url: https://mcp.example.com/mcp
  pinned:
    - { name: add, input_schema: { type: object } }`;
  const { bundle, diagnostics } = compileBundle(mcpRegistry({ mcpBlock: block }), 'calc-agent');
  expect(bundle).toBeUndefined();
  expect(diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.message])).toEqual([
    ['AGF150', "tools/calc.tool.md: `mcp.url` host 'mcp.example.com' is not in `mcp.allowed_hosts` and this agent does not set `policies.allow_external_http: true`; add 'mcp.example.com' to `mcp.allowed_hosts` (a loopback or private address also needs `mcp.allow_private_network: true`) or allow external HTTP in the agent"],
  ]);
  // Listed (a wildcard pattern, as for http tools): no finding.
  const ok = compileBundle(mcpRegistry({ mcpBlock: block.replace('.com/mcp', ".com/mcp\n  allowed_hosts: ['*.example.com']") }), 'calc-agent');
  expect(ok.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(ok.bundle!.agents['calc-agent'].tools.refs[0].mcp!.server).toMatchObject({ allowed_hosts: ['*.example.com'] });
});

test('discovery refuses a loopback url without mcp.allow_private_network: no connection, AGF130 carries the reason', async () => {
  const dir = mcpRegistry({ mcpBlock: `  url: http://127.0.0.1:9/mcp\n  allowed_hosts: ['127.0.0.1']` });
  const pins = await pinMcpServers(dir, { timeoutMs: 10000 });
  expect(pins.calc).toEqual({ error: expect.stringContaining("blocked by policy: host '127.0.0.1' resolves to 127.0.0.1 (loopback); private, loopback and link-local addresses need mcp.allow_private_network: true") });
  const { diagnostics } = compileBundle(dir, 'calc-agent');
  expect(diagnostics.find((d) => d.code === 'AGF130')?.message).toContain('mcp.allow_private_network: true');
});
