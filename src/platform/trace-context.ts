/**
 * The trace headers of the tool call in progress (what `propagate_context` sends to tools): the tracing activity interceptor
 * (src/telemetry/tracing.ts) runs a `runTool` activity inside `withTraceHeaders`, and the code that
 * sends the call (http tools in src/activities/http-tool.ts, MCP over HTTP in src/mcp/guarded-fetch.ts)
 * adds `currentTraceHeaders()` to its request. Outside such a call, or when the agent does not
 * propagate, there are none.
 */
import { AsyncLocalStorage } from 'async_hooks';

export type TraceHeaders = Readonly<Record<string, string>>;

const current = new AsyncLocalStorage<TraceHeaders>();
const NONE: TraceHeaders = Object.freeze({});

/** Run `fn` (and everything it starts) with these outbound trace headers. */
export function withTraceHeaders<T>(headers: TraceHeaders, fn: () => T): T {
  return current.run(headers, fn);
}

/** Run `fn` with no trace headers, e.g. opening a session shared by later calls. */
export function withoutTraceHeaders<T>(fn: () => T): T {
  return current.run(NONE, fn);
}

/** The headers outbound calls made here carry: `traceparent` (and `tracestate` if any), or none. */
export function currentTraceHeaders(): TraceHeaders {
  return current.getStore() ?? NONE;
}
