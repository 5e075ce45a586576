/**
 * Running a `kind: mcp` tool call inside the runTool activity: through the worker's pooled session
 * to its server, after checking that the server still lists the tool with the schema pinned in the
 * bundle (a changed schema is refused, never called). The Temporal cancellation signal is passed to
 * the SDK, which sends the MCP `notifications/cancelled` to the server; the idempotency key travels
 * in `_meta`. Transport failures (a crashed server, a dropped connection, a timeout) are retryable:
 * the session is dropped so Temporal's next attempt starts the server again.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ExternalToolContext } from './react-tools';
import { McpPool } from '../mcp/pool';
import { McpConfigError, describeServer } from '../mcp/connect';
import { assertMcpUrlAllowed, McpPolicyError } from '../mcp/net-check';

/** Key under which the idempotency key is sent in a tools/call request's `_meta`. */
export const MCP_IDEMPOTENCY_META = 'dev.agentloom/idempotency-key';
const DEFAULT_TIMEOUT_S = 300;

/** Failures where the request may not have reached the server, or the server died: try again. */
function isTransportFailure(e: unknown): boolean {
  if (e instanceof McpError) return e.code === ErrorCode.ConnectionClosed || e.code === ErrorCode.RequestTimeout;
  const code = (e as NodeJS.ErrnoException)?.code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE' || /fetch failed|socket|closed|ECONN/i.test(String((e as Error)?.message));
}

/** The text of a tools/call result: its text parts, or the structured content as JSON. */
function resultText(r: { content?: unknown; structuredContent?: unknown }): string {
  if (r.structuredContent !== undefined) return JSON.stringify(r.structuredContent);
  const parts = Array.isArray(r.content) ? (r.content as { type: string; text?: string }[]) : [];
  return parts.map((p) => (p.type === 'text' ? p.text ?? '' : `[${p.type}]`)).join('\n');
}

export function createMcpToolExecutor(pool: McpPool = new McpPool()): (ctx: ExternalToolContext) => Promise<unknown> {
  return async (ctx) => {
    const cfg = ctx.tool.mcp;
    if (!cfg) throw ApplicationFailure.nonRetryable(`tool ${ctx.tool.tool_id} has kind mcp but no mcp block; recompile the agent`, 'ToolMisconfigured');
    const where = describeServer(cfg.server);
    try {
      // Checked on every call, with this agent's policy: the pooled session may be shared with others.
      await assertMcpUrlAllowed(cfg.server, ctx.allowExternalHttp ?? false);
    } catch (e) {
      if (e instanceof McpPolicyError) throw ApplicationFailure.nonRetryable(`MCP server ${cfg.server_id}: ${e.message}`, 'ToolPolicyBlocked');
      throw ApplicationFailure.retryable(`MCP server ${cfg.server_id} (${where}): ${(e as Error)?.message ?? e}`, 'McpTransportError');
    }
    let session;
    try {
      session = await pool.session(cfg.server_id, cfg.server);
    } catch (e) {
      if (e instanceof McpConfigError) throw ApplicationFailure.nonRetryable(`MCP server ${cfg.server_id}: ${e.message}`, 'McpConfigError');
      throw ApplicationFailure.retryable(`cannot connect to MCP server ${cfg.server_id} (${where}): ${(e as Error)?.message ?? e}`, 'McpTransportError');
    }
    const hashes = await session.toolHashes().catch((e: unknown) => {
      pool.drop(cfg.server_id, cfg.server);
      throw ApplicationFailure.retryable(`MCP server ${cfg.server_id} (${where}) did not list its tools: ${(e as Error)?.message ?? e}`, 'McpTransportError');
    });
    const now = hashes.get(cfg.name);
    if (now !== cfg.schema_hash) {
      const what = now === undefined ? `no longer lists tool \`${cfg.name}\`` : `changed the input schema of \`${cfg.name}\` (pinned ${cfg.schema_hash.slice(0, 12)}, now ${now.slice(0, 12)})`;
      throw ApplicationFailure.nonRetryable(
        `MCP server ${cfg.server_id} (${where}) ${what} since this agent was published; the call was not made. Re-publish the agent (a new version pins the current schema) and start a new run`,
        'McpSchemaDrift',
      );
    }
    try {
      const r = await session.conn.client.callTool(
        { name: cfg.name, arguments: ctx.args, _meta: { [MCP_IDEMPOTENCY_META]: ctx.idempotencyKey } },
        undefined,
        { signal: ctx.signal, timeout: (cfg.server.timeout_seconds ?? DEFAULT_TIMEOUT_S) * 1000, resetTimeoutOnProgress: true, onprogress: () => ctx.heartbeat() },
      );
      const text = resultText(r as { content?: unknown; structuredContent?: unknown });
      if (r.isError) throw ApplicationFailure.nonRetryable(text || 'the MCP server reported an error', 'McpToolError');
      return text;
    } catch (e) {
      if (ctx.signal?.aborted || e instanceof ApplicationFailure) throw e;
      if (isTransportFailure(e)) {
        pool.drop(cfg.server_id, cfg.server);
        const tail = session.conn.stderrTail();
        throw ApplicationFailure.retryable(`MCP server ${cfg.server_id} (${where}) failed during the call: ${(e as Error)?.message ?? e}${tail ? `; its stderr: ${tail}` : ''}`, 'McpTransportError');
      }
      throw ApplicationFailure.nonRetryable(`MCP tool ${cfg.name} on ${cfg.server_id}: ${(e as Error)?.message ?? e}`, 'McpToolError');
    }
  };
}
