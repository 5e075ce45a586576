/**
 * The run shell of every orchestration workflow (agf.* multi-agent policies, Graph, Swarm, task
 * DAG, steps, vendor policies): the shared RunShell (status, pause/resume, search attributes,
 * usage, warnings, waiting for a human, continue-as-new carry) plus what orchestrators do with
 * members: loading agents through the `loadAgent` activity (claim check: the bundle never enters
 * history), members as child workflows, custom transforms, and escalation (the Agent Definition Specification's "escalation
 * rules"): target `agent` runs that agent, target `human_queue` waits for an operator's `respond`.
 * A root run whose agent declares memory reads it at its start and writes back at its end
 * (orchestrator-memory.ts; its writeback approvals wait in the run's approval book).
 */
import { ApplicationFailure, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { storeActivity } from './activity-options';
import type { JsonObject, JsonValue } from '../compiled/types';
import type { AgentRunResult, RunAgentInput, RunOptions } from '../shared/contract';
import { patternOf, workflowTypeFor } from '../shared/dispatch';
import type { Activities } from '../activities';
import type { AgentView } from '../runtime/agent-view';
import type { EscalationEvent } from '../orchestration/escalation';
import { runChildAgent } from './child';
import { NEEDS_CHILD, runInlineMember, startInlineMember } from './shell/inline-member';
import { inlineMemberBlocker } from '../runtime/inline-member';
import { memberInputRefusal } from '../orchestration/member-input';
import { runEscalation } from './shell/human-queue';
import { RunShell } from './shell/run-shell';
import { withDeadline } from './shell/deadline';
import { conformOutput, guardsOutput, inputContract, timeoutMessage } from '../orchestration/orchestrator-contract';
import type { GuardrailVerdict } from '../activities/guardrails';
import { ApprovalBook } from '../runtime/approvals';
import { RunMemory } from './orchestrator-memory';
import { PATCHES } from './patches';

/** Map-reduce shards run under the strategies agent but are not its run: its contract applies to the parent only. */
const SHARD_WORKFLOW = 'strategiesMapShardWorkflow';

/** One member run of an orchestration (see OrchestratorRun.runMember). */
export interface MemberSpec { agent_id: string; input: JsonValue; role: string; options?: RunOptions; timeoutSeconds?: number; workflowType?: string; inline?: boolean; summary?: string; escalationInput?: boolean }

/** The agent as the loader returns it: everything but the (possibly large) instructions and sections. */
export type LoadedAgent = AgentView;

const acts = proxyActivities<Activities>(storeActivity(['UnknownTransform', 'BlobNotFound']));

/**
 * One orchestration run: construct it first thing in the workflow (it registers the handlers),
 * then `init()`. All state lives in workflow memory (rebuilt by replay) and, across
 * continue-as-new, in `carried`.
 */
export class OrchestratorRun extends RunShell {
  private readonly agents = new Map<string, LoadedAgent>();
  private escalations = 1;
  /** runtime.timeout_seconds of the orchestrator (epoch ms, workflow time), carried across continue-as-new. */
  private deadlineMs?: number;
  /** The deadline passed: whatever the pattern does next, the run ends failed 'Timeout'. */
  private timedOut = false;
  agent!: LoadedAgent;
  /** This run's own approvals: memory writebacks waiting for a human (orchestrator-memory.ts). */
  readonly book: ApprovalBook;
  /** The Agent Definition Specification's memory of a root run (patch `memory-orchestrator`); undefined when it does not apply. */
  private memory?: RunMemory;
  /** Patch `lean-inline-members`, decided at the run's first inline member (see runMember). */
  private lean?: boolean;
  /** Agents being loaded on the lean path: the members waiting for the same agent share its one `loadAgent`. */
  private readonly loading = new Map<string, Promise<LoadedAgent>>();

  constructor(input: RunAgentInput, pattern: string) {
    const book = new ApprovalBook();
    super(input, { pattern, publishing: 'milestones', pendingApprovals: () => book.pending });
    this.book = book;
  }

  /** Load the orchestrator agent and publish who runs. */
  async init(): Promise<LoadedAgent> {
    // A root run (no parent) checks the lifecycle: draft needs allow_draft, disabled never runs.
    const root = this.input.options?.parent ? undefined : { allow_draft: this.input.options?.allow_draft === true };
    this.agent = await this.load(this.input.agent_id, root);
    this.begin(this.agent, this.status.pattern === 'vendor' ? patternOf(this.agent) : this.status.pattern);
    await this.enterContract();
    // After the input contract: memory searches (and writes back) the input its guardrails let through.
    this.memory = await RunMemory.enter(this);
    return this.agent;
  }

  /** A map-reduce shard, or a run continued-as-new (its contract was entered by the first run). */
  private get contractEntered(): boolean {
    return workflowInfo().workflowType === SHARD_WORKFLOW || this.input.carried?.usage !== undefined;
  }

  /**
   * The orchestrator's own contract at its start: the deadline (runtime.timeout_seconds), the
   * input length (runtime.max_input_chars) and input guardrails. Patched: only an agent declaring
   * one of them reaches patched(), so every other orchestrator records exactly the commands it did.
   */
  private async enterContract(): Promise<void> {
    const carried = this.input.carried?.contract_deadline_ms;
    if (typeof carried === 'number') this.deadlineMs = carried;
    if (this.contractEntered) return;
    const c = inputContract(this.agent, this.input.input);
    if (!c || !patched(PATCHES.orchestratorContract.id)) return;
    if (c.timeoutSeconds) this.deadlineMs = Date.now() + c.timeoutSeconds * 1000;
    if (c.tooLong) throw this.fail(c.tooLong, 'InputTooLong');
    if (!c.guardrails) return;
    const v = await this.guard('input', this.input.input);
    if (v.kind === 'transformed') this.input.input = v.value ?? v.text ?? this.input.input;
    // Nothing has run yet, so block, retry and escalate all stop the run here.
    else if (v.kind === 'blocked' || v.kind === 'retry' || v.kind === 'escalate') throw this.fail(`input guardrail '${v.guardrail}' blocked the run: ${v.reason}`, 'GuardrailBlocked');
  }

  /** Run the orchestrator's guardrails of one position on a value (activity); their warnings join the run's. */
  private async guard(position: 'input' | 'output', value: JsonValue): Promise<GuardrailVerdict> {
    let out;
    try {
      out = await acts.runGuardrails({ bundle: this.input.bundle, agent_id: this.agent.agent_id, position, value });
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause;
      if (cause instanceof ApplicationFailure && (cause.type === 'UnknownGuardrailProvider' || cause.type === 'GuardrailConfigError')) throw this.fail(cause.message, cause.type);
      throw e;
    }
    for (const w of out.warnings) this.warn(w);
    return out.verdict;
  }

  /** The deadline and the memory state travel with continue-as-new. */
  override carry(extra: JsonObject): JsonObject {
    const withMemory = this.memory ? { ...extra, memory: this.memory.carry() } : extra;
    return super.carry(this.deadlineMs === undefined ? withMemory : { ...withMemory, contract_deadline_ms: this.deadlineMs });
  }

  /** `fn` within the orchestrator's deadline (no timer when it declares none); past it, the run fails 'Timeout'. */
  private async inTime<T>(fn: () => Promise<T>): Promise<T> {
    const r = await withDeadline(this.deadlineMs, fn, 'member');
    if (r.timedOut) {
      this.timedOut = true;
      throw this.fail(timeoutMessage(this.agent), 'Timeout');
    }
    return r.value;
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
  runMember(spec: MemberSpec): Promise<AgentRunResult> {
    if (spec.inline && this.leanMembers()) return this.runMemberLean(spec);
    return this.runMemberAwaiting(spec);
  }

  /** Patch `lean-inline-members`, decided once, at the run's first inline member. */
  leanMembers(): boolean {
    return (this.lean ??= patched(PATCHES.leanInlineMembers.id));
  }

  /**
   * runMember for an inline member (patch `lean-inline-members`): the common case (not paused, the
   * member loaded, no deadline, no memory, a member that may run inline) issues its first model
   * turn with no await before it, and its outcome is a `.then` on that turn. Temporal's workflow
   * sandbox captures a stack trace for every promise a workflow creates (its stack-trace query),
   * so each async layer a member passes through costs the batch's workflow tasks time. The members
   * waiting for an agent's first load share one `loadAgent` (each issued its own before); anything
   * else goes the awaiting way.
   */
  private runMemberLean(spec: MemberSpec): Promise<AgentRunResult> {
    const member = this.agents.get(spec.agent_id);
    if (!member) return this.loadShared(spec.agent_id).then(() => this.runMemberLean(spec));
    const workflowType = spec.workflowType ?? workflowTypeFor(member);
    const call = { workflowType: workflowType ?? '', overridden: spec.workflowType !== undefined, options: spec.options, timeoutSeconds: spec.timeoutSeconds };
    if (this.paused || this.deadlineMs !== undefined || this.memory || !workflowType || inlineMemberBlocker(member, call) !== undefined) return this.runMemberAwaiting(spec);
    try {
      const refused = spec.escalationInput ? undefined : memberInputRefusal(member, spec.role, spec.input);
      if (refused && patched(PATCHES.contractOrchestrator.id)) throw ApplicationFailure.nonRetryable(refused, 'MemberInputInvalid', { member: member.agent_id, role: spec.role });
      if (!patched(PATCHES.inlineSingleTurnMembers.id)) return this.runMemberAwaiting(spec);
      return startInlineMember(this.input.bundle, member, spec).then((res) =>
        res !== NEEDS_CHILD
          ? this.memberDone(spec.role, res)
          : // A reply with tool calls: the member runs as a child workflow from the start.
            this.startMember({ ...spec, inline: false }, member, workflowType).then((r) => this.memberDone(spec.role, r)),
      );
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** `load`, one activity for all the members waiting on the same agent (the lean path). */
  private loadShared(agentId: string): Promise<LoadedAgent> {
    let p = this.loading.get(agentId);
    if (!p) {
      p = this.load(agentId).finally(() => this.loading.delete(agentId));
      this.loading.set(agentId, p);
    }
    return p;
  }

  private async runMemberAwaiting(spec: MemberSpec): Promise<AgentRunResult> {
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
    if (refused && patched(PATCHES.contractOrchestrator.id)) throw ApplicationFailure.nonRetryable(refused, 'MemberInputInvalid', { member: member.agent_id, role: spec.role });
    // A JSON task's memory block reaches the members given the task as context (a text task holds it already).
    const context = this.memory?.memberContext(spec.input, spec.options?.context);
    if (context) spec = { ...spec, options: { ...spec.options, context } };
    return this.memberDone(spec.role, await this.inTime(() => this.startMember(spec, member, workflowType)));
  }

  private async startMember(spec: MemberSpec, member: LoadedAgent, workflowType: string): Promise<AgentRunResult> {
    if (spec.inline) {
      const call = { workflowType, overridden: spec.workflowType !== undefined, options: spec.options, timeoutSeconds: spec.timeoutSeconds };
      if (inlineMemberBlocker(member, call) === undefined && patched(PATCHES.inlineSingleTurnMembers.id)) {
        const res = await runInlineMember(this.input.bundle, member, spec);
        if (res !== NEEDS_CHILD) return res;
      }
    }
    try {
      return await runChildAgent({
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

  /**
   * The orchestrator's own contract on its final output (interface.output.schema, then output
   * guardrails), then mark completed (status + AgentStatus search attribute) and build the result.
   * Patched where it changes anything: a conforming output of an agent without output guardrails
   * issues exactly the commands it did before.
   */
  async complete(output: JsonValue): Promise<AgentRunResult> {
    if (workflowInfo().workflowType === SHARD_WORKFLOW) return this.completed(output);
    // A pattern that tolerates member failures (batch items, parallel branches) still ends here.
    if (this.timedOut) throw this.fail(timeoutMessage(this.agent), 'Timeout');
    const conformed = conformOutput(this.agent, output);
    const changed = !conformed.ok || conformed.output !== output;
    if (!(changed || guardsOutput(this.agent)) || !patched(PATCHES.orchestratorContract.id)) return this.finish(output);
    if (!conformed.ok) throw this.fail(conformed.refusal, 'OutputSchemaInvalid');
    let final = conformed.output;
    if (guardsOutput(this.agent)) {
      const v = await this.guard('output', final);
      if (v.kind === 'transformed') final = v.value ?? v.text ?? final;
      else if (v.kind === 'escalate') return this.escalateOutput(v);
      else if (v.kind === 'blocked' || v.kind === 'retry') throw this.fail(`output guardrail '${v.guardrail}' blocked the output: ${v.reason}`, 'GuardrailBlocked');
    }
    return this.finish(final);
  }

  /** The final output passed the output contract: memory writes it back (approvals wait), then the run completes. */
  private async finish(output: JsonValue): Promise<AgentRunResult> {
    if (this.memory) await this.memory.end(output);
    return this.completed(output);
  }

  /** An output guardrail asked to escalate: the orchestrator's escalation rules decide (the Agent Definition Specification's "escalation rules"). */
  private async escalateOutput(v: GuardrailVerdict): Promise<AgentRunResult> {
    const reason = `output guardrail '${v.guardrail}' asked to escalate: ${v.reason}`;
    const esc = await this.escalate({ on: 'guardrail', guardrail: v.guardrail ?? '' }, { error: reason });
    if (esc.handled && 'final' in esc) return this.completed(esc.final.output);
    if (esc.handled && 'output' in esc) return this.completed(esc.output);
    throw this.fail(esc.handled ? `${reason}; the escalation was closed without an answer` : reason, 'GuardrailBlocked');
  }

  private completed(output: JsonValue): AgentRunResult {
    this.end('completed');
    return this.result(output);
  }

  /** Mark failed and build the failure to throw (of type 'Timeout' once the deadline passed: the pattern's wrapping keeps the message). */
  fail(message: string, type: string, details?: JsonValue): ApplicationFailure {
    this.end('failed', message);
    return ApplicationFailure.nonRetryable(message, this.timedOut ? 'Timeout' : type, ...(details === undefined ? [] : [details]));
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
      waitForHuman: (queue, reason) => this.inTime(() => this.waitForHuman(queue, reason)),
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
