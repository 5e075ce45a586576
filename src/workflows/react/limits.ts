/**
 * The run-level limits and first-run preparation of a react run: preference warnings (the Agent Format's
 * "Preferences vs Constraints"), runtime.max_input_chars before the first model call, the first
 * user message, the runtime.timeout_seconds deadline, and when to continue-as-new.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { JsonValue } from '../../compiled/types';
import { reactConfig } from '../../runtime/agent-view';
import { renderUserPrompt } from '../../runtime/template';
import type { ReactRun } from './context';
import { historyFull } from '../shell/continue-as-new';

function inputChars(input: JsonValue): number {
  return typeof input === 'string' ? input.length : JSON.stringify(input ?? null).length;
}

/** The first run of the chain: warnings, the input length limit, the first message and the deadline. */
export function prepareFirstRun(rx: ReactRun): void {
  const { agent: ag, input, st, shell } = rx;
  // The Agent Format's preferences the runtime overrides: the model is the registry's runtime.model.
  const cfg = reactConfig(ag);
  const chosen = ag.runtime.model;
  if (cfg.provider && cfg.provider !== chosen.provider) shell.warn(`execution_policy.config.provider '${cfg.provider}' is a preference: this run uses runtime.model ${chosen.model_id} (${chosen.provider})`);
  if (cfg.model && cfg.model !== chosen.model_id && cfg.model !== chosen.openai?.model) shell.warn(`execution_policy.config.model '${cfg.model}' is a preference: this run uses runtime.model ${chosen.model_id}`);
  if (cfg.top_k !== undefined) shell.warn('execution_policy.config.top_k is not supported by OpenAI-compatible providers: ignored');
  const maxChars = ag.runtime.max_input_chars;
  const chars = inputChars(input.input);
  if (maxChars !== undefined && chars > maxChars) {
    throw ApplicationFailure.nonRetryable(`input has ${chars} characters, more than runtime.max_input_chars (${maxChars})`, 'InputTooLong');
  }
  if (input.options?.input_ref) {
    // Written by the caller's activity (strategies members): only its reference enters history.
    st.pending_append = [{ ref: input.options.input_ref }];
  } else {
    let prompt = renderUserPrompt(input.input, cfg.user_prompt_template);
    // Swarm members and other children get an extra context block (RunOptions.context).
    if (input.options?.context) prompt += `\n\n# Context\n${JSON.stringify(input.options.context, null, 2)}`;
    st.pending_append = [{ message: { role: 'user', content: prompt } }];
  }
  // A graph node revisited with reset_on_revisit: false continues its own stored conversation.
  if (input.options?.conversation_ref) st.head = input.options.conversation_ref;
  if (ag.runtime.timeout_seconds) st.deadline_ms = Date.now() + ag.runtime.timeout_seconds * 1000;
}

export function timeoutMessage(rx: ReactRun): string {
  return `runtime.timeout_seconds (${rx.agent.runtime.timeout_seconds}) exceeded before a final answer`;
}

/** Temporal suggests it, or (tests/bench) every `continue_as_new_every` turns. */
export function shouldContinueAsNew(rx: ReactRun, turnsThisRun: number): boolean {
  const every = rx.st.continue_as_new_every;
  return historyFull() || (every !== undefined && turnsThisRun >= every);
}
