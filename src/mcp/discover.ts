/**
 * Pinning at compile/publish time: connect to every `kind: mcp` server of a registry that has no
 * `mcp.pinned` list, list its tools and record them (src/compiler/mcp-tools.ts) so the compiler puts
 * their names and input schemas into the immutable bundle.
 */
import type { McpServerConfig } from '../compiled/types';
import { loadRegistry } from '../compiler';
import { describeMcpServer, mcpServerConfig, recordMcpPin, type McpListedTool, type McpPin } from '../compiler/mcp-tools';
import type { McpConnection } from './connect';

/** Lists one server's tools (one short session). */
export async function listMcpTools(server: McpServerConfig, opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; allowExternalHttp?: boolean } = {}): Promise<McpListedTool[]> {
  // The network policy first: a refused URL gets no request at all. Loaded here, like the SDK below:
  // a compile of a registry without MCP servers loads neither.
  const { assertMcpUrlAllowed } = await import('./net-check');
  await assertMcpUrlAllowed(server, opts.allowExternalHttp ?? false);
  // Loaded only when a registry has an MCP server: plain compiles do not load the SDK.
  const { connectMcp } = await import('./connect');
  const conn: McpConnection = await connectMcp(server, opts);
  try {
    const tools: McpListedTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await conn.client.listTools(cursor ? { cursor } : undefined, { timeout: opts.timeoutMs ?? 30000 });
      for (const t of page.tools) tools.push({ name: t.name, ...(t.description ? { description: t.description } : {}), input_schema: JSON.parse(JSON.stringify(t.inputSchema)) });
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  } finally {
    await conn.close().catch(() => undefined);
  }
}

/** Discovers and records the tools of every unpinned MCP server in `registryDir`; returns what it did. */
export async function pinMcpServers(registryDir: string, opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Record<string, McpPin>> {
  const reg = loadRegistry(registryDir);
  const out: Record<string, McpPin> = {};
  await Promise.all([...reg.entries.tool.values()].map(async (e) => {
    const d = (e.data ?? {}) as Record<string, unknown>;
    const block = d.mcp as Record<string, unknown> | undefined;
    if (d.kind !== 'mcp' || !block || Array.isArray(block.pinned)) return;
    const server = mcpServerConfig(block);
    // Discovery may reach what at least one agent using this server may reach at run time.
    const allowExternalHttp = [...reg.entries.agent.values()].some((a) => {
      const ad = (a.data ?? {}) as { policies?: { allow_external_http?: unknown }; tools?: { refs?: unknown } };
      const refs = Array.isArray(ad.tools?.refs) ? (ad.tools.refs as { ref?: unknown }[]) : [];
      return ad.policies?.allow_external_http === true && refs.some((r) => r?.ref === e.id);
    });
    let pin: McpPin;
    try {
      pin = { tools: await listMcpTools(server, { ...opts, allowExternalHttp }) };
    } catch (err) {
      pin = { error: `${describeMcpServer(server)}: ${(err as Error)?.message ?? String(err)}` };
    }
    recordMcpPin(e.id, server, pin);
    out[e.id] = pin;
  }));
  return out;
}
