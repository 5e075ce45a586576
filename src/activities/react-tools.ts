/**
 * The react runtime's tool activity: validate the arguments against the tool's input schema, run
 * the tool with an idempotency key derived from the workflow id and call id, and store the result
 * as a message blob (only its ref and a short preview enter history). Unknown tools, invalid
 * arguments and tool errors become error results for the model, never a failed run.
 *
 * Builtin and http tools are executed by src/activities/tools.ts when that module provides an
 * `executeTool` function; a minimal builtin set (MINIMAL_BUILTINS) is the fallback.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { CompiledKnowledge, CompiledTool, JsonObject } from '../compiled/types';
import type { SecretRef } from '../compiled/types';
import type { BlobRef } from '../shared/contract';
import type { Message } from '../runtime/messages';
import { sourcesWithAgentRetrieval } from '../runtime/knowledge-search';
import { BundleCache, MINIMAL_BUILTINS, schemaError } from './agent-loader';
import { MessageStore } from './message-store';
import { resolveArgs } from './ephemeral';
import { waitOut } from './outages';

export interface RunToolInput {
  bundle: BlobRef;
  agent_id: string;
  workflow_id: string;
  call_id: string;
  tool: string;
  args: JsonObject;
  workspace?: string;
}

export interface RunToolOutput {
  /** The stored tool message (appended to the conversation by the next model turn). */
  ref: BlobRef;
  is_error: boolean;
  /** First 200 characters of the result, for status and the Web UI. */
  preview: string;
}

export interface ExternalToolContext {
  tool: CompiledTool;
  args: JsonObject;
  idempotencyKey: string;
  workflowId: string;
  callId: string;
  workspace?: string;
  /** The agent's `policies.allow_external_http` (http tools: false = only the tool's allowed_hosts). */
  allowExternalHttp?: boolean;
  /** The agent's knowledge sources (the `search_knowledge` builtin searches them). */
  knowledge?: CompiledKnowledge[];
  /** Where the agent's credentials_refs are read (tenant.md `secrets`): the refs' values are read only when a request needs them. */
  secrets?: Readonly<Record<string, SecretRef>>;
  heartbeat: () => void;
  signal?: AbortSignal;
}
export type ExternalToolExecutor = (ctx: ExternalToolContext) => Promise<unknown>;

export function idempotencyKey(workflowId: string, callId: string): string {
  return `${workflowId}/${callId}`;
}

function heartbeat(): void {
  try {
    Context.current().heartbeat();
  } catch {
    // outside an activity
  }
}
/** Attempts a tool's own transient failure gets when the retry policy is unlimited (the activity presets). */
export const TOOL_TRANSIENT_ATTEMPTS = 3;
/** How long a tool may run in one attempt (runTool's start-to-close is longer: it also waits out store outages). */
export const TOOL_RUN_LIMIT_MS = 10 * 60_000;

/** This attempt's number and whether a tool's transient failure is tried again. */
function attemptInfo(): { attempt: number; more: boolean } {
  try {
    const info = Context.current().info;
    const max = info.retryPolicy?.maximumAttempts || TOOL_TRANSIENT_ATTEMPTS;
    return { attempt: info.attempt, more: info.attempt < max };
  } catch {
    return { attempt: 1, more: false }; // outside an activity
  }
}
function cancelSignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

/**
 * The tool's own run is bounded (TOOL_RUN_LIMIT_MS, what the activity's start-to-close used to
 * bound): past it, a retryable ToolTimeout, tried again like the tool's other transient failures.
 */
async function withinLimit<T>(tool: string, fn: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(ApplicationFailure.retryable(`tool ${tool} did not finish within ${TOOL_RUN_LIMIT_MS / 60_000} minutes`, 'ToolTimeout')), TOOL_RUN_LIMIT_MS);
  });
  try {
    return await Promise.race([fn(), limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** When a call's first heartbeat goes out: a call that ends sooner sends none (each is a round trip to the server). */
export const FIRST_HEARTBEAT_MS = 1000;

/**
 * Heartbeat from FIRST_HEARTBEAT_MS on, then every 5 s while `fn` runs, so cancellation reaches
 * long calls and heartbeatTimeout holds. A call that ends within the first second (a tool, a
 * scripted or cached model) sends no heartbeat: the server learns of it by its completion.
 */
export async function withHeartbeat<T>(fn: () => Promise<T>): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    heartbeat();
    t = setInterval(heartbeat, 5000);
  }, FIRST_HEARTBEAT_MS);
  try {
    return await fn();
  } finally {
    clearTimeout(first);
    clearInterval(t);
  }
}

export function createReactToolActivities(deps: { bundles: BundleCache; messages: MessageStore; executor?: ExternalToolExecutor }) {
  async function findTool(bundle: BlobRef, agentId: string, name: string): Promise<CompiledTool | undefined> {
    const { agent } = await deps.bundles.agent(bundle, agentId);
    return agent.tools.refs.find((t) => t.tool_id === name);
  }

  async function execute(inp: RunToolInput): Promise<{ text: string; is_error: boolean }> {
    const tool = await findTool(inp.bundle, inp.agent_id, inp.tool);
    if (!tool) {
      const { agent } = await deps.bundles.agent(inp.bundle, inp.agent_id);
      return { text: `error: unknown tool '${inp.tool}'; available tools: ${agent.tools.refs.map((t) => t.tool_id).join(', ') || '(none)'}`, is_error: true };
    }
    const bad = schemaError(tool.input_schema, inp.args);
    if (bad) return { text: `error: invalid arguments for tool ${tool.tool_id}: ${bad}`, is_error: true };
    const { agent } = await deps.bundles.agent(inp.bundle, inp.agent_id);
    const ctx: ExternalToolContext = {
      tool,
      args: inp.args,
      idempotencyKey: idempotencyKey(inp.workflow_id, inp.call_id),
      workflowId: inp.workflow_id,
      callId: inp.call_id,
      workspace: inp.workspace,
      allowExternalHttp: agent.policies?.allow_external_http ?? false,
      knowledge: sourcesWithAgentRetrieval(agent.knowledge),
      secrets: agent.tenant?.secrets,
      heartbeat,
      signal: cancelSignal(),
    };
    try {
      let result: unknown;
      const builtin = tool.kind === 'builtin' ? MINIMAL_BUILTINS[tool.builtin?.name ?? tool.tool_id] : undefined;
      if (deps.executor) {
        result = await deps.executor(ctx).catch(async (e: unknown) => {
          // The shared executor does not know this builtin: fall back to the minimal set.
          if (builtin && e instanceof Error && /unknown builtin|not registered|no builtin/i.test(e.message)) return builtin(inp.args, ctx);
          throw e;
        });
      } else if (builtin) {
        result = await builtin(inp.args, ctx);
      } else {
        return { text: `error: tool ${tool.tool_id} (${tool.kind}${tool.builtin ? ` ${tool.builtin.name}` : ''}) is not available in this worker`, is_error: true };
      }
      return { text: typeof result === 'string' ? result : JSON.stringify(result ?? null), is_error: false };
    } catch (e) {
      if (cancelSignal()?.aborted) throw e;
      // Transient failures (a retryable ApplicationFailure: 429/5xx, timeouts, connection errors) fail
      // the attempt so Temporal retries it; on the last attempt the model gets the error instead.
      const transient = e instanceof ApplicationFailure && !e.nonRetryable;
      const { attempt, more } = attemptInfo();
      if (transient && more) throw e;
      const after = transient && attempt > 1 ? ` after ${attempt} attempts` : '';
      return { text: `error: tool ${tool.tool_id} failed${after}: ${(e as Error)?.message ?? String(e)}`, is_error: true };
    }
  }

  return {
    async runTool(inp: RunToolInput): Promise<RunToolOutput> {
      // An ephemeral run's call carries its arguments by reference.
      const args = await resolveArgs(deps.messages.blobs, inp.args);
      const r = await withHeartbeat(() => withinLimit(inp.tool, () => execute({ ...inp, args })));
      const msg: Message = { role: 'tool', content: r.text, tool_call_id: inp.call_id, name: inp.tool };
      if (r.is_error) msg.is_error = true;
      // The tool ran: from here on a failed attempt would run it again (its side effect twice), so
      // the bookkeeping waits out a store outage inside this attempt, heartbeating why.
      const where = `the store ${deps.messages.blobs.location}`;
      const ref = await waitOut(where, () => deps.messages.putLoose(msg));
      // An ephemeral run's history holds no tool output, not even a preview.
      const ephemeral = (await waitOut(where, () => deps.messages.salt())) !== undefined;
      return { ref, is_error: r.is_error, preview: ephemeral ? '' : r.text.slice(0, 200) };
    },
    /** Validate (corrected) arguments without running the tool: approveCall uses it. */
    async checkToolArgs(inp: { bundle: BlobRef; agent_id: string; tool: string; args: JsonObject }): Promise<{ ok: boolean; error?: string }> {
      const tool = await findTool(inp.bundle, inp.agent_id, inp.tool);
      if (!tool) return { ok: true };
      const bad = schemaError(tool.input_schema, await resolveArgs(deps.messages.blobs, inp.args));
      return bad ? { ok: false, error: `invalid arguments for tool ${tool.tool_id}: ${bad}` } : { ok: true };
    },
  };
}
