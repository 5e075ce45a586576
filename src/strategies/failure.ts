/**
 * fuseraft's failure classification and its FailureHandling policy, pure. Every refused turn of
 * the keyword, statemachine and graph strategies (no signal, several, a signal the author may not
 * emit, a validator or contract that fails, MaxRevisits exceeded) is classified as one failure
 * type; the configured `FailureHandling` names the response for that type: a correction injected
 * before the agent is re-invoked (the default, what every failure got before), an audit request
 * that sets the runtime's record of the turn against the agent's claim, a HITL escalation that
 * waits for the operator, or stopping the run at once. The shared stuck counter (core.ts) still
 * stops a run whose failures are corrected or audited; an escalation leaves that to the operator.
 */
import { recordFailure, STUCK_LIMIT, type FailureState } from './core';
import type { Check } from './evidence';
import type { Decision, EscalationDecision, FailureAction, FailureHandlingConfig, FailureKind, Turn } from './types';

/** The failure type of a failed validator or contract check. */
export function evidenceKind(check: Extract<Check, { ok: false }>): FailureKind {
  return check.conflict ? 'ConflictingEvidence' : 'MissingEvidence';
}

/**
 * The failure type of a refused turn: NoProgress when the same agent failed in exactly the same way
 * on the previous consecutive failure (the turn changed nothing the runtime checks), else `base`.
 */
export function classifyFailure(s: FailureState, agent: string, base: FailureKind, what: string): FailureKind {
  return s.failures > 0 && s.failureLog[s.failureLog.length - 1] === `${agent}: ${what}` ? 'NoProgress' : base;
}

export function actionFor(handling: FailureHandlingConfig | undefined, kind: FailureKind): FailureAction {
  return handling?.[kind] ?? 'correction';
}

/** Characters of a command's output tail quoted in an audit request. */
const TAIL_CHARS = 300;

/**
 * fuseraft's "audit request": the refusal, then what the runtime recorded of the turn (files
 * written, commands and their exit codes, artifacts read), which the agent must reconcile with its
 * claim before signalling again.
 */
export function auditMessage(kind: FailureKind, what: string, turn: Turn): string {
  const ev = turn.evidence;
  const lines: string[] = [];
  lines.push(`files written this turn: ${ev?.writes?.length ? ev.writes.join(', ') : '(none)'}`);
  const shell = ev?.shell ?? [];
  lines.push(`commands run this turn: ${shell.length ? '' : '(none)'}`);
  for (const r of shell) lines.push(`  \`${r.command}\` exited ${r.exitCode}${r.exitCode !== 0 && r.outputTail?.trim() ? `: ${r.outputTail.trim().slice(-TAIL_CHARS)}` : ''}`);
  const files = Object.entries(ev?.files ?? {});
  if (files.length) lines.push(`artifacts: ${files.map(([p, c]) => `${p} (${c === null ? 'missing' : `${c.length} characters`})`).join(', ')}`);
  if (!ev) lines.push('(this run records no evidence for the turn)');
  return [
    `Audit request (${kind}): ${turn.agent}'s turn was refused: ${what}.`,
    'What the runtime recorded for that turn:',
    ...lines.map((l) => (l.startsWith('  ') ? l : `- ${l}`)),
    'Before you signal again, check each claim of your reply against this record, say which one it does not support, fix that, and only then signal.',
  ].join('\n');
}

/** The failure types on which the state machine gives the Verifier one audit turn (fuseraft). */
export const VERIFIER_KINDS: readonly FailureKind[] = ['ConflictingEvidence', 'NoProgress'];

/** The Verifier's audit turn: the failure, the runtime's record of the turn, and what to report. */
export function verifierMessage(kind: FailureKind, what: string, turn: Turn, state: string): string {
  const record = auditMessage(kind, what, turn).split('\n').slice(1, -1).join('\n');
  return [
    `Verifier audit (${kind}) in state ${state}: ${turn.agent}'s hand-off was refused: ${what}.`,
    record,
    `Audit ${turn.agent}'s last reply against this record: list each claim the evidence does not support and what would settle it. ${turn.agent} speaks next and reads your findings.`,
  ].join('\n');
}

/** What a router does with one refused turn. */
export interface FailureOutcome {
  /** The counter after this failure (unchanged while an escalation waits). */
  failure: FailureState;
  decision: Decision;
  kind: FailureKind;
  /** An escalation waits for the operator: keep the router state as it was (call `next` again with the answer). */
  pending: boolean;
}

/**
 * Handle one refused turn: classify it, count it and apply the FailureHandling action of its type
 * to `retry` (the correction decision the router would take: re-invoke the agent, the DefaultAgent
 * or a RecoveryAgent, with its message).
 */
export function handleFailure(
  s: FailureState,
  turn: Turn,
  base: FailureKind,
  what: string,
  retry: Decision,
  opts: { handling?: FailureHandlingConfig; limit?: number } = {},
): FailureOutcome {
  const kind = classifyFailure(s, turn.agent, base, what);
  const action = actionFor(opts.handling, kind);
  const tagged = (d: Decision, message?: string): Decision => (d.kind === 'speak' ? { ...d, failure: kind, ...(message !== undefined ? { message } : {}) } : d);
  if (action === 'escalate') {
    const answer = turn.escalation;
    if (!answer) {
      const ask: EscalationDecision = { kind: 'escalation', agent: turn.agent, failure: kind, what, reason: `${kind} escalated to the operator (FailureHandling): ${turn.agent}: ${what}` };
      return { failure: s, decision: ask, kind, pending: true };
    }
    if (answer.decision === 'rejected') {
      return { failure: s, kind, pending: false, decision: { kind: 'stop', outcome: 'stuck', reason: `${kind} escalated to the operator, who stopped the run${answer.reason ? `: ${answer.reason}` : ''} (${turn.agent}: ${what})` } };
    }
    // Approved: the operator has looked, so the counter starts again from this failure (one), and
    // the same failure once more is still NoProgress.
    const failure: FailureState = { failures: 1, failureLog: [...s.failureLog, `${turn.agent}: ${what}`].slice(-(opts.limit ?? STUCK_LIMIT)) };
    const note = `The operator reviewed this ${kind} failure (${what}) and lets you continue.${answer.reason ? ` Operator's note: ${answer.reason}` : ''}`;
    const base = retry.kind === 'speak' && retry.message ? `${retry.message}\n${note}` : note;
    return { failure, kind, pending: false, decision: tagged(retry, base) };
  }
  const { failure, stuck } = recordFailure(s, turn.agent, what, opts.limit);
  if (stuck) return { failure, decision: stuck, kind, pending: false };
  if (action === 'stop') {
    return { failure, kind, pending: false, decision: { kind: 'stop', outcome: 'stuck', reason: `${kind} stops the run (FailureHandling: ${kind}: stop): ${turn.agent}: ${what}` } };
  }
  if (action === 'audit') return { failure, kind, pending: false, decision: tagged(retry, auditMessage(kind, what, turn)) };
  return { failure, kind, pending: false, decision: tagged(retry) };
}
