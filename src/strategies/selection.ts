/**
 * The flat selection strategies of seed 002, pure: `sequential` (one pass over Agents, then the
 * session ends), `roundrobin` (cycle over Agents until a termination fires), `keyword` (Routes
 * scanned in every reply with relaxed line matching; ambiguity, SourceAgents, validators, route
 * approval, DefaultAgent fallback, terminal self-routes) and `structured` (JSON conditions on the
 * last reply; first matching route in order; correction naming the required fields).
 */
import { admits, FailureState, noFailures, recordFailure, Router, speak, Step } from './core';
import { runValidators, validatorsOf } from './evidence';
import { extractJsonObject, evaluateCondition } from './json';
import { sameKeyword, signalsOf } from './signals';
import type { RouteConfig, SelectionConfig, StructuredRouteConfig, Turn } from './types';

export interface CountState { turns: number }

const noAgents = { kind: 'stop', outcome: 'failed', reason: 'the orchestration declares no agents' } as const;

/** sequential: agents in declared order, once each; the session ends after the last. */
export function sequentialRouter(agents: readonly string[]): Router<CountState> {
  return {
    start: () => ({ state: { turns: 0 }, decision: agents.length ? speak(agents[0], 'sequential: first agent') : noAgents }),
    next: (s) => {
      const turns = s.turns + 1;
      if (turns >= agents.length) return { state: { turns }, decision: { kind: 'stop', outcome: 'complete', reason: `sequential: all ${agents.length} agent(s) have spoken` } };
      return { state: { turns }, decision: speak(agents[turns], `sequential: agent ${turns + 1} of ${agents.length}`) };
    },
  };
}

/** roundrobin: agents in declared order, cycling; only termination ends it. */
export function roundRobinRouter(agents: readonly string[]): Router<CountState> {
  const at = (turns: number): Step<CountState> => ({
    state: { turns },
    decision: agents.length ? speak(agents[turns % agents.length], `roundrobin: round ${Math.floor(turns / agents.length) + 1}`) : noAgents,
  });
  return { start: () => at(0), next: (s) => at(s.turns + 1) };
}

/** DefaultAgent, else the first agent (seed: "falls back to the first agent"). */
export function defaultAgentOf(sel: SelectionConfig, agents: readonly string[]): string | undefined {
  return sel.DefaultAgent ?? agents[0];
}

/** Keyword routes: terminal when `Agent` is one of its `SourceAgents` (the self-routing convention). */
export function isTerminalRoute(r: RouteConfig): boolean {
  return (r.SourceAgents ?? []).includes(r.Agent);
}

/** The keywords `author` may emit (routes whose SourceAgents admit it). */
function ownKeywords(routes: readonly RouteConfig[], author: string): string[] {
  return [...new Set(routes.filter((r) => admits(r.SourceAgents, author)).map((r) => r.Keyword))];
}

export function keywordRouter(sel: SelectionConfig, agents: readonly string[]): Router<FailureState> {
  const routes = sel.Routes ?? [];
  const keywords = routes.map((r) => r.Keyword);
  const fallback = defaultAgentOf(sel, agents);
  const retry = (s: FailureState, turn: Turn, what: string, message: string, nextAgent = turn.agent): Step<FailureState> => {
    const { failure, stuck } = recordFailure(s, turn.agent, what);
    return { state: failure, decision: stuck ?? speak(nextAgent, `${what}: ${nextAgent === turn.agent ? 're-invoked' : 'DefaultAgent'}`, { message }) };
  };
  return {
    start: () => ({ state: noFailures(), decision: fallback ? speak(fallback, 'keyword: DefaultAgent starts') : noAgents }),
    next: (s, turn) => {
      const own = ownKeywords(routes, turn.agent);
      const { found, unknownHandoff } = signalsOf(turn, keywords, 'relaxed');
      if (unknownHandoff !== undefined) {
        return retry(s, turn, `handoff names unknown keyword "${unknownHandoff}"`, `handoff(route_keyword: "${unknownHandoff}") matches no route. Use one of: ${own.join(', ') || '(none)'}.`);
      }
      if (found.length > 1) {
        return retry(s, turn, `ambiguous keywords ${found.join(', ')}`, `Your reply contains several routing keywords on their own lines (${found.join(', ')}). Reply again with exactly one keyword on its own line.`);
      }
      if (found.length === 0) {
        if (!fallback) return { state: s, decision: noAgents };
        const { failure, stuck } = recordFailure(s, turn.agent, 'no routing keyword');
        return { state: failure, decision: stuck ?? speak(fallback, 'no keyword matched: DefaultAgent') };
      }
      const keyword = found[0];
      const route = routes.find((r) => sameKeyword(r.Keyword, keyword) && admits(r.SourceAgents, turn.agent));
      if (!route) {
        return retry(s, turn, `keyword "${keyword}" belongs to another role`, `"${keyword}" is not a keyword ${turn.agent} may emit. Use one of: ${own.join(', ') || '(none)'}.`);
      }
      const check = runValidators(validatorsOf(route), turn, { RequiredCommandPattern: route.RequiredCommandPattern });
      if (!check.ok) return retry(s, turn, check.reason, `Route "${route.Keyword}" is blocked: ${check.reason}.`);
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

/** The fields a structured route reads, for the correction message. */
function requiredFields(routes: readonly StructuredRouteConfig[], author: string): string[] {
  return [...new Set(routes.filter((r) => admits(r.SourceAgents, author)).map((r) => r.Condition.Field))];
}

export function structuredRouter(sel: SelectionConfig, agents: readonly string[]): Router<FailureState> {
  const routes = sel.StructuredRoutes ?? [];
  const first = defaultAgentOf(sel, agents);
  return {
    start: () => ({ state: noFailures(), decision: first ? speak(first, 'structured: DefaultAgent starts') : noAgents }),
    next: (s, turn) => {
      const obj = extractJsonObject(turn.text);
      const fields = requiredFields(routes, turn.agent);
      const route = obj && routes.find((r) => admits(r.SourceAgents, turn.agent) && evaluateCondition(r.Condition, obj));
      if (route) return { state: noFailures(), decision: speak(route.Agent, `structured route ${route.Condition.Field} from ${turn.agent}`) };
      const what = obj ? 'no structured route matched' : 'the reply is not valid JSON';
      const { failure, stuck } = recordFailure(s, turn.agent, what);
      const message = `${obj ? 'Your JSON matched no route' : 'Your reply must be a JSON object'}. Include the field(s): ${fields.join(', ') || '(none: no route accepts your messages)'}.`;
      return { state: failure, decision: stuck ?? speak(turn.agent, `${what}: re-invoked`, { message }) };
    },
  };
}
