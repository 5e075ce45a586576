/**
 * What a chat session's next run sees of the earlier ones (pure): the earlier exchanges as one
 * block before the new prompt, oldest dropped first to fit `state.max_state_tokens` (about 4
 * characters a token) or, when undeclared, DEFAULT_SESSION_CHARS.
 */
import type { Message } from '../runtime/messages';

/** The budget for earlier exchanges when the agent declares no `state.max_state_tokens`. */
export const DEFAULT_SESSION_CHARS = 16_000;
export const CHARS_PER_TOKEN = 4;

/** A session id: what `loom run --session` accepts (letters, digits, `.`, `_`, `:`, `-`; up to 128). */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export interface SessionPrompt {
  /** The first user message of the new run. */
  text: string;
  /** Earlier messages shown / left out for the budget. */
  kept: number;
  dropped: number;
}

function line(m: Message): string {
  return `[${m.role}] ${m.content}`;
}

/** The new run's first message: earlier messages that fit the budget (newest kept), then the prompt. */
export function sessionPrompt(earlier: Message[], prompt: string, maxStateTokens?: number): SessionPrompt {
  if (!earlier.length) return { text: prompt, kept: 0, dropped: 0 };
  const budget = maxStateTokens !== undefined ? maxStateTokens * CHARS_PER_TOKEN : DEFAULT_SESSION_CHARS;
  const kept: string[] = [];
  let used = 0;
  // Whole messages, newest first, until the next one would not fit.
  for (let i = earlier.length - 1; i >= 0; i--) {
    const l = line(earlier[i]);
    if (used + l.length > budget) break;
    kept.unshift(l);
    used += l.length + 1;
  }
  const dropped = earlier.length - kept.length;
  if (!kept.length) return { text: prompt, kept: 0, dropped };
  const note = dropped ? `(${dropped} earlier message(s) left out to stay within the session budget)\n` : '';
  return { text: `# Earlier in this session\n${note}${kept.join('\n')}\n\n# Now\n${prompt}`, kept: kept.length, dropped };
}
