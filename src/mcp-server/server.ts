/**
 * Agentloom as an MCP server (`loom mcp`): tools that start a run of a published agent, read its
 * status and result, list the decisions waiting on a human and approve or reject them. Each tool is a
 * thin client of the same Temporal operations the CLI uses (startPrepared, the status query,
 * collectInbox, callTarget + the approve/reject updates), so runs stay durable whatever happens to
 * the MCP client.
 */
import * as fs from 'fs';
import * as path from 'path';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CompiledBundle, JsonObject, JsonValue } from '../compiled/types';
import { compareSemver } from '../compiler/publish';
import type { LoomSession } from '../operator/connect';
import type { ApproveArgs, RejectArgs, RunStatus } from '../shared/contract';
import { workflowTypeFor, patternOf } from '../shared/dispatch';
import { openBlobStore, storeBundle } from '../activities/blob-store';
import { byReferenceInput, inputErrors, startPrepared, storeFirstMessage, tooLargeForHistory, type PreparedRun } from '../operator/runs';
import { depthRefusal } from '../operator/input-limits';
import { describeError } from '../operator/errors';
import { collectInbox } from '../operator/inbox';
import { callTarget } from '../operator/decisions';
import { approveUpdate, rejectUpdate, statusQuery } from '../shared/definitions';
import { statusWithStoredArgs } from '../operator/stored-args';
import { withAgentView } from '../runtime/agent-view-build';

/** A refusal the MCP client should read (bad input, nothing published, a refused update). */
class ToolRefusal extends Error {}

/** The published bundle of `agentId` (`version`, else the highest) under <registry>/.loom/published. */
export function loadPublished(registry: string, agentId: string, version?: string): CompiledBundle {
  const dir = path.join(registry, '.loom', 'published', agentId);
  let versions: string[] = [];
  try { versions = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort(compareSemver); } catch { versions = []; }
  if (!versions.length) throw new ToolRefusal(`agent ${agentId} is not published in ${registry}; run \`loom publish ${agentId} --registry ${registry}\` first`);
  const v = version ?? versions[versions.length - 1];
  if (!versions.includes(v)) throw new ToolRefusal(`agent ${agentId} has no published version ${v}; published: ${versions.join(', ')}`);
  return JSON.parse(fs.readFileSync(path.join(dir, `${v}.json`), 'utf8')) as CompiledBundle;
}

async function preparePublished(registry: string, agentId: string, input: JsonValue | undefined, version?: string): Promise<PreparedRun> {
  const bundle = loadPublished(registry, agentId, version);
  const root = bundle.agents[bundle.root];
  const examples = root.interface.input.examples ?? [];
  if (input === undefined && !examples.length) throw new ToolRefusal(`${agentId} has no interface.input.examples: pass \`input\``);
  const given = input === undefined ? examples[0] : input;
  // The checks `loom run` makes before anything starts: nesting depth first, size once the run type is known.
  const tooDeep = depthRefusal(given);
  if (tooDeep) throw new ToolRefusal(tooDeep);
  const problems = inputErrors(root, given);
  if (problems.length) throw new ToolRefusal(`input refused by ${agentId}'s interface.input.schema: ${problems.join('; ')}`);
  const workflowType = workflowTypeFor(root);
  if (!workflowType) throw new ToolRefusal(`${agentId} uses ${patternOf(root)}, which this runtime does not implement`);
  const byReference = tooLargeForHistory(root, workflowType, given);
  const ref = await storeBundle(openBlobStore(), bundle);
  // The agent's view in the start input, as AgentloomClient starts a run: no loadAgent activity.
  if (byReference === undefined) return { bundle, root, input: given, inputFromExample: input === undefined, workflowType, runInput: withAgentView({ bundle: ref, agent_id: root.agent_id, input: given }, bundle, workflowType) };
  // Claim check, as `loom run` does: the history holds the stored first message's reference.
  const runInput = withAgentView(byReferenceInput(ref, root.agent_id, { input_ref: await storeFirstMessage(root, given) }), bundle, workflowType);
  return { bundle, root, input: given, inputFromExample: input === undefined, workflowType, inputByReference: byReference, runInput };
}

const json = (v: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(v, null, 2) }], structuredContent: v as Record<string, unknown> });

/** Runs a tool body; refusals and Temporal errors become an MCP error result with the reason. */
async function answer(fn: () => Promise<Record<string, unknown>>): Promise<CallToolResult> {
  try {
    return json(await fn());
  } catch (e) {
    // The whole cause chain, as the CLI prints it (a Temporal client error's reason is in its causes).
    return { content: [{ type: 'text', text: `error: ${describeError(e)}` }], isError: true };
  }
}

export function createLoomMcpServer(s: LoomSession, opts: { registry: string }): McpServer {
  const server = new McpServer({ name: 'agentloom', version: '1.0.0' });
  const runStatus = async (workflowId: string): Promise<Record<string, unknown>> => {
    const h = s.client.workflow.getHandle(workflowId);
    const desc = await h.describe();
    let status: RunStatus | undefined;
    try { status = await h.query(statusQuery); } catch { status = undefined; }
    // An ephemeral run's pending calls hold a reference: their arguments are read from the store.
    if (status) status = await statusWithStoredArgs(status);
    return { workflow_id: workflowId, temporal_status: desc.status.name, ...(status ?? {}) };
  };

  server.registerTool('start_run', {
    description: 'Start a run of a published agent (its highest published version unless `version` is given). Returns the workflow id.',
    inputSchema: { agent_id: z.string(), input: z.any().optional().describe('the agent input (default: its first interface.input.examples entry)'), version: z.string().optional() },
  }, async ({ agent_id, input, version }) => answer(async () => {
    const p = await preparePublished(opts.registry, agent_id, input as JsonValue | undefined, version);
    const h = await startPrepared(s.client, p);
    return { workflow_id: h.workflowId, agent_id, version: p.root.version };
  }));

  server.registerTool('get_run', {
    description: 'The status of a run: Temporal status, state (e.g. waiting_for_approval), pending approvals and decisions, usage.',
    inputSchema: { workflow_id: z.string() },
  }, async ({ workflow_id }) => answer(() => runStatus(workflow_id)));

  server.registerTool('get_result', {
    description: 'The output of a run. With wait=false (default) a run still going answers with its status; wait=true waits for the end.',
    inputSchema: { workflow_id: z.string(), wait: z.boolean().optional() },
  }, async ({ workflow_id, wait }, extra) => answer(async () => {
    const h = s.client.workflow.getHandle(workflow_id);
    if (!wait) {
      const desc = await h.describe();
      if (desc.status.name === 'RUNNING') return { workflow_id, temporal_status: desc.status.name, done: false };
    }
    const result = (await Promise.race([
      h.result(),
      new Promise((_, reject) => extra.signal.addEventListener('abort', () => reject(new ToolRefusal('cancelled by the client; the run goes on')), { once: true })),
    ])) as { output?: JsonValue } | undefined;
    const output = (result?.output ?? result ?? null) as JsonValue;
    // An ephemeral run's output waits in the store: collected once, like `loom result`.
    const { ephemeralOutputRef } = await import('../activities/ephemeral');
    if (ephemeralOutputRef(output)) {
      const kept = await (await import('../operator/run-flow')).collectOutput(workflow_id);
      if (!kept) throw new ToolRefusal(`${workflow_id} is an ephemeral run and its output is no longer in the store: it was already collected, or not collected within LOOM_EPHEMERAL_PICKUP_HOURS and purged`);
      return { workflow_id, done: true, output: kept.output as JsonValue };
    }
    return { workflow_id, done: true, output };
  }));

  server.registerTool('list_pending_decisions', {
    description: 'Every decision waiting on a human in every open run tree (approvals, route approvals, human-queue waits), with the ref to answer it.',
    inputSchema: {},
  }, async () => answer(async () => {
    const unanswered: string[] = [];
    const decisions = await collectInbox(s, Date.now(), unanswered);
    // Trees whose status query timed out (no worker answering) are named, not silently missing.
    return { decisions, ...(unanswered.length ? { unanswered_runs: unanswered } : {}) };
  }));

  server.registerTool('approve', {
    description: 'Approve a pending tool call of a run (ref: a call id, or PATH:CALL_ID in a run tree), optionally with corrected arguments.',
    inputSchema: { workflow_id: z.string(), ref: z.string(), args: z.record(z.any()).optional() },
  }, async ({ workflow_id, ref, args }) => answer(async () => {
    const t = await callTarget(s, workflow_id, ref);
    const payload: ApproveArgs = { call_id: t.callId, ...(args ? { args: args as JsonObject } : {}), by: 'mcp' };
    await s.client.workflow.getHandle(t.workflowId).executeUpdate(approveUpdate, { args: [payload] });
    return { approved: t.callId, workflow_id: t.workflowId };
  }));

  server.registerTool('reject', {
    description: 'Reject a pending tool call of a run with a reason (the agent sees the reason).',
    inputSchema: { workflow_id: z.string(), ref: z.string(), reason: z.string().min(1) },
  }, async ({ workflow_id, ref, reason }) => answer(async () => {
    const t = await callTarget(s, workflow_id, ref);
    const payload: RejectArgs = { call_id: t.callId, reason, by: 'mcp' };
    await s.client.workflow.getHandle(t.workflowId).executeUpdate(rejectUpdate, { args: [payload] });
    return { rejected: t.callId, workflow_id: t.workflowId };
  }));
  return server;
}
