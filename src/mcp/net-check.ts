/**
 * The network policy for an HTTP MCP server, checked before any connection (discovery at
 * compile/publish time and every call on a worker): the same `checkHttpTarget` an http tool of the
 * agent gets, with the `mcp:` block's `allowed_hosts`/`allow_private_network` and LOOM_INTERNAL_HOSTS.
 */
import type { McpServerConfig } from '../compiled/types';
import { checkHttpTarget, type NetPolicy, type Resolver, systemResolver } from '../governance/network';

/** A URL the policy refuses: nothing was sent, and retrying cannot help. */
export class McpPolicyError extends Error {}

export function mcpNetPolicy(server: McpServerConfig, allowExternalHttp: boolean): NetPolicy {
  return { allowExternalHttp, allowedHosts: server.allowed_hosts, allowPrivateNetwork: server.allow_private_network ?? false };
}

/** Throws McpPolicyError with the policy's reason when `server.url` may not be reached; stdio servers pass. */
export async function assertMcpUrlAllowed(server: McpServerConfig, allowExternalHttp: boolean, resolve: Resolver = systemResolver): Promise<void> {
  if (!server.url) return;
  const r = await checkHttpTarget(server.url, mcpNetPolicy(server, allowExternalHttp), resolve);
  // The policy's wording names http tools' fields; an MCP server's live in its `mcp:` block.
  if (!r.ok) throw new McpPolicyError(`${server.url}: ${r.reason.replace(/http\.(allowed_hosts|allow_private_network)/g, 'mcp.$1')}`);
}
