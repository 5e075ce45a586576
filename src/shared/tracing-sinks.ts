/**
 * The worker sink the workflow interceptor (workflow-interceptor.ts) calls when an agent run ends,
 * and what it passes: types only, shared by the workflow side and the worker side.
 */
import type { Sinks } from '@temporalio/workflow';
import type { BlobRef, TokenUsage } from './contract';

export type RunSpanStatus = 'success' | 'refused' | 'error' | 'cancelled' | 'continued_as_new';

export interface RunEndedEvent {
  bundle: BlobRef;
  agent_id: string;
  status: RunSpanStatus;
  /** The run's token usage (successful runs). */
  usage?: Partial<TokenUsage>;
  /** The failure type (ApplicationFailure type) of a refused or failed run. */
  failure_type?: string;
  /** modelTurn activities this run (this continue-as-new segment) scheduled. */
  model_turns?: number;
  /** Characters of the run input (JSON text unless a string). */
  input_chars?: number;
  /** Workflow time when the run ended (ms since the epoch). */
  ended_ms: number;
}

export interface RunStartedEvent {
  bundle: BlobRef;
  agent_id: string;
  input_chars: number;
}

/** A tool call's human approval was decided (or timed out): how long the call waited (the Agent Definition Specification's metric agent.tool.approval_wait). */
export interface ApprovalDecidedEvent {
  bundle: BlobRef;
  agent_id: string;
  tool_id: string;
  decision: 'approved' | 'rejected' | 'replaced' | 'timed_out';
  /** Workflow time between the request and the decision. */
  wait_ms: number;
}

export interface AgentloomTracingSinks extends Sinks {
  agentloomTracing: {
    runStarted(ev: RunStartedEvent): void;
    runEnded(ev: RunEndedEvent): void;
    approvalDecided(ev: ApprovalDecidedEvent): void;
  };
}
