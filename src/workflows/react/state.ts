/**
 * What an agf.react run keeps between turns, and carries across continue-as-new
 * (RunAgentInput.carried; the run shell adds usage, warnings and a pause). Only references and
 * counters: the conversation itself lives in the message store.
 */
import type { JsonObject } from '../../compiled/types';
import type { BlobRef } from '../../shared/contract';
import type { AppendItem } from '../../runtime/messages';
import { Counters, newCounters } from '../../runtime/limits';
import type { AuditEvent } from '../../governance/audit';

export interface ReactState {
  head: BlobRef | null;
  counters: Counters;
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
  /** runtime.execution_loop `dependencies`: the run's write-once State (`_outputPath` results; the Execution Loop specification). */
  state?: JsonObject;
  /** Calls an operator replaced this turn: told to the model with the results (react/approval.ts operatorNotes). */
  operator_notes?: string[];
  /** policies.audit_level: approvals, guardrail decisions and escalations so far, written with the run's audit entry. */
  audit_events?: AuditEvent[];
  /** Earlier audit events moved to the store in chunks (patch `audit-events-in-chunks`), oldest first. */
  audit_event_refs?: BlobRef[];
  /** The Agent Definition Specification's memory applies to this run chain (react/memory.ts; patch `memory-react`): written back at the end. */
  memory?: boolean;
  /** The input rewritten by pii_redaction or an input guardrail (stored first message): what memory reads and writes back instead of the raw input. */
  memory_input?: BlobRef;
  /** retention_class ephemeral (react/ephemeral.ts; patch `ephemeral-run`): the run deletes what it stored as it ends. */
  ephemeral?: boolean;
  /** An ephemeral run's final answer, stored by the model activity, so the history does not hold it. */
  output_ref?: BlobRef;
}

/** The state of this run: fresh, or carried from the previous run of the chain. */
export function reactState(carried: JsonObject | undefined): { st: ReactState; first: boolean } {
  const c = (carried ?? {}) as Partial<ReactState>;
  const st: ReactState = {
    head: c.head ?? null,
    counters: c.counters ?? newCounters(),
    pending_append: c.pending_append ?? [],
    corrections: c.corrections ?? 0,
    fallback: c.fallback ?? false,
    deadline_ms: c.deadline_ms,
    executions: (c.executions ?? 0) + 1,
    continue_as_new_every: c.continue_as_new_every,
    ...(c.input_transformed ? { input_transformed: true } : {}),
    ...(c.tools_blocked ? { tools_blocked: c.tools_blocked } : {}),
    ...(c.guardrail_retries ? { guardrail_retries: c.guardrail_retries } : {}),
    ...(c.state ? { state: c.state } : {}),
    ...(c.audit_events?.length ? { audit_events: c.audit_events } : {}),
    ...(c.audit_event_refs?.length ? { audit_event_refs: c.audit_event_refs } : {}),
    ...(c.memory ? { memory: true } : {}),
    ...(c.memory_input ? { memory_input: c.memory_input } : {}),
    ...(c.ephemeral ? { ephemeral: true } : {}),
  };
  return { st, first: c.head === undefined };
}
