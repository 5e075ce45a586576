/**
 * The `statemachine` selection strategy (fuseraft's "statemachine"), pure. The machine, not the
 * agent, resolves transitions: only the current state's signals are scanned (relaxed line
 * matching or a handoff call), so a signal of another state is ignored. A transition fires when
 * its Signal is detected (or it has none: automatic), SourceAgents admit the author and its
 * contracts pass; otherwise the state's agent is re-invoked with a nudge or a correction.
 * Parallel transitions fan out to their Targets and join in To. Terminal states (or states
 * without transitions) re-invoke their agent until a termination fires.
 */
import { admits, FailureState, noFailures, Router, speak, Step } from './core';
import { contractNamesOf, evaluateContracts } from './evidence';
import { evidenceKind, handleFailure, VERIFIER_KINDS, verifierMessage } from './failure';
import { sameKeyword, signalsOf } from './keywords';
import type { ContractConfig, Decision, FailureHandlingConfig, FailureKind, StateMachineConfig, TransitionConfig, Turn } from './types';

/** Contract failures on one transition before its RecoveryAgent runs ("fails repeatedly"). */
export const RECOVERY_AFTER = 2;

export interface StateMachineState extends FailureState {
  current: string;
  /** Times each transition (`State#index`) has fired, for MaxRevisits. */
  fired: Record<string, number>;
  /** Consecutive contract failures per transition. */
  contractFailures: Record<string, number>;
  /** Transitions whose RecoveryAgent already ran (at most once each). */
  recoveryUsed: string[];
  /** The last decision sent a RecoveryAgent: its turn is an intervention, not evaluated. */
  recovering?: boolean;
}

const key = (state: string, i: number): string => `${state}#${i}`;

/** A state is terminal when marked so or when it has no transitions. */
export function isTerminalState(sm: StateMachineConfig, name: string): boolean {
  const st = sm.States[name];
  return !!st && (st.Terminal === true || (st.Transitions ?? []).length === 0);
}

export function stateMachineRouter(sm: StateMachineConfig, contracts: readonly ContractConfig[] = [], handling?: FailureHandlingConfig, verifier?: string): Router<StateMachineState> {
  const agentOf = (state: string): string | undefined => sm.States[state]?.Agent;
  const enter = (state: string, reason: string, extra: Parameters<typeof speak>[2] = {}): Decision => {
    const agent = agentOf(state);
    return agent ? speak(agent, reason, { position: state, ...extra }) : { kind: 'stop', outcome: 'failed', reason: `state ${state} is not declared in States` };
  };
  /** A refused turn, classified and answered as FailureHandling says; `patch` is the router state it leaves (unless an escalation waits). */
  const refuse = (s: StateMachineState, turn: Turn, kind: FailureKind, what: string, retry: Decision, patch: Partial<StateMachineState> = {}): Step<StateMachineState> => {
    const o = handleFailure(s, turn, kind, what, retry, { handling });
    const state = o.pending ? s : { ...s, ...patch, ...o.failure };
    // fuseraft's Verifier: on ConflictingEvidence or NoProgress it takes one audit turn before the
    // state's agent is re-invoked (unless the failure stops the run, waits for the operator, or its
    // transition's RecoveryAgent is due).
    const d = o.decision;
    if (verifier && d.kind === 'speak' && !d.recovery && VERIFIER_KINDS.includes(o.kind)) {
      return {
        state: { ...state, recovering: true },
        decision: speak(verifier, `Verifier audit of ${turn.agent} (${o.kind}) in ${s.current}`, { position: s.current, recovery: true, failure: o.kind, message: verifierMessage(o.kind, what, turn, s.current) }),
      };
    }
    return { state, decision: d };
  };
  const stay = (s: StateMachineState, turn: Turn, kind: FailureKind, what: string, message: string): Step<StateMachineState> =>
    refuse(s, turn, kind, what, enter(s.current, `${what}: re-invoked`, { message }));
  const fire = (s: StateMachineState, t: TransitionConfig, k: string, signal: string | undefined, author: string): Step<StateMachineState> => {
    const state: StateMachineState = {
      ...s, ...noFailures(), current: t.To,
      fired: { ...s.fired, [k]: (s.fired[k] ?? 0) + 1 },
      contractFailures: { ...s.contractFailures, [k]: 0 },
    };
    const why = `${signal ? `signal "${signal}"` : 'automatic transition'} from ${s.current} (${author})`;
    if (t.Parallel) {
      const branches = (t.Targets ?? []).map((b) => ({ position: b, agent: agentOf(b) }));
      return {
        state,
        decision: {
          kind: 'fanout', branches, join: { position: t.To, agent: agentOf(t.To) }, merge: t.Merge ?? { Strategy: 'union' },
          reason: `${why}: fan-out to ${(t.Targets ?? []).join(', ')}, join ${t.To}`, keyword: signal, handoffContext: t.HandoffContext,
        },
      };
    }
    return { state, decision: enter(t.To, why, { keyword: signal, handoffContext: t.HandoffContext }) };
  };

  return {
    start: () => ({
      state: { current: sm.Initial, ...noFailures(), fired: {}, contractFailures: {}, recoveryUsed: [] },
      decision: enter(sm.Initial, 'statemachine: Initial state'),
    }),
    next: (s, turn) => {
      if (s.recovering) return { state: { ...s, recovering: false }, decision: enter(s.current, `recovery turn by ${turn.agent} done`) };
      const st = sm.States[s.current];
      if (!st) return { state: s, decision: { kind: 'stop', outcome: 'failed', reason: `state ${s.current} is not declared in States` } };
      const transitions = st.Transitions ?? [];
      if (isTerminalState(sm, s.current)) return { state: s, decision: enter(s.current, `terminal state ${s.current}: runs until termination`) };
      const signals = transitions.flatMap((t) => (t.Signal ? [t.Signal] : []));
      const available = [...new Set(signals)].join(', ') || '(none)';
      const { found, unknownHandoff } = signalsOf(turn, signals, 'relaxed');
      if (unknownHandoff !== undefined) return stay(s, turn, 'UnauthorizedSignal', `handoff names unknown signal "${unknownHandoff}"`, `"${unknownHandoff}" is not a signal of state ${s.current}. Available signals: ${available}.`);
      if (found.length > 1) return stay(s, turn, 'AmbiguousSignal', `ambiguous signals ${found.join(', ')}`, `Your reply contains several signals (${found.join(', ')}). Emit exactly one on its own line. Available signals: ${available}.`);
      const signal = found[0];
      const idx = transitions.findIndex((t) => (t.Signal === undefined || (signal !== undefined && sameKeyword(t.Signal, signal))) && admits(t.SourceAgents, turn.agent));
      if (idx < 0) {
        if (signal !== undefined) return stay(s, turn, 'UnauthorizedSignal', `signal "${signal}" is not allowed for ${turn.agent}`, `${turn.agent} may not emit "${signal}" in state ${s.current}. Available signals: ${available}.`);
        return stay(s, turn, 'MissingSignal', 'no signal', `No signal detected. When you are done, emit one of these on its own line: ${available}.`);
      }
      const t = transitions[idx];
      const k = key(s.current, idx);
      const max = t.MaxRevisits ?? 0;
      if (max > 0 && (s.fired[k] ?? 0) >= max) {
        // A revision loop past its cap makes no progress: NoProgress, answered by default with fuseraft's escalation message.
        return refuse(s, turn, 'NoProgress', `"${t.Signal ?? t.To}" exceeded MaxRevisits ${max}`, enter(s.current, `MaxRevisits ${max} reached on ${s.current} → ${t.To}: escalation`, {
          message: escalationMessage(s.current, t.To, max, t.ReviewArtifactPath, turn),
          reviewArtifactPath: t.ReviewArtifactPath,
        }));
      }
      if (!t.Parallel) {
        const check = evaluateContracts(contractNamesOf(t), contracts, turn);
        if (!check.ok) {
          const cf = (s.contractFailures[k] ?? 0) + 1;
          const contractFailures = { ...s.contractFailures, [k]: cf };
          // The correction is the transition's RecoveryAgent once the contract "fails repeatedly" (once per transition).
          if (t.RecoveryAgent && cf >= RECOVERY_AFTER && !s.recoveryUsed.includes(k)) {
            const recovery = speak(t.RecoveryAgent, `RecoveryAgent for ${s.current} → ${t.To} after ${cf} contract failures`, {
              position: s.current, recovery: true,
              message: `${turn.agent} is blocked in state ${s.current}: ${check.reason} (${cf} consecutive failures). Diagnose and fix the blocking issue.`,
            });
            const step = refuse(s, turn, evidenceKind(check), check.reason, recovery, { contractFailures });
            const recovering = step.decision.kind === 'speak' && step.decision.recovery === true;
            return recovering ? { state: { ...step.state, recoveryUsed: [...s.recoveryUsed, k], recovering: true }, decision: step.decision } : step;
          }
          return refuse(s, turn, evidenceKind(check), check.reason, enter(s.current, `${check.reason}: re-invoked`, { message: `Transition to ${t.To} blocked: ${check.reason}.` }), { contractFailures });
        }
      }
      return fire(s, t, k, signal, turn.agent);
    },
  };
}

/** Characters of the ReviewArtifactPath file quoted in a MaxRevisits escalation. */
export const OBJECTIONS_MAX_CHARS = 2000;

/**
 * The MaxRevisits escalation for transition `from → to`: the reviewer is asked to decide, with the
 * ReviewArtifactPath file quoted as the runtime read it after the turn (turn evidence), or told why
 * it could not be quoted.
 */
export function escalationMessage(from: string, to: string, max: number, path: string | undefined, turn: Turn): string {
  const head = `This transition (${from} → ${to}) has already fired ${max} time(s), its MaxRevisits.`;
  const tail = 'Decide whether each objection is still blocking; do not send the work back again for the same objections.';
  if (!path) return `${head} Review the outstanding objections in the history. ${tail}`;
  const content = turn.evidence?.files?.[path];
  if (typeof content === 'string' && content.trim()) {
    const text = content.trim();
    const cut = text.length > OBJECTIONS_MAX_CHARS ? `${text.slice(0, OBJECTIONS_MAX_CHARS)}\n[… ${text.length - OBJECTIONS_MAX_CHARS} more characters in ${path}]` : text;
    return `${head} ${tail}\nThe outstanding objections, from ${path}:\n${cut}`;
  }
  const why = content === undefined ? 'this run did not read it' : 'it does not exist or is empty';
  return `${head} The outstanding objections belong in ${path}, but ${why}; review them in the history. ${tail}`;
}

/** Every state reachable from Initial through To and Targets (for the validator). */
export function reachableStates(sm: StateMachineConfig): Set<string> {
  const seen = new Set<string>();
  const todo = [sm.Initial];
  while (todo.length) {
    const n = todo.pop() as string;
    if (seen.has(n) || !sm.States[n]) continue;
    seen.add(n);
    for (const t of sm.States[n].Transitions ?? []) todo.push(t.To, ...(t.Targets ?? []));
  }
  return seen;
}
