/**
 * The selector model call of fuseraft's `Selection.Type: llm` (and the magentic manager's calls): one call of the strategy's selection
 * `Model` (compiled into the strategies pattern's `models`: a bundle carries agents only) through the same
 * providers as the model activity, with the rendered selection prompt as its only user message and
 * no tools. Member descriptions for `{{$agents}}` are read from the bundle here (I/O stays in
 * activities); the prompt itself is built by src/strategies/llm-selection.ts. With the strategies
 * agent's `policies.pii_redaction` on, the prompt and the reply go through the platform PII pass.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { CompiledModel, StrategiesPattern } from '../compiled/types';
import type { BlobRef } from '../shared/contract';
import { selectionPrompt, type HistoryTurn } from '../strategies/llm-selection';
import { redactModelReply } from './governance';
import { redactText } from '../governance/pii';
import type { BundleCache } from './agent-loader';
import type { Provider } from './provider';

/** A strategies pattern with the registry models its selection/manager calls use (by model id). */
export type PatternWithModels = StrategiesPattern & { models?: Record<string, CompiledModel> };

export interface SelectorCallInput {
  bundle: BlobRef;
  /** The strategies agent (its pattern holds the model and the agent names). */
  agent_id: string;
  model_id: string;
  /** `Selection.Prompt`, if any (magentic: the manager's prompt); `{{$agents}}` and `{{$history}}` are filled here. */
  prompt?: string;
  /** The manager's system instructions (magentic); the selector's own otherwise. */
  instructions?: string;
  task: string;
  history: HistoryTurn[];
  /** The correction of the one retry. */
  correction?: string;
  /** 0-based selector call number of this run (scripted models answer by turn). */
  turn: number;
}
export interface SelectorCallOutput { reply: string; usage: { prompt_tokens: number; completion_tokens: number }; model: string }

export function createStrategySelectorActivities(deps: { bundles: BundleCache; providers: Record<string, Provider> }) {
  return {
    async strategySelectorCall(inp: SelectorCallInput): Promise<SelectorCallOutput> {
      const { bundle, agent } = await deps.bundles.agent(inp.bundle, inp.agent_id);
      const pattern = agent.orchestration?.pattern as PatternWithModels | undefined;
      const model = pattern?.models?.[inp.model_id];
      if (!pattern || !model) throw ApplicationFailure.nonRetryable(`agent '${inp.agent_id}' carries no compiled selection model '${inp.model_id}' (recompile the bundle)`, 'SelectorModelMissing');
      const provider = deps.providers[model.provider];
      if (!provider) throw ApplicationFailure.nonRetryable(`model provider '${model.provider}' (model ${model.model_id}) is not available in this worker`, 'UnknownProvider');
      const agents = pattern.agents.map((a) => ({ name: a.name, description: bundle.agents[a.agent_id]?.meta.description }));
      const prompt = selectionPrompt(inp.prompt, agents, inp.task, inp.history);
      const full = inp.correction ? `${prompt}\n\n${inp.correction}` : prompt;
      // The strategies agent's policies.pii_redaction covers its own model calls as it does a react
      // run's: the selector/manager model never receives the task's or the transcript's raw PII.
      // The team's agent names are configuration the model must read and answer with, not PII.
      const keep = { keep: pattern.agents.map((a) => a.name) };
      const content = agent.policies.pii_redaction ? redactText(full, keep).text : full;
      const reply = await provider({
        model,
        agent,
        instructions: inp.instructions ?? 'You select which agent speaks next in a multi-agent conversation.',
        conversation: [{ role: 'user', content }],
        tools: [],
        prefs: { tool_choice: 'none' },
        turn: inp.turn,
        input: content,
      });
      return { reply: redactModelReply(agent, reply, keep).content ?? '', usage: reply.usage, model: model.model_id };
    },
  };
}
