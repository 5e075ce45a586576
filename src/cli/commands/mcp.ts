/**
 * `loom mcp [--registry DIR] [--http PORT]`: serve Agentloom's run operations as MCP tools (see
 * src/mcp-server/server.ts) over stdio (default; stdout carries only the protocol) or streamable HTTP on
 * 127.0.0.1:PORT. Needs a Temporal server (TEMPORAL_ADDRESS or a running `loom dev`).
 */
import * as http from 'http';
import * as path from 'path';
import { defineCommand, flagString, registryDir } from '../args';
import { UsageError } from '../../operator/errors';

export const run = defineCommand(
  'mcp',
  { usage: 'loom mcp [--registry DIR] [--http PORT]', options: { registry: { type: 'string', value: 'DIR', help: 'the registry folder (else LOOM_REGISTRY, else the current folder).' }, http: { type: 'string', value: 'PORT', help: 'serve streamable HTTP on 127.0.0.1:PORT instead of stdio.' } }, positionals: { min: 0, max: 0 } },
  async (args) => {
    const portText = flagString(args, 'http');
    const port = portText === undefined ? undefined : Number(portText);
    if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536)) throw new UsageError(`--http needs a port number (0-65535), e.g. --http 8765 (got '${portText}')`);
    const registry = path.resolve(registryDir(args));
    const { connect } = await import('../../operator/connect');
    const { createLoomMcpServer } = await import('../../mcp-server/server');
    const session = await connect({ embedded: 'never' });
    if (port === undefined) {
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const server = createLoomMcpServer(session, { registry });
      const closed = new Promise<void>((resolve) => { server.server.onclose = () => resolve(); });
      await server.connect(new StdioServerTransport());
      process.stdin.on('end', () => void server.close());
      await closed;
      await session.close();
      return 0;
    }
    const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
    // Stateless: one MCP server per request; every tool is a short Temporal operation.
    const httpServer = http.createServer((req, res) => {
      const server = createLoomMcpServer(session, { registry });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => { void transport.close(); void server.close(); });
      server.connect(transport).then(() => transport.handleRequest(req, res)).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String((e as Error)?.message ?? e));
      });
    });
    await new Promise<void>((resolve) => httpServer.listen(port, '127.0.0.1', resolve));
    const addr = httpServer.address();
    process.stderr.write(`loom mcp: streamable HTTP on http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : port}/mcp (Ctrl-C stops)\n`);
    await new Promise<void>((resolve) => { process.once('SIGINT', resolve); process.once('SIGTERM', resolve); });
    httpServer.closeAllConnections();
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    await session.close();
    return 0;
  },
);
