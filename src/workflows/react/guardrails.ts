/**
 * Guardrails of a react run (the Agent Definition Specification's "guardrails"), as the `runGuardrails` activity at the
 * positions where the agent declares some: input before the first model call, tool_input before a
 * call runs (and before approval), tool_output on its result, output on the final answer. A
 * verdict may redact/transform, block, ask for one correction (output) or escalate.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { JsonObject, JsonValue } from '../../compiled/types';
import type { AppendItem, ToolCall } from '../../runtime/messages';
import type { RunGuardrailsInput, RunGuardrailsOutput } from '../../activities/guardrails';
import type { BlobRef } from '../../shared/contract';
import type { ReactRun } from './context';
import { errorResult } from './tool-result';
import { EscalationRequest, guardrailEvent } from './escalation';
import { noteAudit } from './governance';



/** Run the guardrails of one position (activity); their warnings go to the run's warnings. */
async function guard(rx: ReactRun, inp: Omit<RunGuardrailsInput, 'bundle' | 'agent_id'>, summary: string): Promise<RunGuardrailsOutput> {
  let out: RunGuardrailsOutput;
  try {
    out = await rx.acts.runGuardrails.executeWithOptions({ ...rx.guardOpts, summary }, [{ bundle: rx.input.bundle, agent_id: rx.input.agent_id, ...inp }]);
  } catch (e) {
    // Surface a misconfigured guardrail (unknown provider, bad config) as the run's own failure.
    const cause = (e as { cause?: unknown }).cause;
    if (cause instanceof ApplicationFailure && (cause.type === 'UnknownGuardrailProvider' || cause.type === 'GuardrailConfigError')) {
      throw ApplicationFailure.nonRetryable(cause.message, cause.type);
    }
    throw e;
  }
  for (const w of out.warnings) rx.shell.warn(inp.tool ? `${w} (tool ${inp.tool}, call ${inp.call_id})` : w);
  const v = out.verdict;
  noteAudit(rx, {
    kind: 'guardrail',
    position: inp.position,
    verdict: v.kind,
    ...(v.guardrail ? { guardrail: v.guardrail } : {}),
    ...(v.reason ? { reason: v.reason } : {}),
    ...(inp.tool ? { tool: inp.tool, call_id: inp.call_id } : {}),
  });
  return out;
}

/** Input guardrails on the rendered first message, before the first model call. */
export async function guardInput(rx: ReactRun): Promise<void> {
  const { st } = rx;
  const out = await guard(rx, { position: 'input', message: st.pending_append[0] }, 'input guardrails');
  const v = out.verdict;
  if (v.kind === 'blocked' || v.kind === 'retry') throw ApplicationFailure.nonRetryable(`input guardrail '${v.guardrail}' blocked the run: ${v.reason}`, 'GuardrailBlocked');
  // The model reads the stored (possibly transformed) message: the input text is not repeated in history.
  if (out.stored) st.pending_append = [{ ref: out.stored }];
  if (v.kind === 'transformed') st.input_transformed = true;
  if (out.triggered && rx.agent.guardrails.tool_calls.block_tools_on_input_fail) {
    st.tools_blocked = `input guardrail '${out.first_triggered}' triggered (guardrails.tool_calls.block_tools_on_input_fail)`;
    rx.shell.warn(`tool calls blocked for this run: ${st.tools_blocked}`);
  }
  if (v.kind === 'escalate') throw new EscalationRequest(guardrailEvent(v.guardrail), `input: ${v.reason}`);
}

/** tool_input guardrails on a call's arguments, before it runs (and before approval). */
export async function guardToolInput(rx: ReactRun, call: ToolCall, args: JsonObject): Promise<{ args: JsonObject } | { error: AppendItem }> {
  const out = await guard(rx, { position: 'tool_input', args, tool: call.name, call_id: call.id }, `tool_input guardrails ${call.name}`);
  const v = out.verdict;
  if (v.kind === 'escalate') throw new EscalationRequest(guardrailEvent(v.guardrail), `tool_input of ${call.name}: ${v.reason}`);
  if (v.kind === 'blocked' || v.kind === 'retry') return { error: errorResult(call, `call blocked by tool_input guardrail '${v.guardrail}': ${v.reason}`) };
  return { args: v.kind === 'transformed' && v.args ? v.args : args };
}

/** tool_output guardrails on a call's result, before the model sees it. */
export async function guardToolOutput(rx: ReactRun, call: ToolCall, item: AppendItem): Promise<AppendItem> {
  if (!rx.guarded('tool_output')) return item;
  const out = await guard(rx, { position: 'tool_output', message: item, tool: call.name, call_id: call.id }, `tool_output guardrails ${call.name}`);
  const v = out.verdict;
  if (v.kind === 'escalate') throw new EscalationRequest(guardrailEvent(v.guardrail), `tool_output of ${call.name}: ${v.reason}`);
  if (v.kind === 'blocked' || v.kind === 'retry') return errorResult(call, `the result of ${call.name} was blocked by tool_output guardrail '${v.guardrail}': ${v.reason}`);
  if (v.kind === 'transformed' && v.ref) return { ref: v.ref };
  return out.stored ? { ref: out.stored } : item;
}

/** The correction turn after an output guardrail with on_fail retry rejected the final answer. */
function guardrailCorrection(guardrail: string, reason: string): string {
  return `Your previous answer was not accepted: the output guardrail '${guardrail}' rejected it (${reason}). Write a new final answer that does not have this problem.`;
}

/**
 * Output guardrails on a final answer (stored at `head`): the answer to return (possibly
 * transformed), or `retry` when the model gets one correction turn (already queued).
 */
export async function guardOutput(rx: ReactRun, head: BlobRef, output: JsonValue, turn: number): Promise<{ output: JsonValue } | 'retry'> {
  const { st } = rx;
  const g = await guard(rx, { position: 'output', head }, 'output guardrails');
  const v = g.verdict;
  if (v.kind === 'escalate') throw new EscalationRequest(guardrailEvent(v.guardrail), `output: ${v.reason}`);
  if (v.kind === 'retry') {
    if ((st.guardrail_retries ?? 0) < 1) {
      st.guardrail_retries = (st.guardrail_retries ?? 0) + 1;
      rx.shell.warn(`turn ${turn + 1}: output guardrail '${v.guardrail}' rejected the final answer (${v.reason}); asked the model for a correction`);
      st.pending_append = [{ message: { role: 'user', content: guardrailCorrection(v.guardrail ?? '', v.reason ?? '') } }];
      return 'retry';
    }
    throw ApplicationFailure.nonRetryable(`output guardrail '${v.guardrail}' rejected the final answer again after a correction turn: ${v.reason}`, 'GuardrailBlocked');
  }
  if (v.kind === 'blocked') throw ApplicationFailure.nonRetryable(`output guardrail '${v.guardrail}' blocked the final answer: ${v.reason}`, 'GuardrailBlocked');
  // An ephemeral run's rewritten answer stays in the store: its end keeps it for the client.
  if (v.kind === 'transformed' && v.value_ref) {
    st.output_ref = v.value_ref;
    return { output: null };
  }
  if (v.kind === 'transformed' && v.value !== undefined) return { output: v.value };
  return { output };
}
