/**
 * A worker's MCP sessions, one per server definition (tool_id + connection configuration), opened on
 * first use and shared by every call. A session whose transport closes (a crashed stdio server, a
 * dropped HTTP connection) is forgotten, so the next call (Temporal's retry) starts a fresh one.
 */
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../compiled/types';
import { mcpSchemaHash, mcpServerKey } from '../compiler/mcp-tools';
import { connectMcp, type McpConnection } from './connect';
import { withoutTraceHeaders } from '../platform/trace-context';

export interface McpSession {
  conn: McpConnection;
  /** name -> schema hash of the tools the server lists now (refreshed on tools/list_changed). */
  toolHashes(): Promise<Map<string, string>>;
}

export class McpPool {
  private readonly sessions = new Map<string, Promise<McpSession>>();
  /** How many sessions were opened per key (a restart counts again). */
  readonly opened = new Map<string, number>();

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  session(serverId: string, server: McpServerConfig): Promise<McpSession> {
    const key = mcpServerKey(serverId, server);
    let s = this.sessions.get(key);
    if (!s) {
      s = this.open(key, server);
      this.sessions.set(key, s);
      s.catch(() => { if (this.sessions.get(key) === s) this.sessions.delete(key); });
    }
    return s;
  }

  /** Forget a session (its transport failed); the next call opens a new one. */
  drop(serverId: string, server: McpServerConfig): void {
    const key = mcpServerKey(serverId, server);
    const s = this.sessions.get(key);
    this.sessions.delete(key);
    void s?.then((x) => x.conn.close()).catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.then((x) => x.conn.close()).catch(() => undefined)));
  }

  private async open(key: string, server: McpServerConfig): Promise<McpSession> {
    this.opened.set(key, (this.opened.get(key) ?? 0) + 1);
    let self: Promise<McpSession> | undefined;
    // Opened outside the first call's trace: the session serves every later call too.
    const conn = await withoutTraceHeaders(() => connectMcp(server, {
      env: this.env,
      onClose: () => { if (self && this.sessions.get(key) === self) this.sessions.delete(key); },
    }));
    self = this.sessions.get(key);
    let hashes: Promise<Map<string, string>> | undefined;
    conn.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => { hashes = undefined; });
    return {
      conn,
      toolHashes() {
        hashes ??= (async () => {
          const m = new Map<string, string>();
          let cursor: string | undefined;
          do {
            const page = await conn.client.listTools(cursor ? { cursor } : undefined);
            for (const t of page.tools) m.set(t.name, mcpSchemaHash(t.name, JSON.parse(JSON.stringify(t.inputSchema))));
            cursor = page.nextCursor;
          } while (cursor);
          return m;
        })();
        hashes.catch(() => { hashes = undefined; });
        return hashes;
      },
    };
  }
}
