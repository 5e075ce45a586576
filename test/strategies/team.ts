/**
 * Seed 002 strategies teams for dev-server tests and compat scenarios (no jest here: the replay
 * guard's script imports it too). The root agent runs a strategies `config` over members named as
 * the config names them; a scripted team gives each member agent id `<prefix>-<name lowercased>`.
 */
import type { CompiledAgent, CompiledBundle, ScriptedModelConfig, StrategiesPattern } from '../../src/compiled/types';
import { agent, answers, bundle } from '../orchestration/builders';

/** The root `root` runs `config` over `members` (config name -> compiled agent). */
export function strategiesTeam(root: string, config: Record<string, unknown>, members: Record<string, CompiledAgent>): CompiledBundle {
  const pattern: StrategiesPattern = { type: 'strategies', agents: Object.entries(members).map(([name, a]) => ({ name, agent_id: a.agent_id })), config: config as StrategiesPattern['config'] };
  return bundle(root, [agent({ id: root, model: answers('orchestrator'), pattern }), ...Object.values(members)]);
}

/** The same with one scripted member per name (agent id `<prefix>-<name lowercased>`). */
export function scriptedTeam(root: string, config: Record<string, unknown>, models: Record<string, ScriptedModelConfig>, prefix = 'm'): CompiledBundle {
  return strategiesTeam(root, config, Object.fromEntries(Object.entries(models).map(([name, model]) => [name, agent({ id: `${prefix}-${name.toLowerCase()}`, model })])));
}

/** Seed 002's parallel fan-out, cut to two branches: Planning fans out on IMPLEMENT to BackendWork and
 * FrontendWork, merged by `merge`, joining in Integration (terminal); at most `maxIterations` turns. */
export function fanOutConfig(merge: Record<string, unknown> = { Strategy: 'union' }, maxIterations = 4, targets: Record<string, string> = { BackendWork: 'BackendDev', FrontendWork: 'FrontendDev' }): Record<string, unknown> {
  return {
    Selection: {
      Type: 'statemachine',
      StateMachine: {
        Initial: 'Planning',
        States: {
          Planning: { Agent: 'Planner', Transitions: [{ To: 'Integration', Targets: Object.keys(targets), Parallel: true, Signal: 'IMPLEMENT', Merge: merge }] },
          ...Object.fromEntries(Object.entries(targets).map(([state, a]) => [state, { Agent: a }])),
          Integration: { Agent: 'Integrator', Terminal: true },
        },
      },
    },
    Termination: { Type: 'maxiterations', MaxIterations: maxIterations },
  };
}

/**
 * A review loop as a state machine: (Planning →) Implementation → Review, whose REVISION REQUIRED
 * back-edge carries `backEdge` (e.g. MaxRevisits), APPROVED → Done (terminal); a regex termination
 * on the Reviewer's APPROVED, at most `maxIterations` turns.
 */
export function reviewLoopConfig(backEdge: Record<string, unknown>, opts: { planning?: boolean; maxIterations?: number } = {}): Record<string, unknown> {
  return {
    Selection: {
      Type: 'statemachine',
      StateMachine: {
        Initial: opts.planning ? 'Planning' : 'Implementation',
        States: {
          ...(opts.planning ? { Planning: { Agent: 'Planner', Transitions: [{ To: 'Implementation', Signal: 'HANDOFF TO DEVELOPER' }] } } : {}),
          Implementation: { Agent: 'Developer', Transitions: [{ To: 'Review', Signal: 'HANDOFF TO REVIEWER' }] },
          Review: { Agent: 'Reviewer', Transitions: [{ To: 'Done', Signal: 'APPROVED' }, { To: 'Implementation', Signal: 'REVISION REQUIRED', ...backEdge }] },
          Done: { Agent: 'Reviewer', Terminal: true },
        },
      },
    },
    Termination: { Type: 'regex', Pattern: '\\bAPPROVED\\b', AgentNames: ['Reviewer'], MaxIterations: opts.maxIterations ?? 10 },
  };
}
