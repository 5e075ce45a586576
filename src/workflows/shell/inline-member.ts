/**
 * A member run inline in its orchestrator (agf.batch items whose agent qualifies by
 * inlineMemberBlocker, src/runtime/inline-member.ts; patch `inline-single-turn-members`): its model
 * turns are `modelTurn` activities of the parent instead of a child agf.react workflow, doing what
 * agf.react does for such an agent: runtime.max_input_chars, the rendered first message, the turn
 * limits, the output schema check with one correction turn, usage and warnings. The result, usage,
 * warnings and failure texts are the ones the child run would give. A reply with tool calls needs
 * the react loop: the attempt is dropped (with its usage and warnings) and the member runs as a
 * child workflow from the start, as it would have without the patch.
 *
 * startInlineMember (patch `lean-inline-members`) issues the same turns with no await between them:
 * the workflow sandbox captures a stack trace for every promise a workflow creates (Temporal's
 * stack-trace query), so each async layer a member passes through costs its batch's workflow task
 * time; the turn's outcome is a `.then` on the activity itself.
 */
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { JsonValue } from '../../compiled/types';
import type { AgentRunResult, BlobRef } from '../../shared/contract';
import type { Activities } from '../../activities';
import type { ModelTurnOutput } from '../../activities/model';
import type { AgentView } from '../../runtime/agent-view';
import { modelPrefs, reactConfig } from '../../runtime/agent-view';
import type { AppendItem } from '../../runtime/messages';
import { countTurn, newCounters, toolsExhausted, turnBlocked, Limits } from '../../runtime/limits';
import { correctionMessage } from '../../runtime/output';
import { renderUserPrompt } from '../../runtime/template';
import { addUsage, emptyUsage } from '../../runtime/usage';
import { modelActivityOptions } from '../../runtime/inline-member';

/** The member needs the react loop after all: run it as a child workflow. */
export const NEEDS_CHILD = 'needs-child' as const;

function inputChars(input: JsonValue): number {
  return typeof input === 'string' ? input.length : JSON.stringify(input ?? null).length;
}

/** The member's input within runtime.max_input_chars, or the failure the child run would give. */
function checkInputLength(agent: AgentView, input: JsonValue): void {
  const maxChars = agent.runtime.max_input_chars;
  const chars = inputChars(input);
  if (maxChars !== undefined && chars > maxChars) {
    throw ApplicationFailure.nonRetryable(`input has ${chars} characters, more than runtime.max_input_chars (${maxChars})`, 'InputTooLong');
  }
}

/** What a member's turns share: its loop config, activity options, limits and running totals. */
function memberTurns(agent: AgentView) {
  const cfg = reactConfig(agent);
  const opts = modelActivityOptions(agent);
  const acts = proxyActivities<Activities>(opts);
  const limits: Limits = { max_steps: cfg.max_steps, max_turns: agent.runtime.max_turns, max_tool_calls: agent.runtime.max_tool_calls, per_tool: {} };
  return { cfg, opts, acts, limits, counters: newCounters(), usage: emptyUsage(), warnings: [] as string[] };
}

/**
 * `runInlineMember` without an await (patch `lean-inline-members`, see the file comment): the
 * same turns, limits, output check with one correction turn, usage, warnings and failures.
 */
export function startInlineMember(
  bundle: BlobRef,
  agent: AgentView,
  spec: { agent_id: string; input: JsonValue; role: string; input_ref?: BlobRef },
): Promise<AgentRunResult | typeof NEEDS_CHILD> {
  try {
    checkInputLength(agent, spec.input);
  } catch (e) {
    return Promise.reject(e);
  }
  const { cfg, opts, acts, limits, counters, usage, warnings } = memberTurns(agent);
  let corrected = false;
  const turn = (head: BlobRef | null, append: AppendItem[]): Promise<AgentRunResult | typeof NEEDS_CHILD> => {
    const blocked = turnBlocked(counters, limits);
    if (blocked) return Promise.reject(ApplicationFailure.nonRetryable(blocked, 'LimitExceeded'));
    const n = counters.turn;
    const input = { bundle, agent_id: spec.agent_id, head, turn: n, prefs: modelPrefs(agent, toolsExhausted(counters, limits), 0), append, ...(head === null ? { input: spec.input } : {}) };
    return acts.modelTurn.executeWithOptions({ ...opts, summary: `${spec.role}: model ${agent.runtime.model.model_id}, turn ${n + 1}` }, [input]).then((out: ModelTurnOutput) => {
      countTurn(counters);
      addUsage(usage, out.usage);
      if (out.message.tool_calls?.length) return NEEDS_CHILD;
      const check = out.output_check ?? { ok: true as const, value: out.message.content ?? '' };
      if (check.ok) return { agent_id: spec.agent_id, output: check.value, usage, warnings };
      if (corrected) throw ApplicationFailure.nonRetryable(`final answer rejected after a correction turn: ${check.error}`, 'OutputSchemaError');
      corrected = true;
      warnings.push(`turn ${n + 1}: ${check.error}; asked the model for a correction`);
      return turn(out.head, [{ message: { role: 'user', content: correctionMessage(check.error, agent.interface.output.schema) } }]);
    });
  };
  // A stored first message (a chat session's turn) replaces the rendered prompt, as options.input_ref does for agf.react.
  return turn(null, spec.input_ref ? [{ ref: spec.input_ref }] : [{ message: { role: 'user', content: renderUserPrompt(spec.input, cfg.user_prompt_template) } }]);
}

/** Run `agent` on `input` as model-turn activities of this workflow (see the file comment). */
export async function runInlineMember(
  bundle: BlobRef,
  agent: AgentView,
  spec: { agent_id: string; input: JsonValue; role: string; input_ref?: BlobRef },
): Promise<AgentRunResult | typeof NEEDS_CHILD> {
  checkInputLength(agent, spec.input);
  const { cfg, opts, acts, limits, counters, usage, warnings } = memberTurns(agent);
  let head: BlobRef | null = null;
  // A stored first message (a chat session's turn) replaces the rendered prompt, as options.input_ref does for agf.react.
  let append: AppendItem[] = spec.input_ref ? [{ ref: spec.input_ref }] : [{ message: { role: 'user', content: renderUserPrompt(spec.input, cfg.user_prompt_template) } }];
  let corrected = false;
  for (;;) {
    const blocked = turnBlocked(counters, limits);
    if (blocked) throw ApplicationFailure.nonRetryable(blocked, 'LimitExceeded');
    const turn = counters.turn;
    const out: ModelTurnOutput = await acts.modelTurn.executeWithOptions({ ...opts, summary: `${spec.role}: model ${agent.runtime.model.model_id}, turn ${turn + 1}` }, [
      {
        bundle,
        agent_id: spec.agent_id,
        head,
        turn,
        prefs: modelPrefs(agent, toolsExhausted(counters, limits), 0),
        append,
        ...(head === null ? { input: spec.input } : {}),
      },
    ]);
    countTurn(counters);
    addUsage(usage, out.usage);
    head = out.head;
    append = [];
    if (out.message.tool_calls?.length) return NEEDS_CHILD;
    const check = out.output_check ?? { ok: true as const, value: out.message.content ?? '' };
    if (check.ok) return { agent_id: spec.agent_id, output: check.value, usage, warnings };
    if (corrected) throw ApplicationFailure.nonRetryable(`final answer rejected after a correction turn: ${check.error}`, 'OutputSchemaError');
    corrected = true;
    warnings.push(`turn ${turn + 1}: ${check.error}; asked the model for a correction`);
    append = [{ message: { role: 'user', content: correctionMessage(check.error, agent.interface.output.schema) } }];
  }
}
