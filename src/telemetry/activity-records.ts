/**
 * The metrics and log records of one spanned activity (besides its spans): the model, tool and
 * guardrail instruments of metrics.ts, and a log record per guardrail evaluated (warn when
 * triggered, debug when not).
 */
import type { CompiledAgent } from '../compiled/types';
import type { AgentLogs } from './logs';
import type { AgentMetrics } from './metrics';
import type { GuardrailArg, GuardrailResult, ModelArg, ModelResult, Spanned, ToolArg, ToolResult } from './activity-spans';
import type { RunRef } from './run-traces';

/** The metric instruments for one spanned activity. */
export function meterActivity(metrics: AgentMetrics, type: Spanned, agent: CompiledAgent, arg: unknown, result: unknown, error: unknown, latencyMs: number): void {
  if (type === 'modelTurn') {
    const out = result as ModelResult | undefined;
    const inp = arg as ModelArg;
    const modelId = out?.model ?? (inp.fallback ? agent.runtime.fallback_model?.model_id : undefined) ?? agent.runtime.model.model_id;
    metrics.model(agent, modelId, out?.usage, error, latencyMs);
  } else if (type === 'runTool') {
    const out = result as ToolResult | undefined;
    metrics.tool(agent, (arg as ToolArg).tool, error || out?.is_error ? 'error' : 'success', error, latencyMs);
  } else {
    const position = (arg as GuardrailArg).position;
    metrics.guardrails(agent, position === 'input' || position === 'output' ? position : 'tool_call', (result as GuardrailResult | undefined)?.results ?? [], latencyMs);
  }
}

/** Log records of guardrail evaluations: warn when triggered, debug when not. */
export function logGuardrails(logs: AgentLogs, agent: CompiledAgent, run: RunRef & { traceId?: string }, inp: GuardrailArg, out: GuardrailResult | undefined): void {
  for (const r of out?.results ?? []) {
    logs.emit(agent, run, r.passed ? 'debug' : 'warn', r.passed ? 'guardrail.passed' : 'guardrail.triggered', { guardrail_id: r.ref, position: inp.position, action: r.action });
  }
}
