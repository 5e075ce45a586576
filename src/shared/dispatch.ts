/**
 * The policy and pattern ids Agentloom runs, and which Temporal workflow type runs each: the one
 * list dispatch, status and types derive from. Pure: used by the CLI to start a run and by
 * orchestration workflows to start members as child workflows, so both always agree.
 */
import type { CompiledAgent, ExecutionPolicy, OrchestrationPattern, ReservedPattern } from '../compiled/types';

/** The Agent Format's execution policies (`execution_policy.id`). */
export const AGF_POLICY_IDS = ['agf.react', 'agf.sequential', 'agf.parallel', 'agf.loop', 'agf.batch', 'agf.conditional'] as const;
export type AgfPolicyId = (typeof AGF_POLICY_IDS)[number];

/** The orchestration patterns of the Agent Definition Specification and the Step Execution Modes, and fuseraft's routing strategies (`orchestration.pattern.type`). */
export const PATTERN_TYPES = ['graph', 'swarm', 'workflow', 'steps', 'strategies'] as const;
export type PatternType = (typeof PATTERN_TYPES)[number];

/** Policy/pattern id -> workflow type (`vendor` runs every `x-<vendor>.*` policy). */
export const WORKFLOW_TYPES = {
  'agf.react': 'agfReactWorkflow',
  'agf.sequential': 'agfSequentialWorkflow',
  'agf.parallel': 'agfParallelWorkflow',
  'agf.loop': 'agfLoopWorkflow',
  'agf.batch': 'agfBatchWorkflow',
  'agf.conditional': 'agfConditionalWorkflow',
  graph: 'graphWorkflow',
  swarm: 'swarmWorkflow',
  workflow: 'taskDagWorkflow',
  steps: 'stepsWorkflow',
  strategies: 'strategiesWorkflow',
  vendor: 'vendorPolicyWorkflow',
} as const satisfies Record<AgfPolicyId | PatternType | 'vendor', string>;

/** The name of every workflow function the worker bundle exports for agents (src/workflows/index.ts checks it exports each). */
export type AgentWorkflowType = (typeof WORKFLOW_TYPES)[keyof typeof WORKFLOW_TYPES];

// The compiled payload's policy ids and pattern types are exactly these (plus vendor `x-…` ids and fuseraft's reserved patterns):
// a policy or pattern added to one list and not the other fails to type-check here.
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : false;
const idsAgree: [Same<Exclude<ExecutionPolicy['id'], `x-${string}`>, AgfPolicyId>, Same<Exclude<OrchestrationPattern, ReservedPattern>['type'], PatternType>] = [true, true];
void idsAgree;

/** The policy or pattern name an agent runs (shown in status and the AgentPattern search attribute). */
export function patternOf(agent: Pick<CompiledAgent, 'execution_policy' | 'orchestration'>): string {
  const p = agent.orchestration?.pattern;
  if (p) return p.type;
  return agent.execution_policy?.id ?? 'agf.react';
}

/**
 * The workflow type for an agent. An `orchestration.pattern` wins (the agent is the pattern's
 * orchestrator and runs itself as the entry node); otherwise its `execution_policy`.
 * Unknown ids map to `undefined`: the caller fails with an error naming the policy id.
 */
export function workflowTypeFor(agent: Pick<CompiledAgent, 'execution_policy' | 'orchestration'>): AgentWorkflowType | undefined {
  const name = patternOf(agent);
  if (name.startsWith('x-')) return WORKFLOW_TYPES.vendor;
  return (WORKFLOW_TYPES as Record<string, AgentWorkflowType>)[name];
}
