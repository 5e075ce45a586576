/**
 * The spans of one spanned activity, built once it has finished:
 *
 *   agent.model_invocation  around `modelTurn` (model, tokens, finish reason; inputs and outputs when configured)
 *   agent.tool_call         around `runTool` (the span id its traceparent named; args and result when configured)
 *   agent.kb_retrieval      a child of the tool call when the tool is the `search_knowledge` builtin
 *   agent.guardrail         one per guardrail evaluated by `runGuardrails`
 *
 * Content enters a span only as the agent's tracing settings allow, PII-redacted first when the
 * agent has policies.pii_redaction, sensitive tool fields redacted.
 */
import { SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { BlobRef } from '../shared/contract';
import type { JsonObject, JsonValue } from '../compiled/types';
import { redactArgs } from '../governance/sensitive';
import { redactJson, redactText } from '../governance/pii';
import { modelInputsAttribute, toolArgsAttribute } from './span-content';
import type { SpanSetup } from './run-traces';
import type { SpanSources } from './span-sources';

/** The activities that get a span, by activity type. */
export const SPANNED = { modelTurn: 'agent.model_invocation', runTool: 'agent.tool_call', runGuardrails: 'agent.guardrail' } as const;
export type Spanned = keyof typeof SPANNED;

export interface ModelArg { turn?: number; fallback?: boolean; prefs?: { temperature?: number; reasoning_effort?: string } }
export interface ModelResult { head?: BlobRef; model?: string; usage?: { prompt_tokens?: number; completion_tokens?: number }; message?: { content?: string; tool_calls?: unknown[] } }
export interface ToolArg { tool: string; call_id?: string; args?: JsonObject }
export interface ToolResult { ref?: BlobRef; is_error?: boolean }
export interface GuardrailArg { position: string }
export interface GuardrailResult { results?: { ref: string; passed: boolean; action: string }[] }

/** Ends a span, with an error status when the activity failed. */
export function finishSpan(span: Span, error: unknown, end: number): void {
  if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message ?? String(error) });
  span.end(end);
}

export class ActivitySpans {
  constructor(private readonly sources: SpanSources) {}

  /** The spans of one finished activity (`spanId`: the tool call's span id chosen before the call). */
  async record(type: Spanned, s: SpanSetup, arg: unknown, result: unknown, error: unknown, start: number, end: number, spanId?: string): Promise<void> {
    if (type === 'modelTurn') return this.modelSpan(s, arg as ModelArg, result as ModelResult | undefined, error, start, end);
    if (type === 'runTool') return this.toolSpan(s, arg as ToolArg, result as ToolResult | undefined, error, start, end, spanId);
    return this.guardrailSpans(s, arg as GuardrailArg, result as GuardrailResult | undefined, error, start, end);
  }

  /** Text content as it may enter a span: PII-redacted first when the agent has policies.pii_redaction. */
  private content(s: SpanSetup, v: JsonValue): string {
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    if (!s.agent.policies?.pii_redaction) return text;
    return typeof v === 'string' ? redactText(v).text : JSON.stringify(redactJson(v).value);
  }

  private async modelSpan(s: SpanSetup, inp: ModelArg, out: ModelResult | undefined, error: unknown, start: number, end: number): Promise<void> {
    const { agent, cfg } = s;
    const attrs: Attributes = {
      agent_id: agent.agent_id,
      model_id: out?.model ?? (inp.fallback ? agent.runtime.fallback_model?.model_id : undefined) ?? agent.runtime.model.model_id,
      latency_ms: end - start,
      turn: inp.turn,
    };
    const temperature = inp.prefs?.temperature ?? agent.runtime.temperature;
    if (typeof temperature === 'number') attrs.temperature = temperature;
    const effort = inp.prefs?.reasoning_effort ?? agent.runtime.reasoning_effort;
    if (typeof effort === 'string') attrs.reasoning_effort = effort;
    if (out) {
      attrs.input_token_count = out.usage?.prompt_tokens ?? 0;
      attrs.output_token_count = out.usage?.completion_tokens ?? 0;
      attrs.finish_reason = out.message?.tool_calls?.length ? 'tool_calls' : 'stop';
      if (cfg.include_model_outputs) attrs['model.output'] = this.content(s, this.withToolArgs(s, out.message as JsonObject));
      if (cfg.include_model_inputs && out.head) {
        const conversation = await this.sources.conversation(out.head);
        const inputs = modelInputsAttribute(conversation.slice(0, -1).map((m) => this.withToolArgs(s, m as unknown as JsonObject)), cfg);
        if (inputs !== undefined) attrs['model.inputs'] = this.content(s, JSON.parse(inputs) as JsonValue);
      }
    }
    finishSpan(s.out.tracer.startSpan('agent.model_invocation', { startTime: start, attributes: attrs }, s.parent), error, end);
  }

  /**
   * A model message as it may enter a span: the arguments of its tool calls are tool args, so they
   * follow include_tool_args (dropped by default, sensitive fields redacted when `redacted`).
   */
  private withToolArgs(s: SpanSetup, msg: JsonObject): JsonObject {
    const calls = msg.tool_calls;
    if (!Array.isArray(calls)) return msg;
    return {
      ...msg,
      tool_calls: calls.map((c) => {
        const call = (c ?? {}) as { id?: string; name?: string; arguments?: JsonObject };
        const tool = s.agent.tools.refs.find((t) => t.tool_id === call.name);
        const args = toolArgsAttribute(call.arguments ?? {}, tool?.sensitive_fields ?? [], s.cfg);
        const { arguments: _dropped, ...rest } = call;
        return (args === undefined ? rest : { ...rest, arguments: JSON.parse(args) as JsonValue }) as JsonObject;
      }),
    };
  }

  private async toolSpan(s: SpanSetup, inp: ToolArg, out: ToolResult | undefined, error: unknown, start: number, end: number, spanId?: string): Promise<void> {
    const { agent, cfg } = s;
    const tool = agent.tools.refs.find((t) => t.tool_id === inp.tool);
    const sensitive = tool?.sensitive_fields ?? [];
    const attrs: Attributes = {
      agent_id: agent.agent_id,
      tool_id: inp.tool,
      latency_ms: end - start,
      outcome: error || out?.is_error ? 'error' : 'success',
      call_id: inp.call_id,
    };
    if (tool) attrs.tool_version = tool.version;
    const args = toolArgsAttribute(inp.args ?? {}, sensitive, cfg);
    if (args !== undefined) attrs['tool.args'] = this.content(s, JSON.parse(args) as JsonValue);
    let parsed: JsonValue | undefined;
    if (out?.ref) {
      const text = await this.sources.toolResult(out.ref);
      try {
        parsed = JSON.parse(text) as JsonValue;
      } catch {
        parsed = text;
      }
      if (cfg.include_tool_results !== 'none') {
        const shown = cfg.include_tool_results === 'redacted' && parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? redactArgs(parsed, sensitive) : parsed;
        attrs['tool.result'] = this.content(s, shown);
      }
    }
    // The span id the call's traceparent named, chosen before the call (W3C trace context propagation).
    s.out.ids.next = spanId ? { traceId: s.traceId, spanId } : undefined;
    let span: Span;
    try {
      span = s.out.tracer.startSpan('agent.tool_call', { startTime: start, attributes: attrs }, s.parent);
    } finally {
      s.out.ids.next = undefined;
    }
    if (tool?.builtin?.name === 'search_knowledge') this.kbSpan(s, trace.setSpan(s.parent, span), parsed, error, start, end);
    finishSpan(span, error, end);
  }

  /** agent.kb_retrieval: the search the `search_knowledge` builtin made, a child of its tool call. */
  private kbSpan(s: SpanSetup, parent: Context, result: JsonValue | undefined, error: unknown, start: number, end: number): void {
    const refs = s.agent.knowledge?.refs ?? [];
    const hits = Array.isArray(result) ? (result as unknown as { kb_id?: string; id?: string; text?: string }[]) : [];
    const span = s.out.tracer.startSpan('agent.kb_retrieval', {
      startTime: start,
      attributes: {
        agent_id: s.agent.agent_id,
        kb_id: refs.map((k) => k.kb_id).join(','),
        search_mode: [...new Set(refs.map((k) => k.retrieval?.search_mode ?? 'keyword'))].join(','),
        chunks_returned: hits.length,
        latency_ms: end - start,
      },
    }, parent);
    if (s.cfg.include_kb_chunks) {
      for (const h of hits) span.addEvent('kb.chunk', { kb_id: h.kb_id ?? '', id: h.id ?? '', text: this.content(s, h.text ?? '') }, start);
    }
    finishSpan(span, error, end);
  }

  private async guardrailSpans(s: SpanSetup, inp: GuardrailArg, out: GuardrailResult | undefined, error: unknown, start: number, end: number): Promise<void> {
    const phase = inp.position === 'input' || inp.position === 'output' ? inp.position : 'tool_call';
    const results = out?.results ?? [];
    const list = error ? (s.agent.guardrails?.[inp.position as 'input'] ?? []).map((g) => ({ ref: (g as { ref: string }).ref })) : results;
    for (const r of list) {
      const full = r as { ref: string; passed?: boolean; action?: string };
      const attrs: Attributes = { agent_id: s.agent.agent_id, guardrail_id: full.ref, phase, position: inp.position, latency_ms: end - start };
      if (typeof full.passed === 'boolean') attrs.triggered = !full.passed;
      if (full.action) attrs.action = full.action;
      finishSpan(s.out.tracer.startSpan('agent.guardrail', { startTime: start, attributes: attrs }, s.parent), error, end);
    }
  }
}
