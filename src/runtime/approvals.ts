/**
 * Approval bookkeeping (the Execution Loop specification's "Human-in-the-Loop"): which calls need a human, and the pending
 * list with decisions. Pure.
 */
import type { JsonObject } from '../compiled/types';
import type { PendingApproval } from '../shared/contract';

export interface ApprovalPolicy {
  require_human_approval: boolean;
  require_user_confirmation_for: string[];
  /** tool_id -> approval_required */
  tools: Record<string, boolean>;
}

/** Why a call needs approval, or undefined. */
export function approvalReason(p: ApprovalPolicy, tool: string): string | undefined {
  if (p.tools[tool]) return `tool ${tool} has approval_required`;
  if (p.require_user_confirmation_for.includes(tool)) return `guardrails.tool_calls.require_user_confirmation_for lists ${tool}`;
  if (p.require_human_approval) return 'policies.require_human_approval';
  return undefined;
}

export type Decision =
  | { kind: 'approve'; args?: JsonObject; tool?: string; by?: string }
  | { kind: 'reject'; reason: string; by?: string };

export class ApprovalBook {
  readonly pending: PendingApproval[] = [];
  /** Tools a pending call may be replaced with at approval (the agent's registry tools; set once it is loaded). */
  replacementTools?: string[];
  private readonly decisions = new Map<string, Decision>();

  add(p: PendingApproval): void {
    this.pending.push(p);
  }

  has(callId: string): boolean {
    return this.pending.some((p) => p.call_id === callId);
  }

  /** A clear message for an unknown call id (Update validators throw it). */
  unknownMessage(callId: string): string {
    const ids = this.pending.map((p) => p.call_id);
    return ids.length
      ? `no pending approval with call id '${callId}'; pending: ${ids.join(', ')}`
      : `no pending approval with call id '${callId}'; nothing is waiting for approval`;
  }

  /** Record a decision; false when the id is unknown or already decided. */
  decide(callId: string, d: Decision): boolean {
    if (!this.has(callId) || this.decisions.has(callId)) return false;
    this.decisions.set(callId, d);
    return true;
  }

  decision(callId: string): Decision | undefined {
    return this.decisions.get(callId);
  }

  remove(callId: string): void {
    const i = this.pending.findIndex((p) => p.call_id === callId);
    if (i >= 0) this.pending.splice(i, 1);
    this.decisions.delete(callId);
  }
}
