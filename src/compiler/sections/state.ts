/** `state`: the Agent Definition Specification's max_state_tokens must be less than the input budget (max_input_chars at ~4 characters a token, else the model's window). */
import { asNum, asObj } from '../values';
import type { AgentBuild, Ctx } from './context';

export function checkStateBudget(ctx: Ctx, b: AgentBuild): void {
  const stateTokens = asNum(asObj(b.d.state).max_state_tokens);
  const inputChars = asNum(asObj(b.d.runtime).max_input_chars);
  const model = b.model;
  const inputBudget = inputChars !== undefined ? Math.floor(inputChars / 4) : model?.context_window_tokens;
  if (stateTokens !== undefined && inputBudget !== undefined && stateTokens >= inputBudget) {
    const from = inputChars !== undefined ? `runtime.max_input_chars ${inputChars} ÷ 4` : `model \`${model?.model_id}\` context_window_tokens`;
    ctx.err(['state', 'max_state_tokens'], 'AGF170', `max_state_tokens ${stateTokens} is not less than the input budget of ${inputBudget} tokens (${from}); set it below ${inputBudget}`);
  }
}
