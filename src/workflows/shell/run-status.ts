/**
 * The `status` query's answer: the run's state, counters, usage, warnings, the human wait and the
 * decisions pending in its tree. A query: reading it never changes the history.
 */
import type { PendingApproval, PendingDecision, RunState, RunStatus, TokenUsage } from '../../shared/contract';
import { redactToolArgs } from '../../governance/sensitive';
import type { JsonObject } from '../../compiled/types';

/** The fields of RunStatus a workflow reports itself (pattern progress, counters). */
export interface RunProgress {
  pattern: string;
  version: string;
  step: number;
  turn: number;
  tool_calls_made: number;
  progress?: JsonObject;
  error?: string;
}

/** What the run shell knows when asked for its status. */
export interface StatusParts {
  state: RunState;
  agentId: string;
  status: RunProgress;
  /** Live step/turn/tool-call counters (react); undefined for orchestrators. */
  counters: { step: number; turn: number; tool_calls: number } | undefined;
  /** The run has ended (completed, failed, cancelled). */
  ended: boolean;
  pendingApprovals: PendingApproval[];
  sensitive: Record<string, readonly string[]>;
  usage: TokenUsage;
  warnings: readonly string[];
  humanWait: { queue: string; reason: string; since: string } | undefined;
  decisions: PendingDecision[];
}

export function runStatus(p: StatusParts): RunStatus {
  const c = p.counters;
  return {
    state: p.state,
    agent_id: p.agentId,
    version: p.status.version,
    pattern: p.status.pattern,
    step: c ? c.step : p.status.step,
    turn: c ? c.turn : p.status.turn,
    // A finished run (completed, failed, cancelled) has nothing left to approve.
    // Sensitive tool fields redacted: status is read by operators and CLIs (a query: no history change).
    pending_approvals: p.ended ? [] : p.pendingApprovals.map((a) => ({ ...a, arguments: redactToolArgs(a.tool, a.arguments, p.sensitive) })),
    // A call waiting for approval has not run yet: counted once it runs (the limits count it when asked).
    tool_calls_made: c ? Math.max(0, c.tool_calls - p.pendingApprovals.length) : p.status.tool_calls_made,
    token_usage: { ...p.usage },
    warnings: [...p.warnings],
    ...(p.humanWait ? { escalation: { ...p.humanWait } } : {}),
    ...(p.status.progress !== undefined ? { progress: p.status.progress } : {}),
    ...(p.status.error ? { error: p.status.error } : {}),
    pending_decisions: p.decisions,
  };
}
