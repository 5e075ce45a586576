/**
 * The runtime tools an agent run may offer besides its registry tools — delegate_to_agent (for agents
 * that may delegate) and escalate_to_human (for an `on: model_decision` escalation rule) — and whether
 * the run executes guardrails at all. Decided once, when the run starts (react/context.ts); each may
 * record a patch marker, so the order of the calls there matters.
 */
import { patched } from '@temporalio/workflow';
import type { GuardrailPosition } from '../../compiled/types';
import type { ExtraToolSpec } from '../../shared/contract';
import type { AgentView } from '../../runtime/agent-view';
import { DELEGATE_TOOL, ESCALATE_TOOL } from '../../runtime/agent-view';
import { PATCHES } from '../patches';

const POSITIONS: GuardrailPosition[] = ['input', 'tool_input', 'tool_output', 'output'];

/** The delegate_to_agent tool, for agents that may delegate (patched: runs started before it never offered the tool). */
export function delegationTool(agent: AgentView): ExtraToolSpec | undefined {
  const delegates = agent.delegates ?? [];
  if (!(agent.orchestration.can_delegate && delegates.length && patched(PATCHES.delegateTool.id))) return undefined;
  return {
    name: DELEGATE_TOOL,
    description: `Hand a sub-task to another agent and get its answer back. Agents you may delegate to:\n${delegates.map((d) => `- ${d.agent_id}: ${d.description}`).join('\n')}`,
    parameters: {
      type: 'object',
      properties: {
        agent_id: { type: 'string', enum: delegates.map((d) => d.agent_id) },
        input: { description: "The delegate's input (matching its interface.input.schema); a string task otherwise." },
      },
      required: ['agent_id', 'input'],
    },
    terminal: false,
  };
}

/** The escalate_to_human tool, for agents with an `on: model_decision` rule (once guardrails are enabled). */
export function escalationTool(agent: AgentView): ExtraToolSpec | undefined {
  if (!(agent.orchestration.escalation ?? []).some((r) => r.on === 'model_decision')) return undefined;
  return {
    name: ESCALATE_TOOL,
    description:
      'Escalate this conversation when you cannot or must not resolve it yourself (as your Escalation instructions describe): your run stops and the case is handed over (to a human operator or an escalation agent). Give the reason.',
    parameters: {
      type: 'object',
      properties: { reason: { type: 'string', description: 'Why you escalate, for whoever takes over.' } },
      required: ['reason'],
    },
    terminal: false,
  };
}

/**
 * Whether this run executes guardrails and model_decision escalation. Patched: runs started before
 * guardrails executed never scheduled runGuardrails nor offered escalate_to_human. Only agents that
 * declare guardrails or a model_decision rule reach patched(), so every other agent records
 * exactly the commands it did before.
 */
export function guardrailsEnabled(agent: AgentView): boolean {
  const declared = POSITIONS.some((p) => (agent.guardrails?.[p]?.length ?? 0) > 0);
  const modelDecision = (agent.orchestration.escalation ?? []).some((r) => r.on === 'model_decision');
  return (declared || modelDecision) && patched(PATCHES.guardrails.id);
}
