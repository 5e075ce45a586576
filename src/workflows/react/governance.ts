/**
 * The Agent Definition Specification's policies in a react run (the runtime layer around the model, not prompt text):
 *  - data_residency: the model (and fallback) must lie in the agent's region: refused before any call;
 *  - allowed_connectors / data_residency for tools: a refused call gets an error result, the tool never runs;
 *  - pii_redaction: the first message is redacted (activity) before the model or an input guardrail reads it;
 *  - blocked_content: a final answer the classifier places in a blocked category fails the run with the reason;
 *  - audit_level: one hash-chained audit entry per run as it ends (src/activities/audit.ts).
 * The gates are pure; the activities run only for bundles compiled with `policies.runtime_pass`
 * (pii_redaction or blocked_content declared) or `policies.audit_trail` (audit_level declared), so
 * runs recorded before these passes existed replay unchanged.
 */
import { ApplicationFailure, CancellationScope, patched, workflowInfo } from '@temporalio/workflow';
import type { CompiledTool } from '../../compiled/types';
import type { BlobRef } from '../../shared/contract';
import { modelRefusal, toolRefusal } from '../../governance/residency';
import { failureMessage } from '../shell/failures';
import type { AuditEvent } from '../../governance/audit';
import type { ReactRun } from './context';
import { PATCHES } from '../patches';

/** Fail the run before any model call when its model or fallback model is outside data_residency. */
export function refuseModelsOutsideResidency(rx: ReactRun): void {
  const { policies, runtime } = rx.agent;
  for (const m of [runtime.model, runtime.fallback_model]) {
    const why = m && modelRefusal(policies, m);
    if (why) throw ApplicationFailure.nonRetryable(`refused before the model call: ${why}`, 'PolicyViolation');
  }
}

/** Why this tool call is refused by allowed_connectors / data_residency (the tool does not run), if it is. */
export function toolPolicyRefusal(rx: ReactRun, tool: CompiledTool): string | undefined {
  const why = toolRefusal(rx.agent.policies, tool);
  if (why) rx.shell.warn(why);
  return why;
}

/** pii_redaction applies to the run's first message (callers skip `redactInput` otherwise: no promise for nothing). */
export function redactsInput(rx: ReactRun): boolean {
  const { st, agent } = rx;
  return Boolean(agent.policies.runtime_pass && agent.policies.pii_redaction && st.pending_append.length);
}

/** pii_redaction on the first message: the model and input guardrails read the redacted, stored copy. */
export async function redactInput(rx: ReactRun): Promise<void> {
  const { st } = rx;
  if (!redactsInput(rx)) return;
  const out = await rx.acts.redactRunInput.executeWithOptions({ ...rx.guardOpts, summary: 'pii redaction (input)' }, [
    { bundle: rx.input.bundle, agent_id: rx.input.agent_id, message: st.pending_append[0] },
  ]);
  st.pending_append = [{ ref: out.stored }, ...st.pending_append.slice(1)];
  st.input_transformed = true;
  const found = Object.entries(out.found).map(([k, n]) => `${n} ${k}`).join(', ');
  if (found) rx.shell.details(`pii_redaction: input redacted (${found})`);
}

/** blocked_content on a final answer (stored at `head`): the run fails with the category and what matched. */
export async function refuseBlockedContent(rx: ReactRun, head: BlobRef): Promise<void> {
  const { agent } = rx;
  if (!agent.policies.runtime_pass || !agent.policies.blocked_content?.length) return;
  const out = await rx.acts.checkBlockedContent.executeWithOptions({ ...rx.guardOpts, summary: 'blocked_content check' }, [
    { bundle: rx.input.bundle, agent_id: rx.input.agent_id, head },
  ]);
  if (out.refused) throw ApplicationFailure.nonRetryable(out.refused.reason, 'ContentBlocked');
}

/**
 * Record an approval, guardrail decision or escalation for the run's audit entry (audit_level
 * standard/full only). Workflow memory and the carried state, no command: replays record the same.
 */
export function noteAudit(rx: ReactRun, ev: DistributiveOmit<AuditEvent, 'at'>): void {
  if (!rx.agent.policies.audit_trail) return;
  (rx.st.audit_events ??= []).push({ at: new Date().toISOString(), ...ev } as AuditEvent);
}
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Audit events kept in workflow memory before they move to the store (RunOptions.scale.audit_events_chunk overrides). */
export const AUDIT_EVENTS_CHUNK = 100;

/**
 * Keep the carried audit list bounded: once `chunk` events accumulated, or before a
 * continue-as-new with any, they go to the store as one chunk (activity) and the run carries its
 * reference. Patched: runs from before it carried every event; only a run holding events reaches
 * patched(), so runs without an audit trail record exactly the commands they did.
 */
export async function flushAudit(rx: ReactRun, beforeContinueAsNew: boolean): Promise<void> {
  const events = rx.st.audit_events;
  if (!events?.length) return;
  const chunk = rx.input.options?.scale?.audit_events_chunk ?? AUDIT_EVENTS_CHUNK;
  if (!(beforeContinueAsNew || events.length >= chunk) || !patched(PATCHES.auditEventsInChunks.id)) return;
  const ref = await rx.acts.storeAuditEvents.executeWithOptions({ ...rx.guardOpts, summary: `audit events (${events.length})` }, [{ events }]);
  rx.st.audit_event_refs = [...(rx.st.audit_event_refs ?? []), ref];
  rx.st.audit_events = undefined;
}

/** Failures that are a policy's refusal rather than an error (audit outcome `refused`). */
const REFUSALS = ['ContentBlocked', 'PolicyViolation', 'GuardrailBlocked'];

/**
 * policies.audit_level: one hash-chained entry for this run in the agent's audit log (activity),
 * written as the run ends — also when it fails or is cancelled (nonCancellable). Only for bundles
 * compiled with `policies.audit_trail` (audit_level declared standard or full).
 */
export async function auditRun(rx: ReactRun, ended: 'completed' | 'failed' | 'cancelled', err?: unknown): Promise<void> {
  if (!rx.agent.policies.audit_trail) return;
  const refused = err instanceof ApplicationFailure && REFUSALS.includes(err.type ?? '');
  const outcome = ended === 'completed' ? 'success' : ended === 'cancelled' ? 'cancelled' : refused ? 'refused' : 'error';
  const info = workflowInfo();
  await CancellationScope.nonCancellable(() =>
    rx.acts.appendAudit.executeWithOptions({ ...rx.guardOpts, summary: `audit (${rx.agent.policies.audit_level})` }, [
      {
        bundle: rx.input.bundle,
        agent_id: rx.input.agent_id,
        workflow_id: info.workflowId,
        run_id: info.runId,
        started_at: info.startTime.toISOString(),
        outcome,
        ...(err !== undefined ? { reason: failureMessage(err) } : {}),
        head: rx.st.head,
        warnings: [...rx.shell.warnings],
        ...(rx.st.audit_events?.length ? { events: rx.st.audit_events } : {}),
        ...(rx.st.audit_event_refs?.length ? { event_refs: rx.st.audit_event_refs } : {}),
      },
    ]),
  );
}
