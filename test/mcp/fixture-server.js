/**
 * A small real MCP server for the tests, written with the official SDK. Plain CommonJS so a test can
 * spawn it with `node` (stdio) without a TypeScript loader; `startHttpFixture` serves the same tools
 * over streamable HTTP on 127.0.0.1 inside the test process.
 *
 * Tools: `add` (a + b; the `v2` variant adds a required `c`, i.e. a changed schema), `echo`,
 * `crash_once` (the first call ever kills the server mid-call; later calls complete and append a line
 * to FIXTURE_LOG/completions), `wait_for_cancel` (writes `started`, then `cancelled` when the client's
 * MCP cancellation notification arrives). A folder (FIXTURE_LOG, else the working directory, for the
 * stdio server; `logDir` in process) records what happened.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

function toolList(variant) {
  const addProps = { a: { type: 'number' }, b: { type: 'number' } };
  if (variant === 'v2') addProps.c = { type: 'number' };
  return [
    { name: 'add', description: 'Add two numbers', inputSchema: { type: 'object', properties: addProps, required: Object.keys(addProps) } },
    { name: 'echo', description: 'Echo a text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    { name: 'crash_once', description: 'Crashes the server on its first call ever', inputSchema: { type: 'object', properties: {} } },
    { name: 'wait_for_cancel', description: 'Waits until the call is cancelled', inputSchema: { type: 'object', properties: {} } },
  ];
}

function logLine(dir, file, line) {
  if (dir) fs.appendFileSync(path.join(dir, file), line + '\n');
}

function buildFixtureServer(opts = {}) {
  const variant = opts.variant ?? process.env.FIXTURE_VARIANT ?? 'v1';
  const logDir = opts.logDir;
  const server = new Server({ name: 'loom-fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolList(variant) }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const args = req.params.arguments ?? {};
    const key = req.params._meta?.['dev.agentloom/idempotency-key'] ?? '';
    logLine(logDir, 'calls', `${req.params.name} ${key}`);
    const text = (t) => ({ content: [{ type: 'text', text: String(t) }] });
    switch (req.params.name) {
      case 'add': return text(Number(args.a) + Number(args.b) + Number(args.c ?? 0));
      case 'echo': return text(`echo: ${args.text}`);
      case 'crash_once': {
        const marker = path.join(logDir ?? os.tmpdir(), 'crashed');
        if (!fs.existsSync(marker)) {
          fs.writeFileSync(marker, String(process.pid));
          process.exit(1); // killed mid-call: the client sees the transport close with no reply
        }
        logLine(logDir, 'completions', key);
        return text('recovered');
      }
      case 'wait_for_cancel':
        logLine(logDir, 'events', 'started');
        await new Promise((resolve) => extra.signal.addEventListener('abort', resolve, { once: true }));
        logLine(logDir, 'events', 'cancelled');
        return text('cancelled');
      default:
        return { content: [{ type: 'text', text: `unknown tool ${req.params.name}` }], isError: true };
    }
  });
  return server;
}

/** Streamable HTTP (stateless: one server per request) on 127.0.0.1; resolves to { url, close }. */
async function startHttpFixture(opts = {}) {
  const httpServer = http.createServer(async (req, res) => {
    logLine(opts.logDir, 'requests', `${req.method} ${req.url}`);
    if (opts.requiredAuth && req.headers.authorization !== opts.requiredAuth) {
      res.writeHead(401).end('unauthorized');
      return;
    }
    const server = buildFixtureServer(opts);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => { void transport.close(); void server.close(); });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise((resolve) => httpServer.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = httpServer.address().port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    close: () => new Promise((resolve) => { httpServer.closeAllConnections(); httpServer.close(() => resolve()); }),
  };
}

module.exports = { buildFixtureServer, startHttpFixture, toolList };

if (require.main === module) {
  // As a child process it logs into FIXTURE_LOG, else its working directory.
  void buildFixtureServer({ logDir: process.env.FIXTURE_LOG ?? process.cwd() }).connect(new StdioServerTransport());
}
