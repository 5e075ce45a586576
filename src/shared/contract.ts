/**
 * The runtime contract shared by workflows, activities, the worker and the `loom` CLI:
 * workflow type names, run inputs/results, signal/update/query names and status shapes.
 * Types and constants only (no I/O), so workflow code may import it.
 */
import type { JsonValue, JsonObject } from '../compiler/types';

/** Default task queue (override with LOOM_TASK_QUEUE). */
export const DEFAULT_TASK_QUEUE = 'agentloom';

/** Custom search attributes registered on the dev server and kept current by every run. */
export const SEARCH_ATTRIBUTES = {
  agentId: 'AgentId',
  agentVersion: 'AgentVersion',
  pattern: 'AgentPattern',
  status: 'AgentStatus',
  escalationQueue: 'EscalationQueue',
} as const;

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
}

export interface RunOptions {
  /** Approval timeout in seconds (default 7 days) and what happens when it fires. */
  approval_timeout_seconds?: number;
  on_approval_timeout?: 'reject' | 'escalate';
  /** Workspace folder for builtin file tools (defaults to `.loom/workspaces/<workflowId>`). */
  workspace?: string;
  /** For children: who started this run (shown in status and summaries). */
  parent?: { workflow_id: string; role: string };
  /** Swarm: extra context block given to the member (seed 001 "How agents coordinate"). */
  context?: JsonObject;
  /** Extra tools the runtime gives this run (e.g. swarm's `handoff_to_agent`). */
  extra_tools?: ExtraToolSpec[];
  /** Force a final answer without tools (e.g. swarm after max_handoffs). */
  forbid_tools?: boolean;
  /**
   * Operator tuning of how orchestrations keep histories bounded (defaults suit Temporal's
   * 10,240-event warning): items per agf.batch shard child (default 500) and the history length
   * after which agf.loop continues-as-new (default 4,000 events).
   */
  scale?: { batch_shard_size?: number; loop_history_events?: number };
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
}

/**
 * Wire names of the signals, updates and queries (never change them: running workflows and recorded
 * histories depend on them). Send them through the typed definitions in ./handlers
 * (approveUpdate, statusQuery, …), not by these strings.
 */
export const SIGNALS = {
  approve: 'approve',
  reject: 'reject',
  pause: 'pause',
  resume: 'resume',
  respond: 'respond',
} as const;
export const UPDATES = {
  approve: 'approveCall',
  reject: 'rejectCall',
  respond: 'respondEscalation',
} as const;
export const QUERIES = {
  status: 'status',
} as const;

export interface ApproveArgs { call_id: string; args?: JsonObject; by?: string }
export interface RejectArgs { call_id: string; reason: string; by?: string }
/** Answer to an escalation: an output (the run goes on with it / returns it), or close (with an optional reason). */
export interface RespondArgs { queue: string; output?: JsonValue; close?: boolean; reason?: string; by?: string }
/** What respondEscalationUpdate returns once the answer is accepted. */
export interface RespondResult { accepted: true; queue: string }
