/** Test helpers for the strategy routers: build turns and walk a router through a conversation. */
import type { Router, Step } from '../../src/strategies/core';
import type { Decision, Turn, TurnEvidence } from '../../src/strategies/types';

export const turn = (agent: string, text: string, extra: Partial<Turn> = {}): Turn => ({ agent, text, ...extra });
export const withEvidence = (agent: string, text: string, evidence: TurnEvidence, extra: Partial<Turn> = {}): Turn => ({ agent, text, evidence, ...extra });

/** Feed turns one by one; returns every decision (the start decision first) and the last step. */
export function walk<S>(router: Router<S>, turns: readonly Turn[]): { decisions: Decision[]; last: Step<S> } {
  let step = router.start();
  const decisions: Decision[] = [step.decision];
  for (const t of turns) {
    step = router.next(step.state, t);
    decisions.push(step.decision);
  }
  return { decisions, last: step };
}

/** The agent a decision names, or a short tag for the other kinds. */
export function who(d: Decision): string {
  switch (d.kind) {
    case 'speak': return d.agent;
    case 'stop': return `stop:${d.outcome}`;
    case 'approval': return `approval:${d.keyword}`;
    case 'escalation': return `escalation:${d.failure}`;
    case 'fanout': return `fanout:${d.branches.map((b) => b.position).join('+')}>${d.join.position}`;
    case 'subgraph': return `subgraph:${d.subGraphId}`;
  }
}

export const BRIEF = JSON.stringify({ goal: 'add a flag', files_to_change: ['main.go', 'main_test.go'], acceptance_criteria: ['flag parsed'], verify_command: 'go test ./...' });
export const TEST_REPORT = JSON.stringify({ tests: [{ name: 'TestFlag', status: 'pass' }], summary: { passed: 1, failed: 0, skipped: 0 } });
export const REVIEW = 'Looks good.\n```json\n{"review": [{"criterion": "flag parsed", "verdict": "PASS", "evidence": "main_test.go:12"}]}\n```\nAPPROVED';
