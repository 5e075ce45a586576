/**
 * Which orchestration members may run inline in their parent (agf.batch items; patch
 * `inline-single-turn-members`): the member's model turns as activities of the parent, instead of
 * a child agf.react workflow per member. Only a member whose whole run is model turns with nothing
 * that needs a workflow of its own qualifies. Also the model activity's options, shared by both
 * paths so an inline member retries and times out exactly as its child run would. Pure.
 */
import { OUTAGE_BACKOFF } from './dependency-wait';
import type { RunOptions } from '../shared/contract';
import type { AgentView } from './agent-view';
import { reactConfig } from './agent-view';
import { requestTimeoutSeconds } from './provider-config';

/** How the orchestrator was asked to run the member. */
export interface MemberCall {
  /** The workflow type the member would run as (workflowTypeFor, or the caller's override). */
  workflowType: string;
  /** The caller overrode the member's own workflow type (e.g. a pattern's `$self`). */
  overridden?: boolean;
  options?: RunOptions;
  timeoutSeconds?: number;
}

/**
 * Why the member must run as a child workflow, or undefined when it may run inline. Inline means:
 * an agf.react agent with no tools of any kind (registry tools, delegation, model_decision
 * escalation, caller-given tools), no guardrails, no escalation rules, no human approval, no
 * deadline (runtime.timeout_seconds, node_timeout), no fallback model, no preference warnings to
 * report, and no run options from the caller.
 */
export function inlineMemberBlocker(agent: AgentView, call: MemberCall): string | undefined {
  if (call.overridden || call.workflowType !== 'agfReactWorkflow') return `runs as ${call.workflowType}`;
  if (agent.orchestration?.pattern) return `orchestration.pattern ${agent.orchestration.pattern.type}`;
  if ((agent.execution_policy?.id ?? 'agf.react') !== 'agf.react') return `execution_policy ${agent.execution_policy?.id}`;
  if (agent.tools.refs.length) return 'has tools';
  if (agent.orchestration.can_delegate) return 'may delegate';
  if ((agent.orchestration.escalation ?? []).length) return 'has escalation rules';
  const g = agent.guardrails;
  if (g && (['input', 'tool_input', 'tool_output', 'output'] as const).some((p) => (g[p]?.length ?? 0) > 0)) return 'has guardrails';
  if (agent.policies.require_human_approval || (g?.tool_calls?.require_user_confirmation_for?.length ?? 0) > 0) return 'requires approval';
  // The react loop applies these (src/workflows/react/governance.ts): fields absent from older bundles, so recorded choices replay.
  if (agent.policies.runtime_pass || agent.policies.audit_trail || (agent.policies.data_residency && agent.runtime.model.region)) return 'has runtime policies (pii_redaction, blocked_content, audit_level or a model region under data_residency)';
  if (agent.runtime.timeout_seconds) return 'has runtime.timeout_seconds';
  if (agent.runtime.fallback_model) return 'has a fallback model';
  const cfg = reactConfig(agent);
  // prepareFirstRun (react/limits.ts) warns about these preferences: the child run reports them.
  if (cfg.provider !== undefined || cfg.model !== undefined || cfg.top_k !== undefined) return 'has model preferences to warn about';
  if (call.timeoutSeconds) return 'has node_timeout';
  if (call.options && Object.values(call.options).some((v) => v !== undefined)) return 'has run options';
  return undefined;
}

/**
 * Options of the `modelTurn` activity: the provider's request timeout, and its retries. An agent's
 * explicit runtime.retry_policy bounds every failure, outages included (the author asked for it).
 * Without one, an agent with a fallback_model keeps 5 attempts so the fallback takes over from a
 * model that is down; any other agent waits a model outage out (unlimited attempts, the outage
 * backoff; the worker's outage interceptor ends other failures after 5 attempts and outages at
 * LOOM_DEPENDENCY_MAX_WAIT).
 */
export function modelActivityOptions(agent: AgentView): {
  startToCloseTimeout: `${number} seconds`;
  heartbeatTimeout: `${number} seconds`;
  retry: { maximumAttempts?: number; initialInterval: `${number} second` | `${number} seconds`; backoffCoefficient: number; maximumInterval?: `${number} seconds` };
} {
  const retry = agent.runtime.retry_policy;
  const timeoutS = requestTimeoutSeconds(agent.runtime.model) ?? 300;
  return {
    startToCloseTimeout: `${timeoutS + 30} seconds`,
    heartbeatTimeout: '60 seconds',
    retry: retry
      ? { maximumAttempts: retry.max_attempts, initialInterval: `${retry.backoff_seconds} seconds`, backoffCoefficient: 2 }
      : agent.runtime.fallback_model
        ? { maximumAttempts: 5, initialInterval: '1 second', backoffCoefficient: 2 }
        : { initialInterval: `${OUTAGE_BACKOFF.initialMs / 1000} second`, backoffCoefficient: OUTAGE_BACKOFF.coefficient, maximumInterval: `${OUTAGE_BACKOFF.maxMs / 1000} seconds` },
  };
}
