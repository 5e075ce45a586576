/**
 * MCP tool definitions (`kind: mcp`): one registry file names an MCP server; its tools are expanded
 * into one CompiledTool each (`<tool_id>__<name>`), with their input schemas pinned into the bundle.
 *
 * Pure: the tool lists come from `mcp.pinned` in the file or from a discovery that src/mcp/discover.ts
 * ran before compiling (recorded here with recordMcpPin, keyed by the server's configuration so an
 * edited file is never served an old list).
 */
import type { CompiledTool, JsonObject, McpServerConfig } from '../compiled/types';
import { canonicalJson, sha256 } from '../compiled/canonical';

/** One tool as an MCP server lists it (tools/list), reduced to what the bundle pins. */
export interface McpListedTool { name: string; description?: string; input_schema: JsonObject }
/** What discovery found for one server: its tools, or why they could not be listed. */
export type McpPin = { tools: McpListedTool[] } | { error: string };

/** Model-visible tool names (OpenAI function names): letters, digits, `_` and `-`, at most 64. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The hash a worker compares at call time: a changed input schema (or name) changes it. */
export function mcpSchemaHash(name: string, inputSchema: unknown): string {
  return sha256(canonicalJson({ name, inputSchema: inputSchema ?? {} }));
}

/** The server part of an `mcp:` block (what a worker needs to connect), without tool settings. */
export function mcpServerConfig(block: Record<string, unknown>): McpServerConfig {
  const out: Record<string, unknown> = {};
  for (const k of ['command', 'args', 'env', 'cwd', 'url', 'headers', 'timeout_seconds', 'allowed_hosts', 'allow_private_network']) if (block[k] !== undefined) out[k] = block[k];
  return JSON.parse(JSON.stringify(out)) as McpServerConfig;
}

/** Where a server is, for messages: `node server.js` or the URL. */
export function describeMcpServer(server: McpServerConfig): string {
  return server.url ?? [server.command, ...(server.args ?? [])].join(' ');
}

/** Pool and pin key of a server: its tool_id and its whole connection configuration. */
export function mcpServerKey(serverId: string, server: McpServerConfig): string {
  return `${serverId}@${sha256(canonicalJson(server)).slice(0, 16)}`;
}

/**
 * Compile-time half of the network policy for an HTTP MCP server: the URL's host when it is outside
 * `allowed_hosts` while external HTTP is off. LOOM_INTERNAL_HOSTS is a worker setting and is not read
 * here, so a compile does not depend on the compiling machine's environment.
 */
export function mcpUrlOutsideAllowlist(server: McpServerConfig, allowExternalHttp: boolean): string | undefined {
  if (!server.url || allowExternalHttp) return undefined;
  let host: string;
  try { host = new URL(server.url).hostname; } catch { return undefined; }
  // The network policy module (with the LOOM_* environment schema) loads only for a registry with an HTTP MCP server.
  const { hostMatches } = require('../governance/network') as typeof import('../governance/network');
  return (server.allowed_hosts ?? []).some((p) => hostMatches(host, p)) ? undefined : host.replace(/^\[|\]$/g, '');
}

const discovered = new Map<string, McpPin>();
export function recordMcpPin(serverId: string, server: McpServerConfig, pin: McpPin): void {
  discovered.set(mcpServerKey(serverId, server), pin);
}
export function mcpPinFor(serverId: string, server: McpServerConfig): McpPin | undefined {
  return discovered.get(mcpServerKey(serverId, server));
}

export interface McpExpansion {
  tools: CompiledTool[];
  problems: { code: 'AGF130' | 'AGF131' | 'AGF150'; message: string }[];
}

/**
 * Expands a compiled `kind: mcp` definition (`base`, with the agent's and role's approval and limit
 * already applied) into its tools. `block` is the file's `mcp:` object.
 */
export function expandMcpTools(base: CompiledTool, block: Record<string, unknown>, sensitive: (schema: unknown) => string[], allowExternalHttp = false): McpExpansion {
  const server = mcpServerConfig(block);
  const file = `tools/${base.tool_id}.tool.md`;
  const problems: McpExpansion['problems'] = [];
  const refused = mcpUrlOutsideAllowlist(server, allowExternalHttp);
  if (refused) {
    problems.push({ code: 'AGF150', message: `${file}: \`mcp.url\` host '${refused}' is not in \`mcp.allowed_hosts\` and this agent does not set \`policies.allow_external_http: true\`; add '${refused}' to \`mcp.allowed_hosts\` (a loopback or private address also needs \`mcp.allow_private_network: true\`) or allow external HTTP in the agent` });
    return { tools: [], problems };
  }
  const pinnedInFile = Array.isArray(block.pinned)
    ? (block.pinned as Record<string, unknown>[]).map((t) => ({ name: String(t.name), description: t.description as string | undefined, input_schema: (t.input_schema ?? {}) as JsonObject }))
    : undefined;
  const pin: McpPin | undefined = pinnedInFile ? { tools: pinnedInFile } : mcpPinFor(base.tool_id, server);
  if (!pin || 'error' in pin) {
    const why = pin && 'error' in pin ? `its server could not be listed (${pin.error})` : 'no discovery ran (this command works offline)';
    problems.push({ code: 'AGF130', message: `MCP tool \`${base.tool_id}\` has no pinned tool list: ${why}; run \`loom compile\`/\`loom publish\` with the server reachable (they connect and pin its tools), or write the list under \`mcp.pinned\` in ${file}` });
    return { tools: [], problems };
  }
  const listed = new Map(pin.tools.map((t) => [t.name, t]));
  const selection = Array.isArray(block.tools)
    ? (block.tools as Record<string, unknown>[])
    : pin.tools.map((t) => ({ name: t.name }) as Record<string, unknown>);
  const tools: CompiledTool[] = [];
  for (const sel of selection) {
    const name = String(sel.name);
    const t = listed.get(name);
    if (!t) {
      problems.push({ code: 'AGF131', message: `${file}: \`mcp.tools\` names \`${name}\`, which the MCP server does not list (it lists: ${[...listed.keys()].sort().join(', ') || 'nothing'}); fix the name or remove the entry` });
      continue;
    }
    const toolId = `${base.tool_id}__${name}`;
    if (!TOOL_NAME.test(toolId)) {
      problems.push({ code: 'AGF131', message: `${file}: MCP tool \`${name}\` becomes the tool name \`${toolId}\`, which models cannot call (letters, digits, \`_\`, \`-\`, at most 64); rename the tool definition (tool_id) or narrow \`mcp.tools\`` });
      continue;
    }
    const perMax = typeof sel.max_calls_per_run === 'number' ? sel.max_calls_per_run : undefined;
    const maxCalls = perMax === undefined ? base.max_calls_per_run : base.max_calls_per_run === undefined ? perMax : Math.min(perMax, base.max_calls_per_run);
    const tool: CompiledTool = {
      tool_id: toolId,
      version: base.version,
      status: base.status,
      description: (typeof sel.description === 'string' ? sel.description : t.description) ?? base.description,
      kind: 'mcp',
      input_schema: t.input_schema,
      approval_required: base.approval_required || sel.approval_required === true,
      sensitive_fields: sensitive(t.input_schema),
      side_effects: typeof sel.side_effects === 'boolean' ? sel.side_effects : base.side_effects,
      mcp: { server_id: base.tool_id, server, name, schema_hash: mcpSchemaHash(name, t.input_schema) },
    };
    if (maxCalls !== undefined) tool.max_calls_per_run = maxCalls;
    tools.push(tool);
  }
  return { tools, problems };
}
