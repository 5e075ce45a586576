/**
 * The worker sink a run calls when it presents a tool call for human approval (the `approval.requested`
 * log record), and what it passes: types only, shared by the workflow side and the worker side. The
 * outcome (approved, rejected, replaced, timed out) goes through `agentloomTracing.approvalDecided`.
 */
import type { Sinks } from '@temporalio/workflow';
import type { BlobRef } from './contract';

/** A tool call (or delegation) waits for a human decision from now on. */
export interface ApprovalRequestedEvent {
  bundle: BlobRef;
  agent_id: string;
  tool_id: string;
  call_id: string;
  /** How long the run waits before the approval timeout applies. */
  timeout_s: number;
}

export interface AgentloomApprovalSinks extends Sinks {
  agentloomApprovals: {
    approvalRequested(ev: ApprovalRequestedEvent): void;
  };
}
