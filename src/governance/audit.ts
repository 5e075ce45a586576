/**
 * The audit trail of `policies.audit_level` (the Agent Definition Specification's "audit_level"): what one run's entry holds
 * at each level, and the hash chain that makes the log tamper-evident. Each line of an agent's
 * audit log is one JSON entry whose `hash` is sha256(prev hash + canonical JSON of the entry
 * without `hash`); `prev` is the hash of the line before ('' for the first). Changing, removing
 * or reordering a line breaks every hash after it, which `verifyChain` reports. Pure.
 */
import { canonicalJson, sha256 } from '../compiled/canonical';
import type { JsonValue } from '../compiled/types';

export type AuditOutcome = 'success' | 'refused' | 'error' | 'cancelled';

/** What a run's entry says (before sealing). `standard` fields first; `full` adds the rest. */
export interface AuditRecord {
  event: 'run';
  level: 'standard' | 'full';
  agent_id: string;
  agent_version: string;
  workflow_id: string;
  run_id: string;
  started_at: string;
  ended_at: string;
  outcome: AuditOutcome;
  /** Names of the tools called (standard: names only, no arguments). */
  tools: string[];
  /** full: the failure or refusal reason, tool calls with arguments and results, warnings (guardrail decisions, fallbacks), the final output. */
  reason?: string;
  tool_calls?: { id: string; name: string; arguments: JsonValue }[];
  tool_results?: { call_id?: string; name?: string; content: string }[];
  warnings?: string[];
  output?: string;
  /** Approvals, guardrail decisions and escalations of the run, in the order they happened (standard and full). */
  events?: AuditEvent[];
}

/**
 * What happened during a run that an auditor asks about: who approved or rejected which call and
 * when, what each guardrail decided, where the run was escalated. Recorded by the workflow as it
 * happens (workflow time, deterministic) and written with the run's entry. `arguments` only at full.
 */
export type AuditEvent =
  | {
      kind: 'approval';
      at: string;
      call_id: string;
      tool: string;
      decision: 'approved' | 'rejected' | 'replaced' | 'timed_out' | 'escalated';
      /** Who decided (the update/signal's `by`); absent when the approver gave no name. */
      by?: string;
      requested_at?: string;
      reason?: string;
      /** The tool run instead (decision 'replaced'). */
      replaced_by?: string;
      arguments?: JsonValue;
    }
  | {
      kind: 'guardrail';
      at: string;
      position: string;
      /** The verdict over the position's guardrails: pass, warn, transformed, blocked, escalate, retry. */
      verdict: string;
      guardrail?: string;
      reason?: string;
      tool?: string;
      call_id?: string;
    }
  | { kind: 'escalation'; at: string; trigger: string; detail: string; target?: string; outcome: string };

/** The events an entry at `level` keeps: standard drops approved arguments. */
export function eventsAtLevel(events: AuditEvent[], level: 'standard' | 'full'): AuditEvent[] {
  if (level === 'full') return events;
  return events.map((e) => {
    if (e.kind !== 'approval' || e.arguments === undefined) return e;
    const { arguments: _dropped, ...rest } = e;
    return rest;
  });
}

/** One line per event, as `loom audit` prints them under the run's line. */
export function describeEvent(e: AuditEvent): string {
  switch (e.kind) {
    case 'approval': {
      const who = e.by ? ` by ${e.by}` : '';
      const what = e.decision === 'replaced' ? `replaced with ${e.replaced_by ?? '?'}` : e.decision;
      return `${e.at} approval ${e.tool} (${e.call_id}) ${what}${who}${e.reason ? `: ${e.reason}` : ''}`;
    }
    case 'guardrail': {
      const on = e.tool ? ` ${e.tool} (${e.call_id ?? '?'})` : '';
      return `${e.at} guardrail ${e.position}${on} ${e.verdict}${e.guardrail ? ` by '${e.guardrail}'` : ''}${e.reason ? `: ${e.reason}` : ''}`;
    }
    case 'escalation':
      return `${e.at} escalation on ${e.trigger}${e.target ? ` to ${e.target}` : ''} ${e.outcome}: ${e.detail}`;
  }
}

export interface AuditEntry extends AuditRecord {
  seq: number;
  prev: string;
  hash: string;
}

/** Seal a record as the entry after `prev` (the previous entry, or undefined for the first). */
export function sealEntry(prev: Pick<AuditEntry, 'seq' | 'hash'> | undefined, rec: AuditRecord): AuditEntry {
  const body = { ...rec, seq: prev ? prev.seq + 1 : 1, prev: prev?.hash ?? '' };
  return { ...body, hash: sha256(body.prev + canonicalJson(body)) };
}

export type ChainCheck = { ok: true; entries: number } | { ok: false; entries: number; line: number; reason: string };

/** Check every line of an audit log: parseable, in sequence, linked to the line before, hash intact. */
export function verifyChain(lines: string[]): ChainCheck {
  let prev: AuditEntry | undefined;
  let n = 0;
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].trim()) continue;
    const bad = (reason: string): ChainCheck => ({ ok: false, entries: n, line: i + 1, reason });
    let e: AuditEntry;
    try {
      e = JSON.parse(lines[i]) as AuditEntry;
    } catch {
      return bad('not JSON');
    }
    const { hash, ...body } = e;
    if (e.prev !== (prev?.hash ?? '')) return bad(`prev does not match the hash of the entry before (entry removed, inserted or reordered)`);
    if (e.seq !== (prev ? prev.seq + 1 : 1)) return bad(`seq ${e.seq} where ${prev ? prev.seq + 1 : 1} was expected`);
    if (sha256(e.prev + canonicalJson(body)) !== hash) return bad('hash does not match the entry (entry changed after it was written)');
    prev = e;
    n++;
  }
  return { ok: true, entries: n };
}
