/**
 * Shared plumbing of every orchestration workflow (agf.* multi-agent policies, Graph, Swarm,
 * task DAG, steps, vendor policies): loading agents through the `loadAgent` activity (claim check:
 * the bundle never enters history), the `status` query, `pause`/`resume` signals, warnings
 * (status + result + workflow log), token usage, members as child workflows, and escalation
 * (seed 001 "escalation rules"): target `agent` delegates and returns its result, target
 * `human_queue` sets AgentStatus=waiting_for_human + EscalationQueue and waits for the `respond`
 * signal or the `respondEscalation` update.
 */
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  TimeoutFailure,
  condition,
  isCancellation,
  log,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { JsonObject, JsonValue } from '../compiler/types';
import type { AgentRunResult, RunAgentInput, RunOptions, RunState, RunStatus, TokenUsage } from '../shared/contract';
import { SEARCH_ATTRIBUTES } from '../shared/contract';
import { pauseSignal, resumeSignal, statusQuery } from '../shared/handlers';
import type { Activities } from '../activities';
import type { AgentView } from '../runtime/agent-view';
import { patternOf, workflowTypeFor } from '../shared/dispatch';
import { runChildAgent } from './child';
import type { EscalationEvent } from '../orchestration/escalation';
import { HumanQueue, HumanResponse, runEscalation } from './human-queue';

/** The agent as the loader returns it: everything but the (possibly large) instructions and sections. */
export type LoadedAgent = AgentView;

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '60s',
  retry: { maximumAttempts: 5, initialInterval: '1s', nonRetryableErrorTypes: ['UnknownTransform', 'BlobNotFound'] },
});

export function emptyUsage(): TokenUsage {
  return { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
}

export function addUsage(into: TokenUsage, u: Partial<TokenUsage> | undefined): void {
  if (!u) return;
  into.prompt_tokens += u.prompt_tokens ?? 0;
  into.completion_tokens += u.completion_tokens ?? 0;
  into.total_tokens += u.total_tokens ?? (u.prompt_tokens ?? 0) + (u.completion_tokens ?? 0);
}

const GENERIC_FAILURES = new Set(['Activity task failed', 'Child Workflow execution failed', 'Workflow execution failed', 'Activity task timed out']);

/** The text of a failure, unwrapping child-workflow/activity causes (e.g. "timed out", the model's error). */
export function failureMessage(err: unknown): string {
  if (err instanceof ChildWorkflowFailure && err.cause instanceof TimeoutFailure) return 'timed out';
  const parts: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 8; depth++) {
    const e = cur as { message?: string; cause?: unknown };
    const m = (e.message ?? '').trim();
    if (m && !GENERIC_FAILURES.has(m) && !parts.some((p) => p.includes(m))) parts.push(m);
    cur = e.cause;
  }
  return parts.length ? parts.join(': ') : String((err as { message?: string })?.message ?? err);
}

export function isTimeout(err: unknown): boolean {
  return err instanceof ChildWorkflowFailure && err.cause instanceof TimeoutFailure;
}

/** Raised by an escalation whose outcome ends the pattern with this result. */
export class EscalationResult {
  constructor(readonly result: AgentRunResult) {}
}

/**
 * One orchestration run: register handlers first thing in the workflow, then use the helpers.
 * All state lives in workflow memory (rebuilt by replay) and, across continue-as-new, in `carried`.
 */
export class OrchestratorRun {
  readonly status: RunStatus;
  readonly usage: TokenUsage;
  readonly warnings: string[] = [];
  paused = false;
  private readonly agents = new Map<string, LoadedAgent>();
  private readonly human: HumanQueue;
  agent!: LoadedAgent;

  constructor(readonly input: RunAgentInput, pattern: string) {
    const carried = (input.carried ?? {}) as JsonObject;
    this.usage = (carried.usage as unknown as TokenUsage) ?? emptyUsage();
    for (const w of (carried.warnings as string[] | undefined) ?? []) this.warnings.push(w);
    this.status = {
      state: 'running',
      agent_id: input.agent_id,
      version: '',
      pattern,
      step: 0,
      turn: 0,
      pending_approvals: [],
      tool_calls_made: 0,
      token_usage: this.usage,
      warnings: this.warnings,
    };
    // A pause carried across continue-as-new (see carry()).
    if (carried.paused === true) {
      this.paused = true;
      this.status.state = 'paused';
    }
    setHandler(statusQuery, () => this.status);
    setHandler(pauseSignal, () => {
      this.paused = true;
      if (this.status.state === 'running') this.status.state = 'paused';
    });
    setHandler(resumeSignal, () => {
      this.paused = false;
      if (this.status.state === 'paused') this.status.state = 'running';
    });
    this.human = new HumanQueue();
  }

  /** Load the orchestrator agent and set status fields. */
  async init(): Promise<LoadedAgent> {
    this.agent = await this.load(this.input.agent_id);
    this.status.version = this.agent.version;
    if (!this.input.carried) {
      safeUpsert({
        [SEARCH_ATTRIBUTES.agentId]: [this.agent.agent_id],
        [SEARCH_ATTRIBUTES.agentVersion]: [this.agent.version],
        [SEARCH_ATTRIBUTES.pattern]: [this.status.pattern === 'vendor' ? patternOf(this.agent) : this.status.pattern],
        [SEARCH_ATTRIBUTES.status]: ['running'],
      });
    }
    return this.agent;
  }

  async load(agentId: string): Promise<LoadedAgent> {
    const cached = this.agents.get(agentId);
    if (cached) return cached;
    const a = await acts.loadAgent({ bundle: this.input.bundle, agent_id: agentId });
    this.agents.set(agentId, a);
    return a;
  }

  /** Resolve a PolicyStep alias through local_agents (an unknown alias is taken as an agent_id). */
  agentIdFor(alias: string): string {
    const la = (this.agent.local_agents ?? []).find((l) => l.alias === alias);
    return la ? la.agent_ref : alias;
  }

  warn(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
    log.warn(message, { workflowId: workflowInfo().workflowId });
  }

  setState(state: RunState): void {
    this.status.state = state;
  }

  /** Block while paused (pause: no new member starts; running members finish). */
  async checkpoint(): Promise<void> {
    if (this.paused) await condition(() => !this.paused);
  }

  /**
   * Run one member as a child workflow. `workflowType` overrides the member's own type (e.g.
   * agfReactWorkflow for a pattern's `$self`). A policy this worker does not implement fails with
   * an error naming the policy id.
   */
  async runMember(spec: { agent_id: string; input: JsonValue; role: string; options?: RunOptions; timeoutSeconds?: number; workflowType?: string }): Promise<AgentRunResult> {
    await this.checkpoint();
    const member = await this.load(spec.agent_id);
    const workflowType = spec.workflowType ?? workflowTypeFor(member);
    if (!workflowType) {
      throw ApplicationFailure.nonRetryable(
        `agent '${member.agent_id}' uses execution policy '${patternOf(member)}', which this worker does not implement`,
        'UnsupportedPolicy',
      );
    }
    const res = await runChildAgent({
      bundle: this.input.bundle,
      agent_id: spec.agent_id,
      workflowType,
      input: spec.input,
      role: spec.role,
      options: spec.options,
      timeoutSeconds: spec.timeoutSeconds,
    });
    addUsage(this.usage, res.usage);
    for (const w of res.warnings ?? []) this.warn(`${spec.role}: ${w}`);
    return res;
  }

  /** Run a transform registered in the worker (output_from.custom_transform) as an activity. */
  async transform(name: string, outputs: Record<string, JsonValue>, order: string[]): Promise<JsonValue> {
    return acts.runTransform({ name, outputs, order, input: this.input.input });
  }

  result(output: JsonValue, extra: Partial<AgentRunResult> = {}): AgentRunResult {
    return { agent_id: this.input.agent_id, output, usage: { ...this.usage }, warnings: [...this.warnings], ...extra };
  }

  /** Mark completed (status + AgentStatus search attribute) and build the result. */
  complete(output: JsonValue): AgentRunResult {
    this.setState('completed');
    safeUpsert({ [SEARCH_ATTRIBUTES.status]: ['completed'] });
    return this.result(output);
  }

  /** Mark failed and build the failure to throw. */
  fail(message: string, type: string, details?: JsonValue): ApplicationFailure {
    this.setState('failed');
    this.status.error = message;
    safeUpsert({ [SEARCH_ATTRIBUTES.status]: ['failed'] });
    return ApplicationFailure.nonRetryable(message, type, ...(details === undefined ? [] : [details]));
  }

  /** Wait for a human on `queue`: AgentStatus=waiting_for_human, EscalationQueue=queue. */
  async waitForHuman(queue: string, reason: string): Promise<HumanResponse> {
    const prev = this.status.state;
    this.setState('waiting_for_human');
    this.status.escalation = { queue, reason, since: new Date().toISOString() };
    safeUpsert({ [SEARCH_ATTRIBUTES.status]: ['waiting_for_human'], [SEARCH_ATTRIBUTES.escalationQueue]: [queue] });
    log.info('waiting for a human response', { queue, reason });
    const r = await this.human.wait(queue);
    this.status.escalation = undefined;
    this.setState(prev === 'waiting_for_human' ? 'running' : prev);
    safeUpsert({ [SEARCH_ATTRIBUTES.status]: ['running'], [SEARCH_ATTRIBUTES.escalationQueue]: [] });
    return r;
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
        }),
    });
    if (!out.handled) return out;
    if (out.target === 'agent') return { handled: true, final: this.result(out.result.output) };
    if ('closed' in out) return { handled: true, closed: true };
    return { handled: true, output: out.output };
  }

  private escalations = 1;

  /** State to carry across continue-as-new (pass `paused: true` while paused to keep the pause). */
  carry(extra: JsonObject): JsonObject {
    return { ...extra, usage: { ...this.usage } as unknown as JsonObject, warnings: [...this.warnings] };
  }
}

/** Search attributes are best effort (a server without them registered must not break runs). */
export function safeUpsert(attrs: Record<string, string[]>): void {
  try {
    upsertSearchAttributes(attrs);
  } catch (err) {
    log.warn('search attribute update failed', { error: String(err) });
  }
}

/**
 * Run `fn` in a cancellable scope; if `deadlineMs` (epoch ms, workflow time) passes first, the
 * scope is cancelled and `{ timedOut: true }` returned. The deadline is a durable timer.
 */
export async function withDeadline<T>(deadlineMs: number | undefined, fn: () => Promise<T>): Promise<{ timedOut: false; value: T } | { timedOut: true }> {
  if (deadlineMs === undefined) return { timedOut: false, value: await fn() };
  const scope = new CancellationScope();
  let settled = false;
  let value: T | undefined;
  let error: unknown;
  let failed = false;
  const p = scope.run(fn).then(
    (v) => { value = v; settled = true; },
    (e) => { error = e; failed = true; settled = true; },
  );
  const remaining = deadlineMs - Date.now();
  const inTime = remaining > 0 ? await condition(() => settled, remaining) : settled;
  if (!inTime) {
    scope.cancel();
    await p;
    return { timedOut: true };
  }
  if (failed) throw error;
  return { timedOut: false, value: value as T };
}

export { isCancellation };
