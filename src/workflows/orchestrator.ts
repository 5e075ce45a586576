/**
 * The run shell of every orchestration workflow (agf.* multi-agent policies, Graph, Swarm, task
 * DAG, steps, vendor policies): the shared RunShell (status, pause/resume, search attributes,
 * usage, warnings, waiting for a human, continue-as-new carry) plus what orchestrators do with
 * members: loading agents through the `loadAgent` activity (claim check: the bundle never enters
 * history), members as child workflows, custom transforms, and escalation (seed 001 "escalation
 * rules"): target `agent` runs that agent, target `human_queue` waits for an operator's `respond`.
 */
import { ApplicationFailure, patched, proxyActivities } from '@temporalio/workflow';
import type { JsonValue } from '../compiler/types';
import type { AgentRunResult, RunAgentInput, RunOptions } from '../shared/contract';
import { patternOf, workflowTypeFor } from '../shared/dispatch';
import type { Activities } from '../activities';
import type { AgentView } from '../runtime/agent-view';
import type { EscalationEvent } from '../orchestration/escalation';
import { runChildAgent } from './child';
import { NEEDS_CHILD, runInlineMember } from './shell/inline-member';
import { inlineMemberBlocker } from '../runtime/inline-member';
import { memberInputRefusal } from '../orchestration/member-input';
import { runEscalation } from './shell/human-queue';
import { RunShell } from './shell/run-shell';

/** The agent as the loader returns it: everything but the (possibly large) instructions and sections. */
export type LoadedAgent = AgentView;

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '60s',
  retry: { maximumAttempts: 5, initialInterval: '1s', nonRetryableErrorTypes: ['UnknownTransform', 'BlobNotFound'] },
});

/**
 * One orchestration run: construct it first thing in the workflow (it registers the handlers),
 * then `init()`. All state lives in workflow memory (rebuilt by replay) and, across
 * continue-as-new, in `carried`.
 */
export class OrchestratorRun extends RunShell {
  private readonly agents = new Map<string, LoadedAgent>();
  private escalations = 1;
  agent!: LoadedAgent;

  constructor(input: RunAgentInput, pattern: string) {
    super(input, { pattern, publishing: 'milestones' });
  }

  /** Load the orchestrator agent and publish who runs. */
  async init(): Promise<LoadedAgent> {
    // A root run (no parent) checks the lifecycle: draft needs allow_draft, disabled never runs.
    const root = this.input.options?.parent ? undefined : { allow_draft: this.input.options?.allow_draft === true };
    this.agent = await this.load(this.input.agent_id, root);
    this.begin(this.agent, this.status.pattern === 'vendor' ? patternOf(this.agent) : this.status.pattern);
    return this.agent;
  }

  async load(agentId: string, root?: { allow_draft: boolean }): Promise<LoadedAgent> {
    const cached = this.agents.get(agentId);
    if (cached) return cached;
    const a = await acts.loadAgent({ bundle: this.input.bundle, agent_id: agentId, ...(root ? { root } : {}) });
    this.agents.set(agentId, a);
    return a;
  }

  /** Resolve a PolicyStep alias through local_agents (an unknown alias is taken as an agent_id). */
  agentIdFor(alias: string): string {
    const la = (this.agent.local_agents ?? []).find((l) => l.alias === alias);
    return la ? la.agent_ref : alias;
  }

  /**
   * Run one member as a child workflow (after any pause). `workflowType` overrides the member's
   * own type (e.g. agfReactWorkflow for a pattern's `$self`). A policy this worker does not
   * implement fails with an error naming the policy id. `inline` (agf.batch): a member that
   * qualifies (inlineMemberBlocker) runs as model-turn activities of this workflow instead
   * (shell/inline-member.ts; patch `inline-single-turn-members`). The member's input must match
   * its interface.input.schema (src/orchestration/member-input.ts) or the member never starts
   * (`escalationInput`: the runtime's own escalation wrapper, not checked).
   */
  async runMember(spec: { agent_id: string; input: JsonValue; role: string; options?: RunOptions; timeoutSeconds?: number; workflowType?: string; inline?: boolean; summary?: string; escalationInput?: boolean }): Promise<AgentRunResult> {
    await this.checkpoint();
    const member = await this.load(spec.agent_id);
    const workflowType = spec.workflowType ?? workflowTypeFor(member);
    if (!workflowType) {
      throw ApplicationFailure.nonRetryable(
        `agent '${member.agent_id}' uses execution policy '${patternOf(member)}', which this worker does not implement`,
        'UnsupportedPolicy',
      );
    }
    // Patched only when an input is refused: a valid input issues exactly the commands it did before.
    const refused = spec.escalationInput ? undefined : memberInputRefusal(member, spec.role, spec.input);
    if (refused && patched('contract-orchestrator')) throw ApplicationFailure.nonRetryable(refused, 'MemberInputInvalid', { member: member.agent_id, role: spec.role });
    if (spec.inline) {
      const call = { workflowType, overridden: spec.workflowType !== undefined, options: spec.options, timeoutSeconds: spec.timeoutSeconds };
      if (inlineMemberBlocker(member, call) === undefined && patched('inline-single-turn-members')) {
        const res = await runInlineMember(this.input.bundle, member, spec);
        if (res !== NEEDS_CHILD) return this.memberDone(spec.role, res);
      }
    }
    let res: AgentRunResult;
    try {
      res = await runChildAgent({
        bundle: this.input.bundle,
        agent_id: spec.agent_id,
        workflowType,
        input: spec.input,
        role: spec.role,
        options: spec.options,
        timeoutSeconds: spec.timeoutSeconds,
        ...(spec.summary ? { summary: spec.summary } : {}),
      });
    } finally {
      // Whatever the member last reported as pending (descendantDecisions) ends with its run.
      this.memberClosed(spec.role);
    }
    return this.memberDone(spec.role, res);
  }

  /** A member's usage and warnings count in this run. */
  private memberDone(role: string, res: AgentRunResult): AgentRunResult {
    this.addUsage(res.usage);
    for (const w of res.warnings ?? []) this.warn(`${role}: ${w}`);
    return res;
  }

  /** Run a transform registered in the worker (output_from.custom_transform) as an activity. */
  async transform(name: string, outputs: Record<string, JsonValue>, order: string[]): Promise<JsonValue> {
    return acts.runTransform({ name, outputs, order, input: this.input.input });
  }

  /** Mark completed (status + AgentStatus search attribute) and build the result. */
  complete(output: JsonValue): AgentRunResult {
    this.end('completed');
    return this.result(output);
  }

  /** Mark failed and build the failure to throw. */
  fail(message: string, type: string, details?: JsonValue): ApplicationFailure {
    this.end('failed', message);
    return ApplicationFailure.nonRetryable(message, type, ...(details === undefined ? [] : [details]));
  }

  /**
   * Apply the orchestrator's escalation rules to `event` (top to bottom, first match).
   *  - no rule: returns `{ handled: false }` (the caller fails as it would without escalation);
   *  - agent target: runs the agent and returns `{ handled: true, final: result }` (the pattern
   *    returns that result to its caller);
   *  - human_queue: waits; `{ handled: true, output }` when answered, `{ handled: true, closed: true }` when closed.
   */
  async escalate(event: EscalationEvent, detail: { error?: string; input?: JsonValue }): Promise<
    { handled: false } | { handled: true; final: AgentRunResult } | { handled: true; output: JsonValue } | { handled: true; closed: true }
  > {
    const out = await runEscalation(this.agent.orchestration?.escalation, event, detail.error, {
      warn: (m) => this.warn(m),
      waitForHuman: (queue, reason) => this.waitForHuman(queue, reason),
      runAgent: (agentId, reason) =>
        this.runMember({
          agent_id: agentId,
          input: { escalation: { reason, trigger: event.on, ...(event.on === 'node_failure' ? { node: event.node } : {}) }, input: detail.input ?? this.input.input },
          role: `escalation-${agentId}-${this.escalations++}`,
          escalationInput: true,
        }),
    });
    if (!out.handled) return out;
    if (out.target === 'agent') return { handled: true, final: this.result(out.result.output) };
    if ('closed' in out) return { handled: true, closed: true };
    return { handled: true, output: out.output };
  }
}
