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

/** One turn's intermediate notes kept as the session's working state (state.working_state: session). */
export interface ScratchpadEntry {
  turn: number;
  note: string;
}

export interface SessionTurnOptions {
  /** state.session_history: `ephemeral` gives the model no earlier message. */
  history: 'ephemeral' | 'session';
  /** state.scratchpad_visible_to_model: the working state is shown to the model. */
  scratchpadVisible: boolean;
  maxStateTokens?: number;
  /** What memory collections gave for this message (a `# Memory` block), shown first; not part of the state budget. */
  memory?: string;
}

export interface SessionTurnPrompt extends SessionPrompt {
  /** Scratchpad entries shown / left out for the budget. */
  notesKept: number;
  notesDropped: number;
}

/**
 * The first message of a chat-session turn: the state (earlier messages, then the scratchpad when
 * visible) trimmed to one budget, `state.max_state_tokens` covering history + working state as
 * the Agent Definition Specification says; oldest entries go first, the newest scratchpad entries are kept before history.
 */
export function sessionTurnPrompt(earlier: Message[], scratchpad: ScratchpadEntry[], prompt: string, o: SessionTurnOptions): SessionTurnPrompt {
  const budget = o.maxStateTokens !== undefined ? o.maxStateTokens * CHARS_PER_TOKEN : DEFAULT_SESSION_CHARS;
  const notes = o.scratchpadVisible ? scratchpad : [];
  const keptNotes: string[] = [];
  let used = 0;
  for (let i = notes.length - 1; i >= 0; i--) {
    const l = `(turn ${notes[i].turn}) ${notes[i].note}`;
    if (used + l.length > budget) break;
    keptNotes.unshift(l);
    used += l.length + 1;
  }
  const history = o.history === 'session' ? earlier : [];
  const kept: string[] = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const l = line(history[i]);
    if (used + l.length > budget) break;
    kept.unshift(l);
    used += l.length + 1;
  }
  const dropped = history.length - kept.length;
  const notesDropped = notes.length - keptNotes.length;
  const parts: string[] = o.memory ? [o.memory] : [];
  if (kept.length) parts.push(`# Earlier in this session\n${dropped ? `(${dropped} earlier message(s) left out to stay within the session budget)\n` : ''}${kept.join('\n')}`);
  if (keptNotes.length) parts.push(`# Working state\n${keptNotes.join('\n')}`);
  const text = parts.length ? `${parts.join('\n\n')}\n\n# Now\n${prompt}` : prompt;
  return { text, kept: kept.length, dropped, notesKept: keptNotes.length, notesDropped };
}
