/**
 * The runtime contract shared by workflows, activities, the worker and the `loom` CLI:
 * workflow type names, run inputs/results, signal/update/query names (from ./names) and status
 * shapes, and the zod schema of every signal/update/query payload beside its type (the workflow's handler checks
 * what arrives with it, the CLI what it sends; src/shared/payload-check.ts describes a mismatch).
 * Types, constants and schemas only (no I/O), so workflow code may import it.
 */
import { z } from 'zod';
import type { CompiledAgent, JsonValue, JsonObject } from '../compiled/types';

/** A JSON object (tool arguments): its values are not inspected, so any depth is read without recursion. */
const jsonObject = z.record(z.string(), z.unknown()) as unknown as z.ZodType<JsonObject>;
/** Any JSON value (an escalation's output, a status field): not inspected. */
const jsonValue = z.unknown() as z.ZodType<JsonValue>;
const text = z.string().min(1);

// The plain names (task queue, search attributes, wire names) live in ./names, which loads no zod.
export { DEFAULT_TASK_QUEUE, SEARCH_ATTRIBUTES, SIGNALS, UPDATES, QUERIES } from './names';

/** A reference to a content-addressed blob in the Agentloom blob store (src/activities/blob-store.ts). */
export interface BlobRef {
  /** `sha256:<hex>` of the stored bytes. */
  hash: string;
}

/**
 * Input of every agent workflow (the root run and every child). The compiled bundle is never
 * carried in history: it is stored once in the blob store and referenced by hash (claim check),
 * so a closure of many large agents never approaches Temporal's 2 MB payload limit.
 */
export interface RunAgentInput {
  /** The stored CompiledBundle. */
  bundle: BlobRef;
  /** Which agent of the bundle runs (the root for a top-level run). */
  agent_id: string;
  /** The run input (validated against interface.input.schema before the run starts). */
  input: JsonValue;
  /** Run options chosen by the operator/parent. */
  options?: RunOptions;
  /** Set by continue-as-new: the state carried into the next execution. */
  carried?: JsonObject;
  /**
   * agf.react: the agent's view (the AgentView of src/runtime/agent-view.ts: the compiled agent
   * without `instructions` and `sections`, built by src/runtime/agent-view-build.ts), put here by a
   * starter that already holds the bundle (AgentloomClient). The run then takes it instead of
   * loading the agent with an activity; without it (a start with only `bundle` and `agent_id`) the
   * run loads it as before. Trusted as the rest of the start input is.
   */
  agent_view?: Omit<CompiledAgent, 'instructions' | 'sections'> & { agent_tool_types: Record<string, string> };
}

export interface RunOptions {
  /** Approval timeout in seconds (default 7 days) and what happens when it fires. */
  approval_timeout_seconds?: number;
  on_approval_timeout?: 'reject' | 'escalate';
  /** Workspace folder for builtin file tools (defaults to `.loom/workspaces/<workflowId>`). */
  workspace?: string;
  /** For children: who started this run (shown in status and summaries). */
  parent?: { workflow_id: string; role: string };
  /** `loom run --allow-draft`: a root agent with status: draft may run (src/governance/lifecycle.ts). */
  allow_draft?: boolean;
  /** Swarm: extra context block given to the member (the Agent Definition Specification's "How agents coordinate"). */
  context?: JsonObject;
  /**
   * agf.react: the first user message is already stored (a loose message in the message store,
   * e.g. a strategies member's transcript and context block): the run starts from it instead of
   * rendering `input` and `context`, so the caller's history carries a reference, not the text.
   */
  input_ref?: BlobRef;
  /**
   * agf.react: the run continues this stored conversation (a message-chain head) instead of
   * starting a new one, e.g. a graph node revisited with `reset_on_revisit: false`.
   */
  conversation_ref?: BlobRef;
  /** Extra tools the runtime gives this run (e.g. swarm's `handoff_to_agent`). */
  extra_tools?: ExtraToolSpec[];
  /** Force a final answer without tools (e.g. swarm after max_handoffs). */
  forbid_tools?: boolean;
  /**
   * Operator tuning of how orchestrations keep histories bounded (defaults suit Temporal's
   * 10,240-event warning): items per agf.batch shard child (default 500) and the history length
   * after which agf.loop continues-as-new (default 4,000 events).
   */
  scale?: { batch_shard_size?: number; loop_history_events?: number; audit_events_chunk?: number };
  /**
   * `loom run --stream`: the model activity writes the reply text of the current turn, as it
   * arrives, to the store record `stream`/<workflow id> (never to history); the CLI prints it.
   */
  stream_text?: boolean;
  /**
   * A root run's memory collections (agf.react or orchestrator; the Agent Definition Specification's "memory"): who the run is for, substituted
   * as `{actorId}` (`loom run/start --actor ID`, default $USER, else `anonymous`), and the session it
   * belongs to, substituted as `{sessionId}` (`--session ID`, else the run's workflow id).
   */
  actor_id?: string;
  session_id?: string;
  /**
   * A root agf.react run of a `retention_class: ephemeral` agent: the client marked the run in the
   * store and gives the input as `input_ref`; the run deletes what it stored as it ends and keeps
   * its output only until the client collects it (src/activities/ephemeral.ts).
   */
  ephemeral?: boolean;
}

export interface ExtraToolSpec {
  name: string;
  description: string;
  parameters: JsonObject;
  /** A runtime tool is not executed by an activity: the workflow ends the turn and returns it. */
  terminal: boolean;
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** The result of every agent workflow. */
export interface AgentRunResult {
  agent_id: string;
  output: JsonValue;
  usage: TokenUsage;
  /** e.g. "loop ended by max_iterations (5) before exit_condition was met". */
  warnings: string[];
  /** Set when the run ended with a terminal runtime tool call (e.g. a swarm hand-off). */
  terminal_tool_call?: { name: string; arguments: JsonObject };
  /** agf.react with runtime.execution_loop `dependencies`: the run's write-once State (`_outputPath` results). */
  state?: JsonObject;
}

export type RunState =
  | 'running'
  | 'paused'
  | 'waiting_for_approval'
  | 'waiting_for_human'
  | 'completed'
  | 'failed'
  | 'cancelled';

export interface PendingApproval {
  call_id: string;
  tool: string;
  arguments: JsonObject;
  /** Why approval is needed: tool approval_required, require_user_confirmation_for, require_human_approval. */
  reason: string;
  requested_at: string;
}

export interface RunStatus {
  state: RunState;
  agent_id: string;
  version: string;
  /** Policy or pattern this run executes, e.g. `agf.react`, `graph`. */
  pattern: string;
  step: number;
  turn: number;
  pending_approvals: PendingApproval[];
  tool_calls_made: number;
  token_usage: TokenUsage;
  warnings: string[];
  /** Waiting for a human queue (escalation). */
  escalation?: { queue: string; reason: string; since: string };
  /** Pattern progress (DAG, batch, graph…): free-form per pattern. */
  progress?: JsonObject;
  error?: string;
  /**
   * Every decision waiting on a human in this run AND anywhere below it (members, shards,
   * delegates, agent tools, nested patterns), reported up the tree by the descendantDecisions
   * signal. Absent on runs started before patch `tree-pending-decisions`.
   */
  pending_decisions?: PendingDecision[];
  /**
   * What the run waits on besides a human, e.g. `waiting for the store postgres://loom@db:5432/loomstore
   * (unreachable since 12:01:07, attempt 6)`: filled by the CLI from the run's pending activities
   * (src/operator/waiting.ts), never by the workflow, which cannot see its activities' retries.
   */
  waiting_for?: string[];
}

/** One decision waiting on a human somewhere in a run tree (status.pending_decisions). */
export interface PendingDecision {
  /** approval: a tool call or delegation; route_approval: a strategies route; escalation: a human queue. */
  kind: 'approval' | 'route_approval' | 'escalation';
  /** The run holding the decision: send approveCall / rejectCall / respondEscalation there. */
  workflow_id: string;
  /** Role chain from the run whose status lists it (`[]` = that run itself), e.g. ['step-2-charge']. */
  path: string[];
  agent_id: string;
  /** approval / route_approval: the call id to approve or reject. */
  call_id?: string;
  /** approval: the tool (or delegate_to_agent); route_approval: 'route'. */
  tool?: string;
  /** The call's arguments, the tool's sensitive_fields replaced by "[redacted]". */
  arguments?: JsonObject;
  /** escalation (or an approval escalated after its timeout): the human queue. */
  queue?: string;
  reason: string;
  /** ISO time the decision was first asked for (how long it has waited). */
  requested_at: string;
}

const PendingDecisionSchema: z.ZodType<PendingDecision> = z.object({
  kind: z.enum(['approval', 'route_approval', 'escalation']),
  workflow_id: text,
  path: z.array(z.string()),
  agent_id: z.string(),
  call_id: z.string().optional(),
  tool: z.string().optional(),
  arguments: jsonObject.optional(),
  queue: z.string().optional(),
  reason: z.string(),
  requested_at: z.string(),
});

/** Payload of the descendantDecisions signal: a member's whole pending subtree, sent to its parent on every change. */
export interface DescendantDecisionsReport {
  /** The reporting member's workflow id and its role in the parent. */
  workflow_id: string;
  role: string;
  /** Workflow time (ms) and a per-run sequence number: a parent keeps only the newest report of each member. */
  at: number;
  seq: number;
  /** Paths relative to the reporting member. */
  decisions: PendingDecision[];
}
export const DescendantDecisionsReportSchema: z.ZodType<DescendantDecisionsReport> = z.object({
  workflow_id: text,
  role: z.string(),
  at: z.number(),
  seq: z.number(),
  decisions: z.array(PendingDecisionSchema),
});

/**
 * A tool call complete in the model's streamed reply, sent by the model activity to its react run
 * (runtime.execution_loop dependencies) so the call can start before the reply ends. `turn` is the
 * run's 0-based model turn; the activity's final reply remains the record of the turn.
 */
export interface StreamedCall { turn: number; call: { id: string; name: string; arguments: JsonObject } }


/**
 * Payload schemas. Operator payloads (approve, reject, respond, decide, a session message) are
 * strict: an unknown field is refused (a mistyped `reasn` would otherwise be dropped without a word).
 * Workflow-to-workflow payloads (descendantDecisions, callStreamed) ignore extra fields: a newer
 * worker may add one while an older run still reads them.
 */
export const StreamedCallSchema: z.ZodType<StreamedCall> = z.object({
  turn: z.number().int().nonnegative(),
  call: z.object({ id: text, name: text, arguments: jsonObject }),
});
/** The streamedCalls query's one argument: the 0-based model turn. */
export const StreamedTurnSchema = z.number().int().nonnegative();

/** approve: optional corrected `args`; `tool` replaces the call with another registry tool of the agent (run with `args`, default `{}`). */
export interface ApproveArgs { call_id: string; args?: JsonObject; tool?: string; by?: string }
export interface RejectArgs { call_id: string; reason: string; by?: string }
export const ApproveArgsSchema: z.ZodType<ApproveArgs> = z.object({ call_id: text, args: jsonObject.optional(), tool: text.optional(), by: z.string().optional() }).strict();
/** A reject needs a reason: the model sees it as the call's result. */
export const RejectArgsSchema: z.ZodType<RejectArgs> = z.object({ call_id: text, reason: z.string().refine((r) => r.trim() !== '', 'reject needs a reason (the model sees it as the tool result)'), by: z.string().optional() }).strict();
/**
 * The shape of each payload in words, given with every refusal or warning about a payload that does
 * not fit its schema (keyed by what the payload is sent with).
 */
export const PAYLOAD_SHAPES = {
  approve: '{"call_id": string, "args"?: object, "tool"?: string, "by"?: string}',
  reject: '{"call_id": string, "reason": non-empty string, "by"?: string}',
  respond: '{"queue": string, "output": JSON} or {"queue": string, "close": true, "reason"?: string} (and "by"?: string)',
  decide: '{"ref": string, "decision": "approve"|"reject"|"respond", "args"?: object, "tool"?: string, "reason"?: string, "output"?: JSON, "close"?: boolean, "by"?: string}',
  descendantDecisions: '{"workflow_id": string, "role": string, "at": number, "seq": number, "decisions": [pending decision, …]}',
  callStreamed: '{"turn": integer >= 0, "call": {"id": string, "name": string, "arguments": object}}',
  streamedCalls: 'a model turn (an integer >= 0)',
} as const;

/**
 * Payload of the `decide` update (tree-wide pending decisions): answer a decision pending anywhere in the tree of the run
 * it is sent to. `ref` is what `loom inbox` prints: a call id or `PATH:CALL_ID` (approve/reject), a
 * queue or `PATH:QUEUE` (respond). approve: optional corrected `args`, or `tool` to replace the call
 * with another registry tool of the holding agent (run with `args`, default `{}`); reject: `reason`
 * required; respond: `output`, or `close: true` with an optional `reason`.
 */
export interface DecideArgs {
  ref: string;
  decision: 'approve' | 'reject' | 'respond';
  args?: JsonObject;
  tool?: string;
  reason?: string;
  output?: JsonValue;
  close?: boolean;
  by?: string;
}
export const DecideArgsSchema: z.ZodType<DecideArgs> = z
  .object({
    ref: text,
    decision: z.enum(['approve', 'reject', 'respond']),
    args: jsonObject.optional(),
    tool: text.optional(),
    reason: z.string().optional(),
    output: jsonValue.optional(),
    close: z.boolean().optional(),
    by: z.string().optional(),
  })
  .strict();
/** Answer to an escalation: an output (the run goes on with it / returns it), or close (with an optional reason). */
export interface RespondArgs { queue: string; output?: JsonValue; close?: boolean; reason?: string; by?: string }
export const RespondArgsSchema: z.ZodType<RespondArgs> = z
  .object({ queue: text, output: jsonValue.optional(), close: z.boolean().optional(), reason: z.string().optional(), by: z.string().optional() })
  .strict()
  .refine((a) => a.close === true || a.output !== undefined, { message: 'give "output" (the answer) or "close": true' });
/** What respondEscalationUpdate returns once the answer is accepted. */
export interface RespondResult { accepted: true; queue: string }
