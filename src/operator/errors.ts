/**
 * The two kinds of failure an operator sees, shared by the CLI, the MCP server and AgentloomClient:
 * a usage error (bad input from the person or program asking; the CLI exits 2) and the one line
 * printed for any other error, with every distinct cause under it.
 */

export class UsageError extends Error {}

/** A run refused before anything starts (its definition does not compile, its input does not fit…), or a run that failed. */
export class RunError extends Error {}

/** A run that started and failed: its workflow id and the innermost failure in words (`message` is "ID failed: REASON"). */
export class RunFailedError extends RunError {
  constructor(readonly workflowId: string, readonly reason: string) { super(`${workflowId} failed: ${reason}`); }
}

/** A chat session that cannot start: its id is malformed, its agent does not compile or cannot run as a session. */
export class SessionStartError extends Error {}

/**
 * The one line `loom` prints for an unexpected error: its message and every distinct cause under it
 * (a Temporal client error wraps the server's reason: "Failed to start Workflow: … message size
 * exceeds …"), so the root cause is always shown. gRPC errors carry the server's text in `details`.
 */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  for (let cur: unknown = err; cur !== undefined && cur !== null && !seen.has(cur) && parts.length < 10; cur = (cur as { cause?: unknown }).cause) {
    seen.add(cur);
    const e = cur as { message?: unknown; details?: unknown };
    const text = (typeof e.details === 'string' && e.details) || (typeof e.message === 'string' && e.message) || (typeof cur === 'object' ? '' : String(cur));
    const line = text.replace(/\s+/g, ' ').trim();
    if (!line) continue;
    // A wrapper that repeats its cause's text (or the other way round) adds nothing.
    const last = parts[parts.length - 1];
    if (last && (last.includes(line) || line.includes(last))) { if (line.length > last.length) parts[parts.length - 1] = line; continue; }
    parts.push(line);
  }
  return parts.length ? parts.join(': ') : String(err);
}
