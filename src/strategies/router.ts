/**
 * One dispatch table for the routing family (fuseraft's selection types that pick one speaker per
 * turn): `createRouter` builds the strategy for a validated config, and `decide` folds a whole
 * transcript into the next decision — Termination first (it is checked after every agent turn),
 * then selection. Pure; the durable runtime (a Temporal workflow) is not wired yet.
 */
import { replay, Router, Step } from './core';
import { keywordGraphRouter } from './keyword-graph';
import { roundRobinRouter, sequentialRouter, structuredRouter } from './selection';
import { keywordRouter } from './keyword-routing';
import { stateMachineRouter } from './statemachine';
import { checkTermination } from './termination';
import { ROUTING_TYPES, RoutingType, StrategyConfig, Turn } from './types';

/** The state of whichever router runs: JSON, carried across turns (and continue-as-new). */
export type RouterState = object;

const ROUTERS: Record<RoutingType, (c: StrategyConfig, agents: readonly string[]) => Router<RouterState>> = {
  sequential: (_c, agents) => sequentialRouter(agents) as Router<RouterState>,
  roundrobin: (_c, agents) => roundRobinRouter(agents) as Router<RouterState>,
  keyword: (c, agents) => keywordRouter(c.Selection, agents, c.FailureHandling) as Router<RouterState>,
  structured: (c, agents) => structuredRouter(c.Selection, agents) as Router<RouterState>,
  statemachine: (c) => {
    if (!c.Selection.StateMachine) throw new Error('Selection.Type statemachine needs a StateMachine block');
    return stateMachineRouter(c.Selection.StateMachine, c.Contracts ?? [], c.FailureHandling, c.Verifier) as Router<RouterState>;
  },
  graph: (c) => {
    if (!c.Selection.Graph) throw new Error('Selection.Type graph needs a Graph block');
    return keywordGraphRouter(c.Selection.Graph, c.FailureHandling) as Router<RouterState>;
  },
};

export function isRoutingType(t: string): t is RoutingType {
  return (ROUTING_TYPES as readonly string[]).includes(t);
}

/** The router of a config's Selection.Type (validate the config first: validateStrategyConfig).
 * Throws for the phase-driven types (scattergather, mapreduce, llm, magentic, adversarial). */
export function createRouter(config: StrategyConfig, agents: readonly string[]): Router<RouterState> {
  const t = config.Selection.Type;
  if (!isRoutingType(t)) throw new Error(`Selection.Type ${t} is phase-driven, not a routing strategy`);
  return ROUTERS[t](config, agents);
}

/** The decision after `transcript` (all of it, from the start): Termination, then selection. */
export function decide(config: StrategyConfig, agents: readonly string[], transcript: readonly Turn[]): Step<RouterState> {
  const step = replay(createRouter(config, agents), transcript);
  const t = checkTermination(config.Termination, transcript);
  if (t.stop) return { state: step.state, decision: { kind: 'stop', outcome: 'terminated', reason: `${t.strategy}: ${t.reason}` } };
  return step;
}
