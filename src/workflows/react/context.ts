/**
 * One agf.react run once its agent is loaded: the run shell, the carried state, the approval book,
 * and what the agent's definition decides for the whole run (limits, approval policy, the tools
 * the model is offered, activity options). The feature files (approval, guardrails, delegation,
 * escalation, tool-calls, turn) are functions over it.
 */
import { proxyActivities, workflowInfo, ActivityInterfaceFor, ActivityOptions } from '@temporalio/workflow';
import { GUARDRAIL_ACTIVITY, TOOL_ACTIVITY } from '../activity-options';
import type { CompiledTool, GuardrailPosition, JsonObject } from '../../compiled/types';
import type { ExtraToolSpec, RunAgentInput } from '../../shared/contract';
import type { Activities } from '../../activities';
import type { AgentView } from '../../runtime/agent-view';
import { reactConfig } from '../../runtime/agent-view';
import type { ToolCall } from '../../runtime/messages';
import type { Limits } from '../../runtime/limits';
import { ApprovalBook, ApprovalPolicy } from '../../runtime/approvals';
import { modelActivityOptions } from '../../runtime/inline-member';
import type { RunShell } from '../shell/run-shell';
import type { ReactState } from './state';
import { delegationTool, escalationTool, guardrailsEnabled } from './runtime-tools';
import { CallStream } from './call-stream';

const DEFAULT_APPROVAL_TIMEOUT_S = 7 * 24 * 3600;

export class ReactRun {
  readonly limits: Limits;
  readonly policy: ApprovalPolicy;
  readonly toolsById: Map<string, CompiledTool>;
  /** Tools the caller gives this run (e.g. swarm's terminal `handoff_to_agent`). */
  readonly extraTools: ExtraToolSpec[];
  /** The runtime tools this agent is offered (delegate_to_agent, escalate_to_human), when enabled. */
  readonly delegateTool: ExtraToolSpec | undefined;
  readonly escalateTool: ExtraToolSpec | undefined;
  /** Every non-registry tool the model sees. */
  readonly modelExtraTools: ExtraToolSpec[];
  readonly forbidTools: boolean;
  readonly approvalTimeoutS: number;
  readonly modelOpts: ActivityOptions;
  readonly toolOpts = TOOL_ACTIVITY;
  readonly guardOpts = GUARDRAIL_ACTIVITY;
  readonly acts: ActivityInterfaceFor<Activities>;
  readonly workflowId = workflowInfo().workflowId;
  /** Tool calls streaming in from the model turn in progress (dependencies loop; react/stream.ts). */
  readonly stream = new CallStream();
  private readonly guardrailsOn: boolean;

  constructor(
    readonly input: RunAgentInput,
    readonly shell: RunShell,
    readonly st: ReactState,
    readonly book: ApprovalBook,
    readonly agent: AgentView,
  ) {
    const ag = agent;
    this.limits = {
      max_steps: reactConfig(ag).max_steps,
      max_turns: ag.runtime.max_turns,
      max_tool_calls: ag.runtime.max_tool_calls,
      per_tool: Object.fromEntries(ag.tools.refs.map((t) => [t.tool_id, t.max_calls_per_run])),
    };
    this.policy = {
      require_human_approval: ag.policies.require_human_approval,
      require_user_confirmation_for: ag.guardrails.tool_calls.require_user_confirmation_for ?? [],
      tools: Object.fromEntries(ag.tools.refs.map((t) => [t.tool_id, t.approval_required])),
    };
    this.toolsById = new Map(ag.tools.refs.map((t) => [t.tool_id, t]));
    shell.redactWith(Object.fromEntries(ag.tools.refs.map((t) => [t.tool_id, t.sensitive_fields ?? []])));
    this.extraTools = input.options?.extra_tools ?? [];
    // The order of these two matters: each may record a patch marker (delegate-tool, then guardrails).
    this.delegateTool = delegationTool(ag);
    this.guardrailsOn = guardrailsEnabled(ag);
    this.escalateTool = this.guardrailsOn ? escalationTool(ag) : undefined;
    const runtimeTools = [...(this.delegateTool ? [this.delegateTool] : []), ...(this.escalateTool ? [this.escalateTool] : [])];
    this.modelExtraTools = runtimeTools.length ? [...this.extraTools, ...runtimeTools] : this.extraTools;
    this.forbidTools = input.options?.forbid_tools ?? false;
    this.approvalTimeoutS = input.options?.approval_timeout_seconds ?? DEFAULT_APPROVAL_TIMEOUT_S;
    this.modelOpts = modelActivityOptions(ag);
    this.acts = proxyActivities<Activities>(this.modelOpts);
  }

  /** Guardrails run at `position` (only where the agent declares some, and only once patched). */
  guarded(position: GuardrailPosition): boolean {
    return this.guardrailsOn && (this.agent.guardrails?.[position]?.length ?? 0) > 0;
  }

  /** checkToolArgs (model activity options): are these arguments valid for the registry tool? */
  async checkArgs(call: ToolCall, args: JsonObject): Promise<{ ok: boolean; error?: string }> {
    return this.acts.checkToolArgs.executeWithOptions({ ...this.modelOpts, summary: `check args ${call.name}` }, [
      { bundle: this.input.bundle, agent_id: this.input.agent_id, tool: call.name, args },
    ]);
  }
}
