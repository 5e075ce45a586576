/**
 * What the react workflow knows about its agent: the CompiledAgent without `instructions` and
 * `sections` (those reach the model verbatim from the bundle, inside the model activity, so they
 * never enter workflow history), plus the workflow types of agent tools. Pure types.
 */
import type { CompiledAgent, ReactConfig } from '../compiled/types';

export type AgentView = Omit<CompiledAgent, 'instructions' | 'sections'> & {
  /** tool_id -> workflow type of the agent run as that tool (kind 'agent'). */
  agent_tool_types: Record<string, string>;
  /** `orchestration.allowed_delegates` resolved (only when can_delegate): what the runtime may run. */
  delegates?: { agent_id: string; description: string; workflow_type: string }[];
  /** Agent targets of `orchestration.escalation` rules -> the workflow type they run as. */
  escalation_agent_types?: Record<string, string>;
};

/** The runtime tool offered to agents with `can_delegate: true` (the Agent Definition Specification's "delegation"). */
export const DELEGATE_TOOL = 'delegate_to_agent';

/**
 * The runtime tool offered to agents with an `on: model_decision` escalation rule: calling it
 * escalates the run (the Agent Definition Specification's "escalation rules"; the rule's target may be a human queue or an agent).
 */
export const ESCALATE_TOOL = 'escalate_to_human';

/** Preferences passed to the model activity (the Agent Format's "Preferences vs Constraints"). */
export interface ModelPrefs {
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  tool_choice: 'none' | 'auto' | 'required';
  max_output_tokens?: number;
  /** runtime.reasoning_effort, sent as the provider's `reasoning_effort` (the OpenAI API's own field, to `openai` providers). */
  reasoning_effort?: 'low' | 'medium' | 'high';
}

export function reactConfig(agent: Pick<AgentView, 'execution_policy'>): ReactConfig {
  const p = agent.execution_policy;
  return p && p.id === 'agf.react' ? (p.config ?? {}) : {};
}

export function modelPrefs(agent: AgentView, forceNone: boolean, toolCallsMade = 0): ModelPrefs {
  const cfg = reactConfig(agent);
  const maxOut = [cfg.max_output_tokens, agent.runtime.max_output_tokens, agent.runtime.model.max_output_tokens].filter(
    (n): n is number => typeof n === 'number',
  );
  const prefs: ModelPrefs = {
    tool_choice: forceNone ? 'none' : (cfg.tool_choice ?? agent.tools.tool_choice ?? 'auto'),
  };
  // `required` forces a tool call; once one was made the model must be free to answer, or the run
  // could never end.
  if (prefs.tool_choice === 'required' && toolCallsMade > 0) prefs.tool_choice = 'auto';
  const temperature = cfg.temperature ?? agent.runtime.temperature;
  if (temperature !== undefined) prefs.temperature = temperature;
  const topP = cfg.top_p ?? agent.runtime.top_p;
  if (topP !== undefined) prefs.top_p = topP;
  if (cfg.stop_sequences?.length) prefs.stop_sequences = cfg.stop_sequences;
  // The constraint wins: the smallest declared max_output_tokens is a hard cap.
  if (maxOut.length) prefs.max_output_tokens = Math.min(...maxOut);
  if (agent.runtime.reasoning_effort) prefs.reasoning_effort = agent.runtime.reasoning_effort;
  return prefs;
}

