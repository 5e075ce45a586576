/**
 * The flat selection strategies of fuseraft, pure: `sequential` (one pass over Agents, then the
 * session ends), `roundrobin` (cycle over Agents until a termination fires), `keyword` (Routes
 * routing lives in keyword-routing.ts) and `structured` (JSON conditions on the
 * last reply; first matching route in order; correction naming the required fields).
 */
import { admits, FailureState, noFailures, recordFailure, Router, speak, Step } from './core';
import { extractJsonObject, evaluateCondition } from './json';
import type { SelectionConfig, StructuredRouteConfig } from './types';

export interface CountState { turns: number }

export const noAgents = { kind: 'stop', outcome: 'failed', reason: 'the orchestration declares no agents' } as const;

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

/** DefaultAgent, else the first agent (fuseraft: "falls back to the first agent"). */
export function defaultAgentOf(sel: SelectionConfig, agents: readonly string[]): string | undefined {
  return sel.DefaultAgent ?? agents[0];
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
