/**
 * Workflow interceptor module (bundled with the workflows: scripts/build-bundle.ts and
 * src/worker/create-worker.ts): when an agent run ends, it tells the worker through the
 * `agentloomTracing` sink, which emits the run's `agent.run` span and run metrics
 * (src/telemetry/tracing.ts, metrics.ts). An outbound interceptor counts the model turns the run
 * schedules, in memory only. Sinks add no command and no history event and are not called during replay, so recorded runs
 * replay unchanged and a replayed run emits nothing. Imports only
 * @temporalio/workflow and types.
 */
import {
  ContinueAsNew,
  isCancellation,
  proxySinks,
  type ActivityInput,
  type Next,
  type WorkflowOutboundCallsInterceptor,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import type { BlobRef, TokenUsage } from '../shared/contract';
import type { AgentloomTracingSinks, RunSpanStatus } from '../shared/tracing-sinks';

const { agentloomTracing } = proxySinks<AgentloomTracingSinks>();

/** Failure types that mean the run was refused (a policy, guardrail or lifecycle said no), not that it broke. */
const REFUSALS = new Set(['GuardrailBlocked', 'ContentBlocked', 'PolicyViolation', 'ToolPolicyBlocked', 'AgentNotRunnable', 'InputTooLong']);

/** The first ApplicationFailure type along the cause chain. */
function failureType(e: unknown): string | undefined {
  for (let c: unknown = e, i = 0; c && typeof c === 'object' && i < 8; c = (c as { cause?: unknown }).cause, i++) {
    const t = (c as { type?: unknown }).type;
    if (typeof t === 'string' && t) return t;
  }
  return undefined;
}

/** Agent workflows take `{ bundle, agent_id, ... }` first; other workflows are not agent runs. */
function agentRun(args: unknown[]): { bundle: BlobRef; agent_id: string } | undefined {
  const a = args[0] as { bundle?: unknown; agent_id?: unknown } | undefined;
  if (!a || typeof a !== 'object' || !a.bundle || typeof a.bundle !== 'object' || typeof a.agent_id !== 'string') return undefined;
  return { bundle: a.bundle as BlobRef, agent_id: a.agent_id };
}

/** What one run's interceptors count between start and end (in memory: rebuilt the same on replay). */
interface RunCounts {
  /** modelTurn activities scheduled: the agent-loop iterations (the Agent Definition Specification's metric agent.run.loops). */
  model_turns: number;
}

/**
 * Counts the run's model turns as the workflow schedules them. It only looks at the command, never
 * changes it: the workflow emits exactly what it did without the interceptor.
 */
class ModelTurnCounter implements WorkflowOutboundCallsInterceptor {
  constructor(private readonly counts: RunCounts) {}
  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    if (input.activityType === 'modelTurn') this.counts.model_turns++;
    return next(input);
  }
}

/** Size of the run input in characters (the Agent Definition Specification's metric agent.run.input_chars). */
function inputChars(args: unknown[]): number {
  const v = (args[0] as { input?: unknown }).input;
  if (v === undefined) return 0;
  return typeof v === 'string' ? v.length : (JSON.stringify(v) ?? '').length;
}

class AgentRunSpanInterceptor implements WorkflowInboundCallsInterceptor {
  constructor(private readonly counts: RunCounts) {}
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const run = agentRun(input.args);
    if (!run) return next(input);
    const chars = inputChars(input.args);
    try {
      agentloomTracing.runStarted({ ...run, input_chars: chars });
    } catch {
      // A worker without the tracing sink registered: nothing to emit.
    }
    const end = (status: RunSpanStatus, extra: { usage?: Partial<TokenUsage>; failure_type?: string } = {}): void => {
      try {
        agentloomTracing.runEnded({ ...run, status, ...extra, model_turns: this.counts.model_turns, input_chars: chars, ended_ms: Date.now() });
      } catch {
        // A worker without the tracing sink registered: nothing to emit.
      }
    };
    try {
      const result = await next(input);
      const usage = (result as { usage?: Partial<TokenUsage> } | undefined)?.usage;
      end('success', usage && typeof usage === 'object' ? { usage } : {});
      return result;
    } catch (e) {
      const type = failureType(e);
      const status: RunSpanStatus = e instanceof ContinueAsNew ? 'continued_as_new' : isCancellation(e) ? 'cancelled' : type && REFUSALS.has(type) ? 'refused' : 'error';
      end(status, type ? { failure_type: type } : {});
      throw e;
    }
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  const counts: RunCounts = { model_turns: 0 };
  return { inbound: [new AgentRunSpanInterceptor(counts)], outbound: [new ModelTurnCounter(counts)] };
};
