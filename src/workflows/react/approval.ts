/**
 * Human approval of tool calls and delegations (the Execution Loop specification's "Human-in-the-Loop"): the approve/reject
 * updates and signals, and the wait just before a call runs — approve (optionally with corrected
 * arguments, which pass checkToolArgs and the tool_input guardrails), reject (the model sees the
 * reason), or the approval timeout: reject, or escalate to a human queue and keep waiting.
 */
import { ApplicationFailure, condition, patched, proxyActivities, proxySinks, setHandler } from '@temporalio/workflow';
import { STORE_ACTIVITY } from '../activity-options';
import type { JsonObject } from '../../compiled/types';
import type { RunAgentInput } from '../../shared/contract';
import { ApproveArgsSchema, PAYLOAD_SHAPES, RejectArgsSchema } from '../../shared/contract';
import { hadCallId, signalPayload, validatedPayload } from '../shell/payloads';
import { approveSignal, approveUpdate, rejectSignal, rejectUpdate } from '../../shared/definitions';
import type { Activities } from '../../activities';
import type { ApprovalBook } from '../../runtime/approvals';
import { WRITEBACK_AS_EXTRACTED, WRITEBACK_TOOL } from '../../runtime/memory';
import type { AppendItem, ToolCall } from '../../runtime/messages';
import type { RunShell } from '../shell/run-shell';
import type { ReactRun } from './context';
import { errorResult } from './tool-result';
import { guardToolInput } from './guardrails';
import { noteAudit, toolPolicyRefusal } from './governance';
import type { AgentloomTracingSinks } from '../../shared/tracing-sinks';
import type { AgentloomApprovalSinks } from '../../shared/approval-sinks';
import { PATCHES } from '../patches';
import { approvalTimerSummary, approvalWait } from '../shell/approval-wait';

const { agentloomTracing } = proxySinks<AgentloomTracingSinks>();
const { agentloomApprovals } = proxySinks<AgentloomApprovalSinks>();

/** Why policies refuse a tool as a replacement (allowed_connectors, data_residency); set once the agent is loaded. */
export interface ReplacementGate { refusal?: (tool: string) => string | undefined }

/** Register the approve/reject handlers (first thing in the workflow, before any await). */
export function registerApprovalHandlers(input: RunAgentInput, shell: RunShell, book: ApprovalBook, gate: ReplacementGate = {}): void {
  const acts = proxyActivities<Activities>(STORE_ACTIVITY);
  // A signal cannot be refused: a payload that does not fit only adds a run warning (no exception in workflow code).
  const warn = (m: string): void => shell.warn(m);
  setHandler(approveSignal, (raw) => {
    const a = signalPayload(ApproveArgsSchema, raw, PAYLOAD_SHAPES.approve, 'approve', warn, hadCallId);
    if (!a) return;
    if (book.decide(a.call_id, { kind: 'approve', args: a.args, ...(a.tool !== undefined ? { tool: a.tool } : {}), by: a.by })) return;
    shell.warn(`approve signal ignored: ${book.unknownMessage(a.call_id)}`);
  });
  setHandler(rejectSignal, (raw) => {
    const a = signalPayload(RejectArgsSchema, raw, PAYLOAD_SHAPES.reject, 'reject', warn, hadCallId);
    if (!a) return;
    if (book.decide(a.call_id, { kind: 'reject', reason: a.reason, by: a.by })) return;
    shell.warn(`reject signal ignored: ${book.unknownMessage(a.call_id)}`);
  });
  const validateKnown = (callId: string): void => {
    if (!book.has(callId) || book.decision(callId)) throw new Error(book.unknownMessage(callId));
  };
  setHandler(
    approveUpdate,
    // The handler runs only once its validator accepted the payload (or on replay of an accepted update).
    async (a) => {
      if (a.args || a.tool !== undefined) {
        const pending = book.pending.find((p) => p.call_id === a.call_id);
        const chk = await acts.checkToolArgs({ bundle: input.bundle, agent_id: input.agent_id, tool: a.tool ?? pending?.tool ?? '', args: a.args ?? {} });
        if (!chk.ok) throw ApplicationFailure.nonRetryable(`${a.tool !== undefined ? `replacement ${a.tool}` : 'corrected arguments'} refused for ${a.call_id}: ${chk.error}`, 'InvalidArguments');
      }
      if (!book.decide(a.call_id, { kind: 'approve', args: a.args, ...(a.tool !== undefined ? { tool: a.tool } : {}), by: a.by })) throw ApplicationFailure.nonRetryable(book.unknownMessage(a.call_id), 'UnknownCall');
      return `approved ${a.call_id}${a.tool !== undefined ? ` replaced by ${a.tool}` : a.args ? ' with corrected arguments' : ''}`;
    },
    {
      validator: (raw) => {
        const a = validatedPayload(ApproveArgsSchema, raw, PAYLOAD_SHAPES.approve, 'approveCall');
        validateKnown(a.call_id);
        if ((a.args || a.tool !== undefined) && book.pending.some((p) => p.call_id === a.call_id && p.tool === WRITEBACK_TOOL)) throw new Error(WRITEBACK_AS_EXTRACTED);
        if (a.tool !== undefined) refuseBadReplacement(book, a.call_id, a.tool);
        const refused = a.tool !== undefined ? gate.refusal?.(a.tool) : undefined;
        if (refused) throw new Error(`cannot replace ${a.call_id} with '${a.tool}': ${refused}`);
      },
    },
  );
  setHandler(
    rejectUpdate,
    (a) => {
      if (!book.decide(a.call_id, { kind: 'reject', reason: a.reason, by: a.by })) throw ApplicationFailure.nonRetryable(book.unknownMessage(a.call_id), 'UnknownCall');
      return `rejected ${a.call_id}`;
    },
    {
      validator: (raw) => {
        // The schema refuses a missing or blank reason (the model sees it as the tool result).
        validateKnown(validatedPayload(RejectArgsSchema, raw, PAYLOAD_SHAPES.reject, 'rejectCall').call_id);
      },
    },
  );
}

/** A replacement names a registry tool of the agent, for a pending registry-tool call (not a delegation). */
function refuseBadReplacement(book: ApprovalBook, callId: string, tool: string): void {
  const tools = book.replacementTools ?? [];
  const pending = book.pending.find((p) => p.call_id === callId);
  if (pending && !tools.includes(pending.tool)) throw new Error(`${callId} (${pending.tool}) cannot be replaced: only calls of the agent's registry tools can (approve or reject it)`);
  if (!tools.includes(tool)) throw new Error(`cannot replace ${callId} with '${tool}': not a tool of this agent; use one of ${tools.join(', ') || '(none)'}`);
}

/** The arguments to run with; `call` when an operator replaced the call with another tool. */
type Approved = { args: JsonObject; call?: ToolCall } | { error: AppendItem };

/**
 * Human approval of one call that is ready to run: present it, wait for approve/reject (or the
 * approval timeout: reject, or escalate to a human queue), and return the arguments to run with
 * (an approver's corrections pass the tool_input guardrails too).
 */
/** How long the call waited, to the worker's telemetry (agent.tool.approval_wait); a sink: no command, not called on replay. */
function approvalDecided(rx: ReactRun, call: ToolCall, decision: 'approved' | 'rejected' | 'replaced' | 'timed_out', requestedAt: string): void {
  agentloomTracing.approvalDecided({ bundle: rx.input.bundle, agent_id: rx.input.agent_id, tool_id: call.name, decision, wait_ms: Math.max(0, Date.now() - Date.parse(requestedAt)) });
}

export async function awaitApproval(rx: ReactRun, call: ToolCall, initialArgs: JsonObject, reason: string): Promise<Approved> {
  const { book, shell, approvalTimeoutS } = rx;
  // Only calls that are ready to run (valid arguments) are presented for approval; a delegation
  // has no registry schema to check.
  if (rx.toolsById.has(call.name)) {
    const chk = await rx.checkArgs(call, initialArgs);
    if (!chk.ok) return { error: errorResult(call, chk.error ?? 'invalid arguments') };
  }
  await shell.checkpoint();
  const requestedAt = new Date().toISOString();
  book.add({ call_id: call.id, tool: call.name, arguments: initialArgs, reason, requested_at: requestedAt });
  shell.sync();
  shell.details(`waiting for approval of ${call.name} (${call.id})`);
  // The `approval.requested` log record; a sink: no command, not called on replay.
  agentloomApprovals.approvalRequested({ bundle: rx.input.bundle, agent_id: rx.input.agent_id, tool_id: call.name, call_id: call.id, timeout_s: approvalTimeoutS });
  const decided = await approvalWait(() => book.decision(call.id) !== undefined, approvalTimeoutS, approvalTimerSummary(call.name, call.id));
  const escalate = !decided && rx.input.options?.on_approval_timeout === 'escalate' && patched(PATCHES.approvalTimeoutEscalate.id);
  let d = book.decision(call.id);
  if (escalate) {
    escalateApproval(rx, call);
    await condition(() => book.decision(call.id) !== undefined);
    d = book.decision(call.id)!;
    book.remove(call.id);
    shell.leaveHumanQueue();
  } else {
    book.remove(call.id);
    shell.sync();
    if (!decided || !d) {
      shell.warn(`approval of ${call.name} (${call.id}) timed out after ${approvalTimeoutS}s: rejected`);
      noteAudit(rx, { kind: 'approval', call_id: call.id, tool: call.name, decision: 'timed_out', requested_at: requestedAt, reason: `no decision within ${approvalTimeoutS}s` });
      approvalDecided(rx, call, 'timed_out', requestedAt);
      return { error: errorResult(call, `call rejected: approval timed out after ${approvalTimeoutS} seconds`) };
    }
  }
  const seen = { kind: 'approval' as const, call_id: call.id, tool: call.name, requested_at: requestedAt, ...(d.by !== undefined ? { by: d.by } : {}) };
  approvalDecided(rx, call, d.kind === 'reject' ? 'rejected' : d.tool !== undefined ? 'replaced' : 'approved', requestedAt);
  if (d.kind === 'reject') noteAudit(rx, { ...seen, decision: 'rejected', reason: d.reason, arguments: initialArgs });
  else if (d.tool !== undefined) noteAudit(rx, { ...seen, decision: 'replaced', replaced_by: d.tool, arguments: d.args ?? {} });
  else noteAudit(rx, { ...seen, decision: 'approved', arguments: d.args ?? initialArgs, ...(d.args ? { reason: 'arguments corrected by the approver' } : {}) });
  if (d.kind === 'reject') return { error: errorResult(call, `call rejected by ${d.by ?? 'a human reviewer'}: ${d.reason}`) };
  if (d.tool !== undefined) return replaceCall(rx, call, initialArgs, d.tool, d.args ?? {}, d.by);
  if (!d.args) return { args: initialArgs };
  // An approver's corrected arguments pass the tool_input guardrails too (patched: older runs did not re-check).
  if (rx.guarded('tool_input') && patched(PATCHES.guardCorrectedArgs.id)) {
    const g = await guardToolInput(rx, call, d.args);
    if ('error' in g) return g;
    return { args: g.args };
  }
  return { args: d.args };
}

/**
 * The approval timed out with on_approval_timeout 'escalate': the call stays pending, and the run
 * shows up in `loom escalations` under the queue of the agent's first `on: timeout` human_queue
 * rule (else `approvals`) until an operator approves or rejects it.
 */
function escalateApproval(rx: ReactRun, call: ToolCall): void {
  const rule = rx.agent.orchestration.escalation.find((r) => r.on === 'timeout' && r.target.type === 'human_queue');
  const queue = rule?.target.id ?? 'approvals';
  rx.shell.warn(`approval of ${call.name} (${call.id}) timed out after ${rx.approvalTimeoutS}s: escalated to human queue '${queue}'`);
  noteAudit(rx, { kind: 'approval', call_id: call.id, tool: call.name, decision: 'escalated', reason: `no decision within ${rx.approvalTimeoutS}s: escalated to human queue '${queue}'` });
  rx.shell.enterHumanQueue(queue);
  rx.shell.details(`approval of ${call.name} (${call.id}) escalated to '${queue}'`);
}

/**
 * An operator replaced the call (the Execution Loop specification's "Correction": "replace it with a different one"): the
 * replacement passes the argument check and tool_input guardrails like any call, and the model is
 * told what replaced what (a note after the turn's results, operatorNotes).
 */
async function replaceCall(rx: ReactRun, call: ToolCall, initialArgs: JsonObject, tool: string, args: JsonObject, by: string | undefined): Promise<Approved> {
  // The update validator refuses these; a signal cannot be refused, so the model is told.
  if (!rx.toolsById.has(call.name)) return { error: errorResult(call, `replacement refused: ${call.name} is not a registry tool, only approve or reject applies`) };
  if (!rx.toolsById.has(tool)) return { error: errorResult(call, `replacement refused: '${tool}' is not a tool of this agent; tools: ${[...rx.toolsById.keys()].join(', ')}`) };
  // The replacement passes the same policy gate as any call (allowed_connectors, data_residency).
  const refused = toolPolicyRefusal(rx, rx.toolsById.get(tool)!);
  if (refused) return { error: errorResult(call, `replacement by ${tool} refused: ${refused}`) };
  const next: ToolCall = { id: call.id, name: tool, arguments: args };
  const chk = await rx.checkArgs(next, args);
  if (!chk.ok) return { error: errorResult(call, `replacement by ${tool} refused: ${chk.error ?? 'invalid arguments'}`) };
  let runArgs = args;
  if (rx.guarded('tool_input')) {
    const g = await guardToolInput(rx, next, args);
    if ('error' in g) return g;
    runArgs = g.args;
  }
  const who = by ?? 'a human reviewer';
  const note = `${who} replaced your call ${call.id} (${call.name} ${JSON.stringify(initialArgs)}) with ${tool} ${JSON.stringify(runArgs)}; the result of ${call.id} is the result of ${tool}`;
  (rx.st.operator_notes ??= []).push(note);
  rx.shell.warn(`call ${call.id} (${call.name}) replaced by ${who} with ${tool}`);
  return { args: runArgs, call: next };
}

/** Notes for the model about calls an operator replaced (taken once, after the turn's tool results). */
export function operatorNotes(rx: ReactRun): AppendItem[] {
  const notes = rx.st.operator_notes ?? [];
  delete rx.st.operator_notes;
  return notes.map((content) => ({ message: { role: 'user', content } }));
}
