/**
 * The react loop (the Execution Loop specification's "The Execution Loop"): model turn (activity) -> tool calls (concurrent
 * within a turn) -> results back to the model, until a final answer that passes the output schema
 * and guardrails, or a limit. Between turns a long run continues-as-new carrying its state.
 */
import { ApplicationFailure, isCancellation, patched } from '@temporalio/workflow';
import type { JsonObject } from '../../compiled/types';
import type { AgentRunResult } from '../../shared/contract';
import { modelPrefs } from '../../runtime/agent-view';
import { countTurn, toolCallBlocked, toolsExhausted, turnBlocked } from '../../runtime/limits';
import { correctionMessage } from '../../runtime/output';
import type { ModelTurnInput, ModelTurnOutput } from '../../activities/model';
import { failureMessage } from '../shell/failures';
import type { ReactRun } from './context';
import { modelEscalation } from './escalation';
import { guardOutput } from './guardrails';
import { shouldContinueAsNew } from './limits';
import { runCall, runLoneCall } from './tool-calls';
import { flushAudit, refuseBlockedContent } from './governance';
import { runExecutionLoop } from './execution-loop';
import { operatorNotes } from './approval';
import { PATCHES } from '../patches';

/** What one model turn leads to: another turn, or the run's result. */
type Next = 'again' | { result: AgentRunResult };

export async function runLoop(rx: ReactRun): Promise<AgentRunResult> {
  const { st, shell } = rx;
  let turnsThisRun = 0;
  for (;;) {
    // A paused run stays paused across continue-as-new: wait here rather than hand over
    // (patched: runs paused at this point used to continue-as-new and resume on their own).
    if (shell.paused && patched(PATCHES.pauseBeforeContinueAsNew.id)) await shell.checkpoint();
    const handOver = shouldContinueAsNew(rx, turnsThisRun);
    // No await that only passes through: the workflow sandbox captures a stack trace for every
    // promise a workflow creates, so each one costs workflow-task time on every turn. Only a run
    // holding audit events may flush them, and only a paused run waits (the same commands).
    if (st.audit_events?.length) await flushAudit(rx, handOver);
    if (handOver) await shell.continueAsNew({ ...st } as unknown as JsonObject);
    if (shell.paused) await shell.checkpoint();
    const blocked = turnBlocked(st.counters, rx.limits);
    if (blocked) throw ApplicationFailure.nonRetryable(blocked, 'LimitExceeded');
    const noTools = rx.forbidTools || toolsExhausted(st.counters, rx.limits);
    const out = await modelTurn(rx, noTools);
    if (!out) continue;
    turnsThisRun += 1;
    const next = await afterTurn(rx, out, noTools);
    if (next !== 'again') return next.result;
  }
}

/** One model call; undefined when it failed and the fallback model takes over (the turn is redone). */
async function modelTurn(rx: ReactRun, noTools: boolean): Promise<ModelTurnOutput | undefined> {
  const { agent: ag, st, shell, input } = rx;
  const model = st.fallback && ag.runtime.fallback_model ? ag.runtime.fallback_model : ag.runtime.model;
  const turn = st.counters.turn;
  shell.details(`model ${model.model_id}, turn ${turn + 1}`);
  const modelIn: ModelTurnInput = {
    bundle: input.bundle,
    agent_id: input.agent_id,
    head: st.head,
    turn,
    prefs: modelPrefs(ag, noTools, st.counters.tool_calls),
    append: st.pending_append,
    ...(st.fallback ? { fallback: true } : {}),
    // Input rewritten by a guardrail: the model activity reads it from the stored first message.
    ...(st.head === null && !st.input_transformed ? { input: input.input } : {}),
    ...(rx.modelExtraTools.length ? { extra_tools: rx.modelExtraTools } : {}),
    ...(rx.forbidTools ? { forbid_tools: true } : {}),
  };
  // The Execution Loop specification's streaming (new configuration only, so no patch): calls join the plan as they stream
  // (dependencies loop); `loom run --stream` reads the text from the store, never from history.
  const streamCalls = ag.runtime.execution_loop === 'dependencies' && !noTools;
  const streamText = input.options?.stream_text === true;
  if (streamCalls || streamText) modelIn.stream = { ...(streamCalls ? { calls: true } : {}), ...(streamText ? { text: true } : {}) };
  if (streamCalls) rx.stream.begin(turn);
  let out: ModelTurnOutput;
  try {
    out = await rx.acts.modelTurn.executeWithOptions({ ...rx.modelOpts, summary: `model ${model.model_id}, turn ${turn + 1}` }, [modelIn]);
  } catch (e) {
    rx.stream.end();
    // Calls already started from the stream cannot be redone on another model: the run fails.
    if (rx.stream.take()) throw e;
    // runtime.fallback_model takes over once the model's retries are exhausted (provider outage,
    // rate limits that outlast retry_policy). Patched: older runs failed here.
    if (isCancellation(e) || !ag.runtime.fallback_model || st.fallback || !patched(PATCHES.modelFailureFallback.id)) throw e;
    st.fallback = true;
    shell.warn(`turn ${turn + 1}: model ${model.model_id} failed (${failureMessage(e)}); switching to fallback model ${ag.runtime.fallback_model.model_id}`);
    return undefined;
  }
  rx.stream.end();
  countTurn(st.counters);
  shell.addUsage(out.usage);
  st.head = out.head;
  st.pending_append = [];
  return out;
}

/** Tool calls run (then another turn), or a final answer is checked. */
async function afterTurn(rx: ReactRun, out: ModelTurnOutput, noTools: boolean): Promise<Next> {
  const { st, shell } = rx;
  const turn = st.counters.turn - 1;
  const calls = out.message.tool_calls ?? [];
  if (!calls.length) return finalAnswer(rx, out, turn);
  const esc = modelEscalation(rx, calls);
  if (esc) throw esc;
  if (noTools && !rx.forbidTools && !st.tools_blocked) {
    const why = toolCallBlocked(st.counters, rx.limits, calls[0].name) ?? 'tools are not allowed any more';
    throw ApplicationFailure.nonRetryable(`the model kept calling tools after the limit: ${why}`, 'LimitExceeded');
  }
  const terminal = calls.find((c) => rx.extraTools.some((e) => e.name === c.name && e.terminal));
  if (terminal) return { result: shell.result(out.message.content ?? null, { terminal_tool_call: { name: terminal.name, arguments: terminal.arguments } }) };
  shell.details(`turn ${turn + 1}: ${calls.length} tool call(s): ${calls.map((c) => c.name).join(', ')}`);
  // runtime.execution_loop `dependencies` (new configuration only): calls start as their _dependsOn are met.
  // Calls that streamed in have already joined the plan (react/stream.ts); the reply completes it.
  const streamed = rx.stream.take();
  // A turn's only call (the common turn) needs no Promise.all, and a plain one no await before its tool (react/tool-calls.ts).
  const results = streamed
    ? await streamed.finish(calls)
    : rx.agent.runtime.execution_loop === 'dependencies'
      ? await runExecutionLoop(rx, calls)
      : calls.length === 1
        ? [await runLoneCall(rx, calls[0])]
        : await Promise.all(calls.map((c) => runCall(rx, c)));
  // Calls an operator replaced at approval: the model is told what replaced what (empty otherwise).
  st.pending_append = [...results, ...operatorNotes(rx)];
  return 'again';
}

/** A final answer: output schema (one correction turn, then the fallback model), then output guardrails. */
async function finalAnswer(rx: ReactRun, out: ModelTurnOutput, turn: number): Promise<Next> {
  const { agent: ag, st, shell } = rx;
  const check = out.output_check ?? { ok: true as const, value: out.message.content ?? '' };
  if (check.ok) {
    await refuseBlockedContent(rx, out.head);
    // An ephemeral run's answer is in the store: its end keeps it for the client.
    if (out.output_ref) st.output_ref = out.output_ref;
    if (!rx.guarded('output')) return { result: shell.result(check.value) };
    const g = await guardOutput(rx, out.head, check.value, turn);
    return g === 'retry' ? 'again' : { result: shell.result(g.output) };
  }
  const schema = ag.interface.output.schema;
  if (st.corrections === 0) {
    st.corrections = 1;
    shell.warn(`turn ${turn + 1}: ${check.error}; asked the model for a correction`);
    st.pending_append = [{ message: { role: 'user', content: correctionMessage(check.error, schema) } }];
    return 'again';
  }
  if (ag.runtime.fallback_model && !st.fallback) {
    st.fallback = true;
    shell.warn(`turn ${turn + 1}: ${check.error}; retrying on fallback model ${ag.runtime.fallback_model.model_id}`);
    st.pending_append = [{ message: { role: 'user', content: correctionMessage(check.error, schema) } }];
    return 'again';
  }
  throw ApplicationFailure.nonRetryable(
    `final answer rejected after a correction turn${ag.runtime.fallback_model ? ' and the fallback model' : ''}: ${check.error}`,
    'OutputSchemaError',
  );
}
