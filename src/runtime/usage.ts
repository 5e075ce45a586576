/** Token usage accounting of a run: model turns and member/child runs add up here. Pure. */
import type { TokenUsage } from '../shared/contract';

export function emptyUsage(): TokenUsage {
  return { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
}

/** Add `u` (a model turn's usage, or a member's whole usage) into `into`. */
export function addUsage(into: TokenUsage, u: Partial<TokenUsage> | undefined): void {
  if (!u) return;
  into.prompt_tokens += u.prompt_tokens ?? 0;
  into.completion_tokens += u.completion_tokens ?? 0;
  // A model turn reports no total: it is the sum of the two.
  into.total_tokens += u.total_tokens ?? (u.prompt_tokens ?? 0) + (u.completion_tokens ?? 0);
}
