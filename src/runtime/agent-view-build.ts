/**
 * The agent view built from a compiled bundle: the one implementation both the loadAgent activity
 * (a run that loads its agent) and a starter that already holds the bundle (AgentloomClient's start
 * path, the throughput bench) use, so a run sees the same view whichever way it got it. The view is
 * the CompiledAgent without `instructions`/`sections` (those reach the model from the bundle, inside
 * the model activity), plus the workflow types of the agents it may run. Pure: no Temporal import.
 */
import type { CompiledAgent, CompiledBundle } from '../compiled/types';
import type { RunAgentInput } from '../shared/contract';
import { workflowTypeFor } from '../shared/dispatch';
import type { AgentView } from './agent-view';

export function agentView(bundle: CompiledBundle, agent: CompiledAgent): AgentView {
  const { instructions: _i, sections: _s, ...rest } = agent;
  const agent_tool_types: Record<string, string> = {};
  for (const t of agent.tools.refs) {
    if (t.kind === 'agent' && t.agent) {
      const target = bundle.agents[t.agent.agent_id];
      agent_tool_types[t.tool_id] = (target && workflowTypeFor(target)) ?? 'agfReactWorkflow';
    }
  }
  const delegates = agent.orchestration.can_delegate
    ? agent.orchestration.allowed_delegates.map((id) => {
        const target = bundle.agents[id];
        return { agent_id: id, description: target?.meta.description ?? target?.meta.name ?? id, workflow_type: (target && workflowTypeFor(target)) ?? 'agfReactWorkflow' };
      })
    : [];
  // Escalation rules with an agent target: the workflow type each target runs as (react escalations).
  const escalation_agent_types: Record<string, string> = {};
  for (const r of agent.orchestration.escalation ?? []) {
    if (r.target.type !== 'agent') continue;
    const target = bundle.agents[r.target.id];
    escalation_agent_types[r.target.id] = (target && workflowTypeFor(target)) ?? 'agfReactWorkflow';
  }
  return {
    ...rest,
    agent_tool_types,
    ...(delegates.length ? { delegates } : {}),
    ...(Object.keys(escalation_agent_types).length ? { escalation_agent_types } : {}),
  };
}

/** The workflow types that take their agent view from the start input (RunAgentInput.agent_view) instead of loading it. */
export const VIEW_IN_START_INPUT: readonly string[] = ['agfReactWorkflow'];

/**
 * The start input of a run of `workflowType` with the agent's view in it, when that workflow type
 * takes it (the agent run); any other input is returned as it is. The run then issues no loadAgent
 * activity: one workflow task and one activity task fewer per run.
 */
export function withAgentView(input: RunAgentInput, bundle: CompiledBundle, workflowType: string): RunAgentInput {
  const agent = bundle.agents[input.agent_id];
  if (!agent || !VIEW_IN_START_INPUT.includes(workflowType)) return input;
  return { ...input, agent_view: agentView(bundle, agent) };
}
