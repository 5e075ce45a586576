/**
 * agf.react as a deterministic Temporal workflow (seed 000; seed 003 "The Execution Loop").
 *
 * model turn (activity) -> tool calls (activities, concurrent within a turn) -> results back to
 * the model, until a final answer or a limit. The conversation lives in the content-addressed
 * message store (src/activities/message-store.ts); this workflow keeps only the head ref and
 * counters, so history grows by a constant amount per turn. Human approval happens just before a
 * call runs; pause/resume are signals; the run timeout is a timer racing the loop; long runs
 * continue-as-new carrying the head, counters and usage.
 *
 * Guardrails (seed 001 "guardrails") run as the `runGuardrails` activity, only at positions where
 * the agent declares some (patch `guardrails`): input before the first model call, tool_input
 * before a call runs, tool_output on its result, output on the final answer. A guardrail that
 * escalates, or the model calling the `escalate_to_human` runtime tool (agents with an
 * `on: model_decision` rule), ends the loop and applies `orchestration.escalation`: target agent →
 * a child run whose output is the run's output; target human_queue → waiting_for_human until an
 * operator answers with `respond` / `respondEscalation` (src/workflows/human-queue.ts).
 */
import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
  ActivityOptions,
} from '@temporalio/workflow';
import type { CompiledTool, GuardrailPosition, JsonObject, JsonValue } from '../compiler/types';
import type { AgentRunResult, BlobRef, ExtraToolSpec, RunAgentInput, RunState, RunStatus, TokenUsage } from '../shared/contract';
import { SEARCH_ATTRIBUTES } from '../shared/contract';
import { approveSignal, approveUpdate, pauseSignal, rejectSignal, rejectUpdate, resumeSignal, statusQuery } from '../shared/handlers';
import type { Activities } from '../activities';
import { patternOf } from '../shared/dispatch';
import type { AgentView } from '../runtime/agent-view';
import { DELEGATE_TOOL, ESCALATE_TOOL, modelPrefs, reactConfig } from '../runtime/agent-view';
import type { AppendItem, Message, ToolCall } from '../runtime/messages';
import { renderUserPrompt } from '../runtime/template';
import { Counters, Limits, countToolCall, countTurn, newCounters, toolCallBlocked, toolsExhausted, turnBlocked } from '../runtime/limits';
import { ApprovalBook, ApprovalPolicy, approvalReason } from '../runtime/approvals';
import { correctionMessage } from '../runtime/output';
import type { ModelTurnInput, ModelTurnOutput } from '../activities/model';
import type { RunGuardrailsInput, RunGuardrailsOutput } from '../activities/guardrails';
import type { EscalationEvent } from '../orchestration/escalation';
import { describeEscalation } from '../orchestration/escalation';
import { runChildAgent } from './child';
import { HumanQueue, runEscalation } from './human-queue';

/** Thrown inside the loop when the run must escalate; handled outside the loop (and its deadline). */
class EscalationRequest extends Error {
  constructor(readonly event: EscalationEvent, readonly detail: string) {
    super(`${describeEscalation(event)}: ${detail}`);
  }
}

/** State carried across continue-as-new (RunAgentInput.carried). */
export interface ReactCarried {
  head: BlobRef | null;
  counters: Counters;
  usage: TokenUsage;
  warnings: string[];
  pending_append: AppendItem[];
  corrections: number;
  fallback: boolean;
  deadline_ms?: number;
  executions: number;
  /** Tests/bench: continue-as-new every N model turns (besides Temporal's suggestion). */
  continue_as_new_every?: number;
  /** Input guardrails rewrote the input: the model reads it from the stored (transformed) first message. */
  input_transformed?: boolean;
  /** guardrails.tool_calls.block_tools_on_input_fail: why tool calls are blocked for this run. */
  tools_blocked?: string;
  /** Output-guardrail correction turns used (on_fail retry: one). */
  guardrail_retries?: number;
  /** A pause that arrived while the run was continuing-as-new. */
  paused?: boolean;
}

const DEFAULT_APPROVAL_TIMEOUT_S = 7 * 24 * 3600;
const GUARD_POSITIONS: GuardrailPosition[] = ['input', 'tool_input', 'tool_output', 'output'];

/** The correction turn after an output guardrail with on_fail retry rejected the final answer. */
function guardrailCorrection(guardrail: string, reason: string): string {
  return `Your previous answer was not accepted: the output guardrail '${guardrail}' rejected it (${reason}). Write a new final answer that does not have this problem.`;
}

function emptyUsage(): TokenUsage {
  return { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
}

function inputChars(input: JsonValue): number {
  return typeof input === 'string' ? input.length : JSON.stringify(input ?? null).length;
}

export async function agfReactWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const carried = (input.carried ?? {}) as Partial<ReactCarried>;
  const first = carried.head === undefined;
  const info = workflowInfo();
  const st: ReactCarried = {
    head: carried.head ?? null,
    counters: carried.counters ?? newCounters(),
    usage: carried.usage ?? emptyUsage(),
    warnings: carried.warnings ?? [],
    pending_append: carried.pending_append ?? [],
    corrections: carried.corrections ?? 0,
    fallback: carried.fallback ?? false,
    deadline_ms: carried.deadline_ms,
    executions: (carried.executions ?? 0) + 1,
    continue_as_new_every: carried.continue_as_new_every,
    ...(carried.input_transformed ? { input_transformed: true } : {}),
    ...(carried.tools_blocked ? { tools_blocked: carried.tools_blocked } : {}),
    ...(carried.guardrail_retries ? { guardrail_retries: carried.guardrail_retries } : {}),
  };
  const book = new ApprovalBook();
  let paused = (input.carried as { paused?: boolean } | undefined)?.paused === true;
  let agent: AgentView | undefined;
  let finalState: RunState | undefined;
  let error: string | undefined;
  let publishedState: RunState | undefined;
  let humanWait: { queue: string; reason: string; since: string } | undefined;

  const loader = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } });

  const currentState = (): RunState =>
    finalState ?? (humanWait ? 'waiting_for_human' : paused ? 'paused' : book.pending.length ? 'waiting_for_approval' : 'running');
  const status = (): RunStatus => ({
    state: currentState(),
    agent_id: input.agent_id,
    version: agent?.version ?? '',
    pattern: agent ? patternOf(agent) : 'agf.react',
    step: st.counters.step,
    turn: st.counters.turn,
    // A finished run (completed, failed, cancelled) has nothing left to approve.
    pending_approvals: finalState ? [] : book.pending.map((p) => ({ ...p })),
    tool_calls_made: st.counters.tool_calls,
    token_usage: { ...st.usage },
    warnings: [...st.warnings],
    ...(humanWait ? { escalation: { ...humanWait } } : {}),
    ...(error ? { error } : {}),
  });
  /** Keep the AgentStatus search attribute current (one upsert per state change). */
  const syncState = (): void => {
    const s = currentState();
    if (s === publishedState || !agent) return;
    publishedState = s;
    upsertSearchAttributes({ [SEARCH_ATTRIBUTES.status]: [s] });
  };

  setHandler(statusQuery, status);
  // respond signal / respondEscalation update (guardrail and model_decision escalations to a human queue).
  const human = new HumanQueue();
  setHandler(pauseSignal, () => {
    paused = true;
    syncState();
  });
  setHandler(resumeSignal, () => {
    paused = false;
    syncState();
  });
  setHandler(approveSignal, (a) => {
    if (book.decide(a.call_id, { kind: 'approve', args: a.args, by: a.by })) return;
    st.warnings.push(`approve signal ignored: ${book.unknownMessage(a.call_id)}`);
  });
  setHandler(rejectSignal, (a) => {
    if (book.decide(a.call_id, { kind: 'reject', reason: a.reason, by: a.by })) return;
    st.warnings.push(`reject signal ignored: ${book.unknownMessage(a.call_id)}`);
  });
  const validateKnown = (callId: string): void => {
    if (!book.has(callId) || book.decision(callId)) throw new Error(book.unknownMessage(callId));
  };
  setHandler(
    approveUpdate,
    async (a) => {
      if (a.args) {
        const pending = book.pending.find((p) => p.call_id === a.call_id);
        const chk = await loader.checkToolArgs({ bundle: input.bundle, agent_id: input.agent_id, tool: pending?.tool ?? '', args: a.args });
        if (!chk.ok) throw ApplicationFailure.nonRetryable(`corrected arguments refused for ${a.call_id}: ${chk.error}`, 'InvalidArguments');
      }
      if (!book.decide(a.call_id, { kind: 'approve', args: a.args, by: a.by })) throw ApplicationFailure.nonRetryable(book.unknownMessage(a.call_id), 'UnknownCall');
      return `approved ${a.call_id}${a.args ? ' with corrected arguments' : ''}`;
    },
    { validator: (a) => validateKnown(a.call_id) },
  );
  setHandler(
    rejectUpdate,
    (a) => {
      if (!book.decide(a.call_id, { kind: 'reject', reason: a.reason, by: a.by })) throw ApplicationFailure.nonRetryable(book.unknownMessage(a.call_id), 'UnknownCall');
      return `rejected ${a.call_id}`;
    },
    {
      validator: (a) => {
        validateKnown(a.call_id);
        if (!a.reason || !a.reason.trim()) throw new Error('reject needs a reason (the model sees it as the tool result)');
      },
    },
  );

  agent = await loader.loadAgent.executeWithOptions(
    { startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 }, summary: `load agent ${input.agent_id}` },
    [{ bundle: input.bundle, agent_id: input.agent_id }],
  );
  const ag: AgentView = agent;
  upsertSearchAttributes({
    [SEARCH_ATTRIBUTES.agentId]: [ag.agent_id],
    [SEARCH_ATTRIBUTES.agentVersion]: [ag.version],
    [SEARCH_ATTRIBUTES.pattern]: [patternOf(ag)],
    // 'paused' when a pause arrived with the start (signalWithStart).
    [SEARCH_ATTRIBUTES.status]: [currentState()],
  });
  publishedState = currentState();

  const cfg = reactConfig(ag);
  const limits: Limits = {
    max_steps: cfg.max_steps,
    max_turns: ag.runtime.max_turns,
    max_tool_calls: ag.runtime.max_tool_calls,
    per_tool: Object.fromEntries(ag.tools.refs.map((t) => [t.tool_id, t.max_calls_per_run])),
  };
  const policy: ApprovalPolicy = {
    require_human_approval: ag.policies.require_human_approval,
    require_user_confirmation_for: ag.guardrails.tool_calls.require_user_confirmation_for ?? [],
    tools: Object.fromEntries(ag.tools.refs.map((t) => [t.tool_id, t.approval_required])),
  };
  const toolsById = new Map<string, CompiledTool>(ag.tools.refs.map((t) => [t.tool_id, t]));
  const extraTools = input.options?.extra_tools ?? [];
  // can_delegate: the model gets a delegate_to_agent tool; the runtime runs only allowed_delegates,
  // whatever the model asks for. Patched: runs started before it never offered the tool.
  const delegates = ag.delegates ?? [];
  const delegateTool: ExtraToolSpec | undefined =
    ag.orchestration.can_delegate && delegates.length && patched('delegate-tool')
      ? {
          name: DELEGATE_TOOL,
          description: `Hand a sub-task to another agent and get its answer back. Agents you may delegate to:\n${delegates.map((d) => `- ${d.agent_id}: ${d.description}`).join('\n')}`,
          parameters: {
            type: 'object',
            properties: {
              agent_id: { type: 'string', enum: delegates.map((d) => d.agent_id) },
              input: { description: "The delegate's input (matching its interface.input.schema); a string task otherwise." },
            },
            required: ['agent_id', 'input'],
          },
          terminal: false,
        }
      : undefined;
  // Guardrails and model_decision escalation. Patched: runs started before guardrails executed never
  // scheduled runGuardrails nor offered escalate_to_human. Only agents that declare guardrails or a
  // model_decision rule reach patched(), so every other agent records exactly the commands it did before.
  const escalationRules = ag.orchestration.escalation ?? [];
  const wantsModelDecision = escalationRules.some((r) => r.on === 'model_decision');
  const guardCount = (p: GuardrailPosition): number => ag.guardrails?.[p]?.length ?? 0;
  const guardrailsOn = (GUARD_POSITIONS.some((p) => guardCount(p) > 0) || wantsModelDecision) && patched('guardrails');
  const guarded = (p: GuardrailPosition): boolean => guardrailsOn && guardCount(p) > 0;
  const escalateTool: ExtraToolSpec | undefined =
    guardrailsOn && wantsModelDecision
      ? {
          name: ESCALATE_TOOL,
          description:
            'Escalate this conversation when you cannot or must not resolve it yourself (as your Escalation instructions describe): your run stops and the case is handed over (to a human operator or an escalation agent). Give the reason.',
          parameters: {
            type: 'object',
            properties: { reason: { type: 'string', description: 'Why you escalate, for whoever takes over.' } },
            required: ['reason'],
          },
          terminal: false,
        }
      : undefined;
  const runtimeTools = [...(delegateTool ? [delegateTool] : []), ...(escalateTool ? [escalateTool] : [])];
  const modelExtraTools = runtimeTools.length ? [...extraTools, ...runtimeTools] : extraTools;
  const forbidTools = input.options?.forbid_tools ?? false;
  const approvalTimeoutS = input.options?.approval_timeout_seconds ?? DEFAULT_APPROVAL_TIMEOUT_S;
  const retry = ag.runtime.retry_policy;
  const modelTimeoutS = ag.runtime.model.openai?.request_timeout_seconds ?? 300;
  const modelOpts: ActivityOptions = {
    startToCloseTimeout: `${modelTimeoutS + 30} seconds`,
    heartbeatTimeout: '60 seconds',
    retry: retry
      ? { maximumAttempts: retry.max_attempts, initialInterval: `${retry.backoff_seconds} seconds`, backoffCoefficient: 2 }
      : { maximumAttempts: 5, initialInterval: '1 second', backoffCoefficient: 2 },
  };
  // runTool heartbeats every 5 s (withHeartbeat): a call on a worker that died is retried elsewhere
  // 15 s after its last heartbeat instead of waiting out the 10-minute start-to-close timeout.
  const toolOpts: ActivityOptions = {
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '15 seconds',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
  };
  const acts = proxyActivities<Activities>(modelOpts);
  const guardOpts: ActivityOptions = {
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 3, initialInterval: '1 second', nonRetryableErrorTypes: ['UnknownGuardrailProvider', 'GuardrailConfigError'] },
  };

  if (first) {
    // Seed 000 preferences the runtime overrides: the model is the registry's runtime.model.
    const cfg = reactConfig(ag);
    const chosen = ag.runtime.model;
    if (cfg.provider && cfg.provider !== chosen.provider) st.warnings.push(`execution_policy.config.provider '${cfg.provider}' is a preference: this run uses runtime.model ${chosen.model_id} (${chosen.provider})`);
    if (cfg.model && cfg.model !== chosen.model_id && cfg.model !== chosen.openai?.model) st.warnings.push(`execution_policy.config.model '${cfg.model}' is a preference: this run uses runtime.model ${chosen.model_id}`);
    if (cfg.top_k !== undefined) st.warnings.push('execution_policy.config.top_k is not supported by OpenAI-compatible providers: ignored');
    const maxChars = ag.runtime.max_input_chars;
    const chars = inputChars(input.input);
    if (maxChars !== undefined && chars > maxChars) {
      finalState = 'failed';
      error = `input has ${chars} characters, more than runtime.max_input_chars (${maxChars})`;
      syncState();
      throw ApplicationFailure.nonRetryable(error, 'InputTooLong');
    }
    let prompt = renderUserPrompt(input.input, cfg.user_prompt_template);
    // Swarm members and other children get an extra context block (RunOptions.context).
    if (input.options?.context) prompt += `\n\n# Context\n${JSON.stringify(input.options.context, null, 2)}`;
    st.pending_append = [{ message: { role: 'user', content: prompt } }];
    if (ag.runtime.timeout_seconds) st.deadline_ms = Date.now() + ag.runtime.timeout_seconds * 1000;
  }

  const waitUnpaused = async (): Promise<void> => {
    if (paused) await condition(() => !paused);
  };
  const addUsage = (u: { prompt_tokens: number; completion_tokens: number }): void => {
    st.usage.prompt_tokens += u.prompt_tokens;
    st.usage.completion_tokens += u.completion_tokens;
    st.usage.total_tokens = st.usage.prompt_tokens + st.usage.completion_tokens;
  };
  const details = (s: string): void => setCurrentDetails(`${ag.agent_id} (${patternOf(ag)}): ${s}`);

  const errorResult = (call: ToolCall, text: string): AppendItem => ({
    message: { role: 'tool', content: `error: ${text}`, tool_call_id: call.id, name: call.name, is_error: true } satisfies Message,
  });

  /** Run the guardrails of one position (activity); their warnings go to the run's warnings. */
  const guard = async (inp: Omit<RunGuardrailsInput, 'bundle' | 'agent_id'>, summary: string): Promise<RunGuardrailsOutput> => {
    let out: RunGuardrailsOutput;
    try {
      out = await acts.runGuardrails.executeWithOptions({ ...guardOpts, summary }, [{ bundle: input.bundle, agent_id: input.agent_id, ...inp }]);
    } catch (e) {
      // Surface a misconfigured guardrail (unknown provider, bad config) as the run's own failure.
      const cause = (e as { cause?: unknown }).cause;
      if (cause instanceof ApplicationFailure && (cause.type === 'UnknownGuardrailProvider' || cause.type === 'GuardrailConfigError')) {
        throw ApplicationFailure.nonRetryable(cause.message, cause.type);
      }
      throw e;
    }
    for (const w of out.warnings) st.warnings.push(inp.tool ? `${w} (tool ${inp.tool}, call ${inp.call_id})` : w);
    return out;
  };
  const guardrailEvent = (g: string | undefined): EscalationEvent => ({ on: 'guardrail', guardrail: g ?? '' });

  /** Input guardrails on the rendered first message, before the first model call. */
  const guardInput = async (): Promise<void> => {
    const out = await guard({ position: 'input', message: st.pending_append[0] }, 'input guardrails');
    const v = out.verdict;
    if (v.kind === 'blocked' || v.kind === 'retry') throw ApplicationFailure.nonRetryable(`input guardrail '${v.guardrail}' blocked the run: ${v.reason}`, 'GuardrailBlocked');
    // The model reads the stored (possibly transformed) message: the input text is not repeated in history.
    if (out.stored) st.pending_append = [{ ref: out.stored }];
    if (v.kind === 'transformed') st.input_transformed = true;
    if (out.triggered && ag.guardrails.tool_calls.block_tools_on_input_fail) {
      st.tools_blocked = `input guardrail '${out.first_triggered}' triggered (guardrails.tool_calls.block_tools_on_input_fail)`;
      st.warnings.push(`tool calls blocked for this run: ${st.tools_blocked}`);
    }
    if (v.kind === 'escalate') throw new EscalationRequest(guardrailEvent(v.guardrail), `input: ${v.reason}`);
  };

  /** tool_input guardrails on a call's arguments, before it runs (and before approval). */
  const guardToolInput = async (call: ToolCall, args: JsonObject): Promise<{ args: JsonObject } | { error: AppendItem }> => {
    const out = await guard({ position: 'tool_input', args, tool: call.name, call_id: call.id }, `tool_input guardrails ${call.name}`);
    const v = out.verdict;
    if (v.kind === 'escalate') throw new EscalationRequest(guardrailEvent(v.guardrail), `tool_input of ${call.name}: ${v.reason}`);
    if (v.kind === 'blocked' || v.kind === 'retry') return { error: errorResult(call, `call blocked by tool_input guardrail '${v.guardrail}': ${v.reason}`) };
    return { args: v.kind === 'transformed' && v.args ? v.args : args };
  };

  /** tool_output guardrails on a call's result, before the model sees it. */
  const guardToolOutput = async (call: ToolCall, item: AppendItem): Promise<AppendItem> => {
    if (!guarded('tool_output')) return item;
    const out = await guard({ position: 'tool_output', message: item, tool: call.name, call_id: call.id }, `tool_output guardrails ${call.name}`);
    const v = out.verdict;
    if (v.kind === 'escalate') throw new EscalationRequest(guardrailEvent(v.guardrail), `tool_output of ${call.name}: ${v.reason}`);
    if (v.kind === 'blocked' || v.kind === 'retry') return errorResult(call, `the result of ${call.name} was blocked by tool_output guardrail '${v.guardrail}': ${v.reason}`);
    if (v.kind === 'transformed' && v.ref) return { ref: v.ref };
    return out.stored ? { ref: out.stored } : item;
  };

  /** An agent run as a tool or a delegate: a child workflow whose output goes back to the model. */
  const runAgentCall = async (call: ToolCall, agentId: string, workflowType: string, childInput: JsonValue, role: string): Promise<AppendItem> => {
    try {
      const res = await runChildAgent({
        bundle: input.bundle,
        agent_id: agentId,
        workflowType,
        input: childInput,
        role,
        options: { approval_timeout_seconds: input.options?.approval_timeout_seconds },
      });
      addUsage(res.usage);
      const text = typeof res.output === 'string' ? res.output : JSON.stringify(res.output);
      return { message: { role: 'tool', content: text, tool_call_id: call.id, name: call.name } };
    } catch (e) {
      if (isCancellation(e)) throw e;
      const cause = (e as { cause?: { message?: string } }).cause?.message;
      return errorResult(call, `agent ${call.name === DELEGATE_TOOL ? `delegate ${agentId}` : `tool ${call.name}`} failed: ${cause ?? (e as Error).message}`);
    }
  };

  /**
   * Human approval of one call that is ready to run: present it, wait for approve/reject (or the
   * approval timeout: reject, or escalate to a human queue), and return the arguments to run with
   * (an approver's corrections pass the tool_input guardrails too).
   */
  const awaitApproval = async (call: ToolCall, initialArgs: JsonObject, reason: string): Promise<{ args: JsonObject } | { error: AppendItem }> => {
    const errorOf = (call: ToolCall, text: string) => ({ error: errorResult(call, text) });
    let args = initialArgs;
    let corrected = false;
    // Only calls that are ready to run (valid arguments) are presented for approval; a delegation
    // has no registry schema to check.
    if (toolsById.has(call.name)) {
      const chk = await acts.checkToolArgs.executeWithOptions({ ...modelOpts, summary: `check args ${call.name}` }, [
        { bundle: input.bundle, agent_id: input.agent_id, tool: call.name, args },
      ]);
      if (!chk.ok) return errorOf(call, chk.error ?? 'invalid arguments');
    }
    await waitUnpaused();
    book.add({ call_id: call.id, tool: call.name, arguments: args, reason, requested_at: new Date().toISOString() });
    syncState();
    details(`waiting for approval of ${call.name} (${call.id})`);
    const decided = await condition(() => book.decision(call.id) !== undefined, approvalTimeoutS * 1000);
    const escalate = !decided && input.options?.on_approval_timeout === 'escalate' && patched('approval-timeout-escalate');
    const d = book.decision(call.id);
    if (!escalate) {
      book.remove(call.id);
      syncState();
    }
    if (escalate) {
      // Escalate: the call stays pending, and the run shows up in `loom escalations` under the
      // queue of the agent's first `on: timeout` human_queue rule (else `approvals`) until an
      // operator approves or rejects it.
      const rule = ag.orchestration.escalation.find((r) => r.on === 'timeout' && r.target.type === 'human_queue');
      const queue = rule?.target.id ?? 'approvals';
      st.warnings.push(`approval of ${call.name} (${call.id}) timed out after ${approvalTimeoutS}s: escalated to human queue '${queue}'`);
      upsertSearchAttributes({ [SEARCH_ATTRIBUTES.status]: ['waiting_for_human'], [SEARCH_ATTRIBUTES.escalationQueue]: [queue] });
      publishedState = undefined;
      details(`approval of ${call.name} (${call.id}) escalated to '${queue}'`);
      await condition(() => book.decision(call.id) !== undefined);
      const late = book.decision(call.id)!;
      book.remove(call.id);
      upsertSearchAttributes({ [SEARCH_ATTRIBUTES.escalationQueue]: [] });
      syncState();
      if (late.kind === 'reject') return errorOf(call, `call rejected by ${late.by ?? 'a human reviewer'}: ${late.reason}`);
      if (late.args) {
        args = late.args;
        corrected = true;
      }
    } else if (!decided || !d) {
      st.warnings.push(`approval of ${call.name} (${call.id}) timed out after ${approvalTimeoutS}s: rejected`);
      return errorOf(call, `call rejected: approval timed out after ${approvalTimeoutS} seconds`);
    } else {
      if (d.kind === 'reject') return errorOf(call, `call rejected by ${d.by ?? 'a human reviewer'}: ${d.reason}`);
      if (d.args) {
        args = d.args;
        corrected = true;
      }
    }
    // An approver's corrected arguments pass the tool_input guardrails too (patched: older runs did not re-check).
    if (corrected && guarded('tool_input') && patched('guard-corrected-args')) {
      const g = await guardToolInput(call, args);
      if ('error' in g) return g;
      args = g.args;
    }
    return { args };
  };

  /** One tool call: limits, approval just before it runs, then the activity (or child agent). */
  const runCall = async (call: ToolCall): Promise<AppendItem> => {
    // Synchronous up to the first await: concurrent calls of one turn see each other's counts.
    const blocked = toolCallBlocked(st.counters, limits, call.name);
    countToolCall(st.counters, call.name);
    if (blocked) return errorResult(call, blocked);
    if (st.tools_blocked) return errorResult(call, `tool calls are blocked for this run: ${st.tools_blocked}`);
    if (delegateTool && call.name === DELEGATE_TOOL) {
      const target = String((call.arguments as Record<string, unknown> | undefined)?.agent_id ?? '');
      const d = delegates.find((x) => x.agent_id === target);
      if (!d) return errorResult(call, `delegation to '${target}' refused: this agent may only delegate to ${delegates.map((x) => x.agent_id).join(', ')} (orchestration.allowed_delegates)`);
      let dargs = (call.arguments ?? {}) as JsonObject;
      if (guarded('tool_input')) {
        const g = await guardToolInput(call, dargs);
        if ('error' in g) return g.error;
        dargs = g.args;
      }
      // policies.require_human_approval gates delegation too (patched: older runs delegated at once).
      if (policy.require_human_approval && patched('delegate-approval')) {
        const approved = await awaitApproval(call, dargs, 'policies.require_human_approval');
        if ('error' in approved) return approved.error;
        dargs = approved.args;
      }
      await waitUnpaused();
      return guardToolOutput(call, await runAgentCall(call, d.agent_id, d.workflow_type, (dargs.input ?? null) as JsonValue, `delegate-${call.id}`));
    }
    const tool = toolsById.get(call.name);
    if (!tool) {
      const names = [...toolsById.keys(), ...modelExtraTools.map((e) => e.name)];
      return errorResult(call, `unknown tool '${call.name}'; available tools: ${names.join(', ') || '(none)'}`);
    }
    // Arguments that were not a JSON object, as the openai provider marks them (INVALID_ARGUMENTS_KEY in src/activities/openai.ts).
    const badArgs = (call.arguments as Record<string, unknown> | undefined)?.['__agentloom_invalid_arguments'] as { error?: string } | undefined;
    if (badArgs) return errorResult(call, `arguments for tool ${call.name} are not a valid JSON object (${badArgs.error ?? 'parse error'}); call it again with a JSON object matching its input schema`);
    let args = call.arguments ?? {};
    if (guarded('tool_input')) {
      const g = await guardToolInput(call, args);
      if ('error' in g) return g.error;
      args = g.args;
    }
    const reason = approvalReason(policy, call.name);
    if (reason) {
      const approved = await awaitApproval(call, args, reason);
      if ('error' in approved) return approved.error;
      args = approved.args;
    }
    await waitUnpaused();
    if (tool.kind === 'agent' && tool.agent) {
      const chk = await acts.checkToolArgs.executeWithOptions({ ...modelOpts, summary: `check args ${call.name}` }, [
        { bundle: input.bundle, agent_id: input.agent_id, tool: call.name, args },
      ]);
      if (!chk.ok) return errorResult(call, chk.error ?? 'invalid arguments');
      return guardToolOutput(call, await runAgentCall(call, tool.agent.agent_id, ag.agent_tool_types[tool.tool_id] ?? 'agfReactWorkflow', args, `tool-${call.id}`));
    }
    const out = await acts.runTool.executeWithOptions({ ...toolOpts, summary: `tool ${call.name}` }, [
      {
        bundle: input.bundle,
        agent_id: input.agent_id,
        workflow_id: info.workflowId,
        call_id: call.id,
        tool: call.name,
        args,
        workspace: input.options?.workspace,
      },
    ]);
    return guardToolOutput(call, { ref: out.ref });
  };

  const shouldContinueAsNew = (turnsThisRun: number): boolean =>
    workflowInfo().continueAsNewSuggested || (st.continue_as_new_every !== undefined && turnsThisRun >= st.continue_as_new_every);

  const loop = async (): Promise<AgentRunResult> => {
    let turnsThisRun = 0;
    for (;;) {
      // A paused run stays paused across continue-as-new: wait here rather than hand over
      // (patched: runs paused at this point used to continue-as-new and resume on their own).
      if (paused && patched('pause-before-continue-as-new')) await waitUnpaused();
      if (shouldContinueAsNew(turnsThisRun)) {
        await condition(allHandlersFinished);
        await continueAsNew<typeof agfReactWorkflow>({ ...input, carried: { ...st, ...(paused ? { paused: true } : {}) } as unknown as JsonObject });
      }
      await waitUnpaused();
      const blocked = turnBlocked(st.counters, limits);
      if (blocked) throw ApplicationFailure.nonRetryable(blocked, 'LimitExceeded');
      const noTools = forbidTools || toolsExhausted(st.counters, limits);
      const model = st.fallback && ag.runtime.fallback_model ? ag.runtime.fallback_model : ag.runtime.model;
      const turn = st.counters.turn;
      details(`model ${model.model_id}, turn ${turn + 1}`);
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
        ...(modelExtraTools.length ? { extra_tools: modelExtraTools } : {}),
        ...(forbidTools ? { forbid_tools: true } : {}),
      };
      let out: ModelTurnOutput;
      try {
        out = await acts.modelTurn.executeWithOptions({ ...modelOpts, summary: `model ${model.model_id}, turn ${turn + 1}` }, [modelIn]);
      } catch (e) {
        // runtime.fallback_model takes over once the model's retries are exhausted (provider outage,
        // rate limits that outlast retry_policy). Patched: older runs failed here.
        if (isCancellation(e) || !ag.runtime.fallback_model || st.fallback || !patched('model-failure-fallback')) throw e;
        st.fallback = true;
        st.warnings.push(`turn ${turn + 1}: model ${model.model_id} failed (${((e as Error).cause as Error | undefined)?.message ?? (e as Error).message}); switching to fallback model ${ag.runtime.fallback_model.model_id}`);
        continue;
      }
      countTurn(st.counters);
      turnsThisRun += 1;
      addUsage(out.usage);
      st.head = out.head;
      st.pending_append = [];
      const calls = out.message.tool_calls ?? [];
      if (calls.length) {
        const esc = escalateTool ? calls.find((c) => c.name === ESCALATE_TOOL) : undefined;
        if (esc) {
          const why = String((esc.arguments as Record<string, unknown> | undefined)?.reason ?? '').trim();
          throw new EscalationRequest({ on: 'model_decision' }, why || 'no reason given');
        }
        if (noTools && !forbidTools && !st.tools_blocked) {
          const why = toolCallBlocked(st.counters, limits, calls[0].name) ?? 'tools are not allowed any more';
          throw ApplicationFailure.nonRetryable(`the model kept calling tools after the limit: ${why}`, 'LimitExceeded');
        }
        const terminal = calls.find((c) => extraTools.some((e) => e.name === c.name && e.terminal));
        if (terminal) {
          return { agent_id: ag.agent_id, output: out.message.content ?? null, usage: st.usage, warnings: st.warnings, terminal_tool_call: { name: terminal.name, arguments: terminal.arguments } };
        }
        details(`turn ${turn + 1}: ${calls.length} tool call(s): ${calls.map((c) => c.name).join(', ')}`);
        st.pending_append = await Promise.all(calls.map((c) => runCall(c)));
        continue;
      }
      const check = out.output_check ?? { ok: true as const, value: out.message.content ?? '' };
      if (check.ok) {
        let output = check.value;
        if (guarded('output')) {
          const g = await guard({ position: 'output', head: out.head }, 'output guardrails');
          const v = g.verdict;
          if (v.kind === 'escalate') throw new EscalationRequest(guardrailEvent(v.guardrail), `output: ${v.reason}`);
          if (v.kind === 'retry') {
            if ((st.guardrail_retries ?? 0) < 1) {
              st.guardrail_retries = (st.guardrail_retries ?? 0) + 1;
              st.warnings.push(`turn ${turn + 1}: output guardrail '${v.guardrail}' rejected the final answer (${v.reason}); asked the model for a correction`);
              st.pending_append = [{ message: { role: 'user', content: guardrailCorrection(v.guardrail ?? '', v.reason ?? '') } }];
              continue;
            }
            throw ApplicationFailure.nonRetryable(`output guardrail '${v.guardrail}' rejected the final answer again after a correction turn: ${v.reason}`, 'GuardrailBlocked');
          }
          if (v.kind === 'blocked') throw ApplicationFailure.nonRetryable(`output guardrail '${v.guardrail}' blocked the final answer: ${v.reason}`, 'GuardrailBlocked');
          if (v.kind === 'transformed' && v.value !== undefined) output = v.value;
        }
        return { agent_id: ag.agent_id, output, usage: st.usage, warnings: st.warnings };
      }
      const schema = ag.interface.output.schema;
      if (st.corrections === 0) {
        st.corrections = 1;
        st.warnings.push(`turn ${turn + 1}: ${check.error}; asked the model for a correction`);
        st.pending_append = [{ message: { role: 'user', content: correctionMessage(check.error, schema) } }];
        continue;
      }
      if (ag.runtime.fallback_model && !st.fallback) {
        st.fallback = true;
        st.warnings.push(`turn ${turn + 1}: ${check.error}; retrying on fallback model ${ag.runtime.fallback_model.model_id}`);
        st.pending_append = [{ message: { role: 'user', content: correctionMessage(check.error, schema) } }];
        continue;
      }
      throw ApplicationFailure.nonRetryable(
        `final answer rejected after a correction turn${ag.runtime.fallback_model ? ' and the fallback model' : ''}: ${check.error}`,
        'OutputSchemaError',
      );
    }
  };

  /** runtime.timeout_seconds: a timer racing the loop; when it fires the loop's scope is cancelled. */
  const withDeadline = async (fn: () => Promise<AgentRunResult>): Promise<AgentRunResult> => {
    if (st.deadline_ms === undefined) return fn();
    let timedOut = false;
    const scope = new CancellationScope();
    const remaining = Math.max(1, st.deadline_ms - Date.now());
    sleep(remaining)
      .then(() => {
        timedOut = true;
        scope.cancel();
      })
      .catch(() => undefined);
    try {
      return await scope.run(fn);
    } catch (e) {
      if (timedOut && isCancellation(e)) {
        throw ApplicationFailure.nonRetryable(`runtime.timeout_seconds (${ag.runtime.timeout_seconds}) exceeded before a final answer`, 'Timeout');
      }
      throw e;
    }
  };

  /**
   * Apply orchestration.escalation to a guardrail / model_decision escalation (outside the loop and
   * its deadline: the agent's work is over). Target agent: its output is the run's output; target
   * human_queue: the operator's output is, and a closed escalation fails the run.
   */
  const escalate = async (req: EscalationRequest): Promise<AgentRunResult> => {
    const what = describeEscalation(req.event);
    const outcome = await runEscalation(escalationRules, req.event, req.detail, {
      warn: (m) => {
        if (!st.warnings.includes(m)) st.warnings.push(m);
      },
      waitForHuman: async (queue, reason) => {
        humanWait = { queue, reason, since: new Date().toISOString() };
        upsertSearchAttributes({ [SEARCH_ATTRIBUTES.status]: ['waiting_for_human'], [SEARCH_ATTRIBUTES.escalationQueue]: [queue] });
        publishedState = 'waiting_for_human';
        details(`escalated to human queue '${queue}': ${reason}`);
        try {
          return await human.wait(queue);
        } finally {
          humanWait = undefined;
          upsertSearchAttributes({ [SEARCH_ATTRIBUTES.escalationQueue]: [] });
          syncState();
        }
      },
      runAgent: async (agentId, reason) => {
        details(`escalated to agent ${agentId}: ${reason}`);
        try {
          const res = await runChildAgent({
            bundle: input.bundle,
            agent_id: agentId,
            workflowType: ag.escalation_agent_types?.[agentId] ?? 'agfReactWorkflow',
            input: input.input,
            role: `escalation-${agentId}`,
            options: {
              approval_timeout_seconds: input.options?.approval_timeout_seconds,
              context: { escalation: { trigger: req.event.on, reason, from_agent: ag.agent_id } },
            },
          });
          addUsage(res.usage);
          return res;
        } catch (e) {
          if (isCancellation(e)) throw e;
          const cause = (e as { cause?: { message?: string } }).cause?.message;
          throw ApplicationFailure.nonRetryable(`escalation agent '${agentId}' failed (${what}): ${cause ?? (e as Error).message}`, 'EscalationFailed');
        }
      },
    });
    if (!outcome.handled) {
      const ev = req.event.on === 'guardrail' ? `{on: guardrail, guardrail: ${req.event.guardrail}}` : `{on: ${req.event.on}}`;
      throw ApplicationFailure.nonRetryable(`${what} (${req.detail}), but no orchestration.escalation rule matches ${ev}: the run fails`, 'EscalationUnmatched');
    }
    if (outcome.target === 'agent') {
      for (const w of outcome.result.warnings ?? []) st.warnings.push(`escalation-${outcome.id}: ${w}`);
      return { agent_id: ag.agent_id, output: outcome.result.output, usage: st.usage, warnings: st.warnings };
    }
    if ('closed' in outcome) {
      throw ApplicationFailure.nonRetryable(
        `escalation on human queue '${outcome.id}' was closed${outcome.by ? ` by ${outcome.by}` : ''}: ${outcome.reason ?? 'no reason given'} (${what})`,
        'EscalationClosed',
      );
    }
    return { agent_id: ag.agent_id, output: outcome.output, usage: st.usage, warnings: st.warnings };
  };

  try {
    let result: AgentRunResult;
    try {
      if (first && guarded('input')) await guardInput();
      result = await withDeadline(loop);
    } catch (e) {
      if (!(e instanceof EscalationRequest)) throw e;
      result = await escalate(e);
    }
    finalState = 'completed';
    syncState();
    details(`completed after ${st.counters.turn} turn(s), ${st.counters.tool_calls} tool call(s)`);
    return result;
  } catch (e) {
    if (e instanceof ContinueAsNew) throw e;
    finalState = isCancellation(e) ? 'cancelled' : 'failed';
    error = (e as Error)?.message ?? String(e);
    syncState();
    throw e;
  }
}
