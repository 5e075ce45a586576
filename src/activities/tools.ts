/**
 * The tool executor for the react runtime (`runTool` in react-tools.ts calls `executeTool`): the
 * builtin registry and the dispatch to builtins and http tools (calculator.ts, file-tools.ts,
 * shell.ts, http-tool.ts).
 *
 * - builtin tools: a worker-side registry. It starts with MINIMAL_BUILTINS (echo, arithmetic,
 *   current_time, fail, sleep) plus `calculator` (parsed by mathjs, evaluated over a whitelist; no eval), `read_file`
 *   and `write_file` (confined to the run's workspace; writes are idempotent per call and recorded in the
 *   workspace's change log, evidence-log.ts), `shell` (shell.ts: allowed commands only). Workers
 *   add their own with `registerBuiltinTool(name, fn)`.
 * - http tools (`kind: http`): URL template filled from URL-encoded arguments, the rest as query
 *   string (GET, or `body: none`) or JSON body; headers from env vars (`value_env`); an
 *   `Idempotency-Key` header on non-GET; a W3C `traceparent` when the agent traces and propagates
 *   context (src/platform/trace-context.ts); the network policy of src/governance/network.ts checked before
 *   connecting, and the connection made to the checked addresses only (DNS-rebinding safe).
 *
 * Failure semantics (react-tools.ts turns thrown errors into error results for the model):
 * - retryable ApplicationFailure (429, 5xx, 408/409/425, timeouts, connection errors, transient DNS):
 *   react-tools rethrows it so Temporal retries the activity; on the last attempt the model sees it.
 * - everything else (4xx, policy refusals, bad arguments, missing env vars, builtin errors): a
 *   non-retryable failure or plain Error, which the model sees as a tool error result.
 */
import type { JsonObject } from '../compiled/types';
import { MINIMAL_BUILTINS } from './agent-loader';
import type { ExternalToolContext } from './react-tools';
import { searchSources } from './knowledge';
import { shellTool } from './shell';
import { SHELL_BUILTIN } from '../governance/shell';
import { evaluateExpression } from './calculator';
import { readFileTool, writeFileTool } from './file-tools';
import { executeHttpTool, type ToolExecutorOptions } from './http-tool';


// ---------------------------------------------------------------------------------------------
// Builtin registry
// ---------------------------------------------------------------------------------------------

/** A builtin tool: gets the validated arguments and the call context; its return value is the result. */
export type BuiltinToolFn = (args: JsonObject, ctx: ExternalToolContext) => Promise<unknown> | unknown;

const registry = new Map<string, BuiltinToolFn>();

/**
 * Register (or replace) a builtin tool in this worker process. Tool files name it with
 * `kind: builtin, builtin: { name }`. Returns a function that restores the previous registration.
 */
export function registerBuiltinTool(name: string, fn: BuiltinToolFn): () => void {
  if (!/^[A-Za-z][\w.-]{0,127}$/.test(name)) throw new Error(`invalid builtin tool name '${name}'`);
  if (typeof fn !== 'function') throw new Error(`builtin tool '${name}' must be a function`);
  const prev = registry.get(name);
  registry.set(name, fn);
  return () => {
    if (registry.get(name) !== fn) return;
    if (prev) registry.set(name, prev);
    else registry.delete(name);
  };
}

export function builtinToolNames(): string[] {
  return [...registry.keys()].sort();
}

export function getBuiltinTool(name: string): BuiltinToolFn | undefined {
  return registry.get(name);
}

// The minimal set (agent-loader.ts) is the base; the builtins below add to it.
for (const [name, fn] of Object.entries(MINIMAL_BUILTINS)) registerBuiltinTool(name, fn);
registerBuiltinTool('calculator', (args) => {
  const e = args.expression ?? args.expr ?? args.input;
  if (typeof e !== 'string') throw new Error("calculator: 'expression' must be a string, e.g. \"(2 + 3) * 4\"");
  return evaluateExpression(e);
});
registerBuiltinTool('read_file', readFileTool);
registerBuiltinTool('search_knowledge', async (args, ctx) => {
  const q = args.query ?? args.q;
  if (typeof q !== 'string' || !q.trim()) throw new Error("search_knowledge: 'query' must be a non-empty string");
  const limit = typeof args.limit === 'number' && args.limit > 0 ? Math.floor(args.limit) : undefined;
  // files/http backends read here (activity); inline documents come with the bundle; semantic/hybrid sources are embedded (src/activities/embeddings.ts).
  const sources = ctx.knowledge ?? [];
  const hits = await searchSources(sources, q, { limit, secrets: ctx.secrets, signal: ctx.signal });
  return hits.length ? hits : `no article matches '${q}' in ${(ctx.knowledge ?? []).map((k) => k.kb_id).join(', ') || 'this agent\'s knowledge (none declared)'}`;
});
registerBuiltinTool('write_file', writeFileTool);
registerBuiltinTool(SHELL_BUILTIN, (args, ctx) => shellTool(args, ctx));

// ---------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------

/** An executor with injected options (tests: a fake resolver, env, response cap). */
export function createToolExecutor(opts: ToolExecutorOptions = {}): (ctx: ExternalToolContext) => Promise<unknown> {
  return async (ctx) => {
    const tool = ctx.tool;
    if (tool.kind === 'builtin') {
      const name = tool.builtin?.name ?? tool.tool_id;
      const fn = registry.get(name);
      if (!fn) throw new Error(`unknown builtin '${name}' (this worker has: ${builtinToolNames().join(', ')}); register it with registerBuiltinTool`);
      return await fn(ctx.args ?? {}, ctx);
    }
    if (tool.kind === 'http') return executeHttpTool(ctx, opts);
    throw new Error(`tool ${tool.tool_id} of kind '${tool.kind}' is not run by the tool executor`);
  };
}

const defaultExecutor = createToolExecutor();

/** Run a builtin or http tool for runTool (react-tools.ts). */
export async function executeTool(ctx: ExternalToolContext): Promise<unknown> {
  return defaultExecutor(ctx);
}
