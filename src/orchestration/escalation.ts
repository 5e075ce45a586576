/**
 * Escalation rule matching (the Agent Definition Specification's "escalation rules"): rules are evaluated top to bottom and
 * the first rule whose `on` and every narrowing field (`guardrail`, `node`) match is used; no
 * match means the run fails with no escalation. Pure.
 */
import type { EscalationRule } from '../compiled/types';

export type EscalationEvent =
  | { on: 'guardrail'; guardrail: string }
  | { on: 'model_decision' }
  | { on: 'node_failure'; node: string }
  | { on: 'timeout' };

export function matchEscalation(rules: EscalationRule[] | undefined, event: EscalationEvent): EscalationRule | undefined {
  for (const r of rules ?? []) {
    if (r.on !== event.on) continue;
    if (event.on === 'guardrail' && r.guardrail !== undefined && r.guardrail !== event.guardrail) continue;
    if (event.on === 'node_failure' && r.node !== undefined && r.node !== event.node) continue;
    return r;
  }
  return undefined;
}

/** Catch-all rules declared before a more specific rule of the same `on` type shadow it (lint). */
export function shadowedRules(rules: EscalationRule[]): { index: number; shadowedBy: number }[] {
  const out: { index: number; shadowedBy: number }[] = [];
  rules.forEach((r, i) => {
    const narrowing = r.on === 'guardrail' ? r.guardrail : r.on === 'node_failure' ? r.node : undefined;
    for (let j = 0; j < i; j++) {
      const p = rules[j];
      if (p.on !== r.on) continue;
      const pn = p.on === 'guardrail' ? p.guardrail : p.on === 'node_failure' ? p.node : undefined;
      if (pn === undefined || pn === narrowing) { out.push({ index: i, shadowedBy: j }); break; }
    }
  });
  return out;
}

export function describeEscalation(event: EscalationEvent): string {
  switch (event.on) {
    case 'guardrail': return `guardrail '${event.guardrail}' escalated`;
    case 'model_decision': return 'the model decided to escalate';
    case 'node_failure': return `node '${event.node}' failed`;
    case 'timeout': return 'execution_timeout exceeded';
  }
}
