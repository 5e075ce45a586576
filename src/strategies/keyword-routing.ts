/**
 * fuseraft's keyword routing, pure: the `keyword` selection strategy. Routes are scanned in every
 * reply with relaxed line matching (keywords.ts); ambiguity, SourceAgents, validators, route
 * approval, the DefaultAgent fallback and terminal self-routes.
 */
import { admits, FailureState, noFailures, Router, speak, Step } from './core';
import { runValidators, validatorsOf } from './evidence';
import { evidenceKind, handleFailure } from './failure';
import { sameKeyword, signalsOf } from './keywords';
import { defaultAgentOf, noAgents } from './selection';
import type { FailureHandlingConfig, FailureKind, RouteConfig, SelectionConfig, Turn } from './types';

/** Keyword routes: terminal when `Agent` is one of its `SourceAgents` (the self-routing convention). */
export function isTerminalRoute(r: RouteConfig): boolean {
  return (r.SourceAgents ?? []).includes(r.Agent);
}

/** The keywords `author` may emit (routes whose SourceAgents admit it). */
function ownKeywords(routes: readonly RouteConfig[], author: string): string[] {
  return [...new Set(routes.filter((r) => admits(r.SourceAgents, author)).map((r) => r.Keyword))];
}

export function keywordRouter(sel: SelectionConfig, agents: readonly string[], handling?: FailureHandlingConfig): Router<FailureState> {
  const routes = sel.Routes ?? [];
  const keywords = routes.map((r) => r.Keyword);
  const fallback = defaultAgentOf(sel, agents);
  // Every refused turn: classified, counted, answered as FailureHandling says (failure.ts).
  const retry = (s: FailureState, turn: Turn, kind: FailureKind, what: string, message: string | undefined, nextAgent = turn.agent): Step<FailureState> => {
    const o = handleFailure(s, turn, kind, what, speak(nextAgent, `${what}: ${nextAgent === turn.agent ? 're-invoked' : 'DefaultAgent'}`, message !== undefined ? { message } : {}), { handling });
    return { state: o.pending ? s : o.failure, decision: o.decision };
  };
  return {
    start: () => ({ state: noFailures(), decision: fallback ? speak(fallback, 'keyword: DefaultAgent starts') : noAgents }),
    next: (s, turn) => {
      const own = ownKeywords(routes, turn.agent);
      const { found, unknownHandoff } = signalsOf(turn, keywords, 'relaxed');
      if (unknownHandoff !== undefined) {
        return retry(s, turn, 'UnauthorizedSignal', `handoff names unknown keyword "${unknownHandoff}"`, `handoff(route_keyword: "${unknownHandoff}") matches no route. Use one of: ${own.join(', ') || '(none)'}.`);
      }
      if (found.length > 1) {
        return retry(s, turn, 'AmbiguousSignal', `ambiguous keywords ${found.join(', ')}`, `Your reply contains several routing keywords on their own lines (${found.join(', ')}). Reply again with exactly one keyword on its own line.`);
      }
      if (found.length === 0) {
        if (!fallback) return { state: s, decision: noAgents };
        const o = handleFailure(s, turn, 'MissingSignal', 'no routing keyword', speak(fallback, 'no keyword matched: DefaultAgent'), { handling });
        return { state: o.pending ? s : o.failure, decision: o.decision };
      }
      const keyword = found[0];
      const route = routes.find((r) => sameKeyword(r.Keyword, keyword) && admits(r.SourceAgents, turn.agent));
      if (!route) {
        return retry(s, turn, 'UnauthorizedSignal', `keyword "${keyword}" belongs to another role`, `"${keyword}" is not a keyword ${turn.agent} may emit. Use one of: ${own.join(', ') || '(none)'}.`);
      }
      const check = runValidators(validatorsOf(route), turn, { RequiredCommandPattern: route.RequiredCommandPattern });
      if (!check.ok) return retry(s, turn, evidenceKind(check), check.reason, `Route "${route.Keyword}" is blocked: ${check.reason}.`);
      if (route.RequireHumanApproval) {
        if (turn.routeApproval === undefined) {
          return { state: s, decision: { kind: 'approval', source: turn.agent, keyword: route.Keyword, target: route.Agent, reason: `route "${route.Keyword}" requires human approval` } };
        }
        if (turn.routeApproval === 'rejected') {
          return { state: s, decision: speak(turn.agent, `route "${route.Keyword}" rejected by the operator`, { message: `Route blocked: the operator rejected "${route.Keyword}". Address the concerns and try again.` }) };
        }
      }
      if (isTerminalRoute(route)) return { state: noFailures(), decision: { kind: 'stop', outcome: 'terminal', keyword: route.Keyword, reason: `terminal route "${route.Keyword}" from ${turn.agent}` } };
      return { state: noFailures(), decision: speak(route.Agent, `route "${route.Keyword}" from ${turn.agent}`, { keyword: route.Keyword }) };
    },
  };
}
