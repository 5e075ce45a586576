/**
 * What every routing strategy shares, pure: the `Router` shape (a start step and a reducer from
 * one agent turn to the next decision, over a JSON state the runtime can carry across
 * continue-as-new) and the stuck bookkeeping: consecutive failures of any kind (no keyword, a
 * foreign keyword, ambiguity, a validator or contract failure) share one counter that only a route
 * that fires resets, so alternating failure modes reach the limit too (fuseraft's "Stuck detection").
 */
import type { Decision, SpeakDecision, StopDecision, Turn } from './types';

/** fuseraft: "for 3 consecutive turns, a ValidatorStuckException is raised". */
export const STUCK_LIMIT = 3;

export interface Step<S> {
  state: S;
  decision: Decision;
}

/**
 * A routing strategy. `start()` names the first speaker; `next(state, turn)` consumes one agent
 * turn (never a context entry) and names what happens next. An `approval` decision leaves the
 * state unchanged: call `next` again with the same turn carrying `routeApproval`.
 */
export interface Router<S> {
  start(): Step<S>;
  next(state: S, turn: Turn): Step<S>;
}

/** The consecutive-failure counter carried in every router state. */
export interface FailureState {
  failures: number;
  /** What failed, most recent last (at most STUCK_LIMIT entries), for the stuck message. */
  failureLog: string[];
}

export const noFailures = (): FailureState => ({ failures: 0, failureLog: [] });

/** Record one failure; returns the new counter and, at the limit, the stop decision. */
export function recordFailure(f: FailureState, agent: string, what: string, limit = STUCK_LIMIT): { failure: FailureState; stuck?: StopDecision } {
  const failure = { failures: f.failures + 1, failureLog: [...f.failureLog, `${agent}: ${what}`].slice(-limit) };
  if (failure.failures < limit) return { failure };
  return {
    failure,
    stuck: {
      kind: 'stop', outcome: 'stuck',
      reason: `ValidatorStuck: ${agent} got stuck after ${failure.failures} consecutive failed turns (${failure.failureLog.join('; ')})`,
    },
  };
}

export function speak(agent: string, reason: string, extra: Omit<SpeakDecision, 'kind' | 'agent' | 'reason'> = {}): SpeakDecision {
  return { kind: 'speak', agent, reason, ...extra };
}

/** SourceAgents: omitted or empty = any author. */
export function admits(sourceAgents: readonly string[] | undefined, author: string): boolean {
  return !sourceAgents || sourceAgents.length === 0 || sourceAgents.includes(author);
}

/** Fold a whole transcript through a router: the decision after its last agent turn. */
export function replay<S>(router: Router<S>, transcript: readonly Turn[]): Step<S> {
  let step = router.start();
  for (const t of transcript) {
    if ((t.kind ?? 'agent') !== 'agent') continue;
    if (step.decision.kind === 'stop') break;
    step = router.next(step.state, t);
  }
  return step;
}
