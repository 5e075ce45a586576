/**
 * Which Temporal workflow type runs a compiled agent. Pure: used by the CLI to start a run and by
 * orchestration workflows to start members as child workflows, so both always agree.
 */
import type { CompiledAgent } from '../compiler/types';

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
  vendor: 'vendorPolicyWorkflow',
} as const;

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
export function workflowTypeFor(agent: Pick<CompiledAgent, 'execution_policy' | 'orchestration'>): string | undefined {
  const name = patternOf(agent);
  if (name.startsWith('x-')) return WORKFLOW_TYPES.vendor;
  return (WORKFLOW_TYPES as Record<string, string>)[name];
}
