/**
 * Opening one MCP client session to a server of a `kind: mcp` tool definition: a stdio child process
 * (`command`, `args`, and only the env vars *named* in `env`) or a streamable HTTP endpoint (`url`,
 * header values read from the env vars named in `headers`). Used by discovery (compile/publish) and
 * by the workers' session pool.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from '../compiled/types';
import type { Resolver } from '../governance/network';
import { guardedFetch } from './guarded-fetch';

/** A configuration mistake (a missing env var): retrying cannot help. */
export class McpConfigError extends Error {}

export interface McpConnection {
  client: Client;
  /** The stdio server's process id (undefined for HTTP). */
  pid?: number;
  /** The last lines the stdio server wrote to stderr (for error messages). */
  stderrTail(): string;
  close(): Promise<void>;
}

export { describeMcpServer as describeServer } from '../compiler/mcp-tools';

function envValue(name: string, env: NodeJS.ProcessEnv, what: string): string {
  const v = env[name];
  if (v === undefined) throw new McpConfigError(`env var ${name} (${what}) is not set in this worker's environment; set it where the worker runs`);
  return v;
}

/**
 * `resolve` (tests): the DNS the HTTP session's connections use. Every connection checks the
 * addresses it resolves against the server's `allow_private_network` (src/mcp/guarded-fetch.ts);
 * the host-level policy (allow_external_http, allowed_hosts) is checked per call by the caller.
 */
export async function connectMcp(server: McpServerConfig, opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; onClose?: () => void; resolve?: Resolver } = {}): Promise<McpConnection> {
  const env = opts.env ?? process.env;
  let transport: Transport;
  let stderr = '';
  let stdio: StdioClientTransport | undefined;
  if (server.command) {
    const childEnv: Record<string, string> = { ...getDefaultEnvironment() };
    for (const name of server.env ?? []) childEnv[name] = envValue(name, env, `listed in mcp.env`);
    stdio = new StdioClientTransport({ command: server.command, args: server.args ?? [], env: childEnv, cwd: server.cwd, stderr: 'pipe' });
    stdio.stderr?.on('data', (b: Buffer) => { stderr = (stderr + b.toString()).slice(-2000); });
    transport = stdio;
  } else if (server.url) {
    const headers: Record<string, string> = {};
    for (const [h, v] of Object.entries(server.headers ?? {})) {
      headers[h] = v.value_env ? envValue(v.value_env, env, `header ${h}`) : (v.value ?? '');
    }
    const fetch = guardedFetch({ allowExternalHttp: true, allowPrivateNetwork: server.allow_private_network ?? false }, opts.resolve);
    transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers }, fetch });
  } else {
    throw new McpConfigError('an MCP server needs `command` (stdio) or `url` (streamable HTTP)');
  }
  const client = new Client({ name: 'agentloom', version: '1.0.0' });
  client.onclose = () => opts.onClose?.();
  await client.connect(transport, { timeout: opts.timeoutMs ?? 30000 });
  return {
    client,
    pid: stdio?.pid ?? undefined,
    stderrTail: () => stderr.trim().split('\n').slice(-5).join('\n'),
    close: () => client.close(),
  };
}
