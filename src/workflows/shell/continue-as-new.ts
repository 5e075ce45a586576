/**
 * Continue-as-new of a run: what the run shell carries into the next run (token usage, warnings, a
 * pause that still holds, the pending decisions of members still open) at the top level of the
 * input's `carried`, beside what the workflow itself carries, and the continue-as-new itself, once
 * every update handler has finished.
 *
 * And when to continue (historyFull): Temporal suggests it (the history nears its event-count or
 * size limit: `continueAsNewSuggested`), or the history holds more than `limit` events. Every
 * long-running workflow asks here: the agent run (every N turns too, for tests), agf.loop and
 * agf.batch, chat sessions, fuseraft's strategies, phases and map-reduce. The one limit:
 * HISTORY_EVENTS_LIMIT (4,000 events), used by the workflows that loop without a bound of their own
 * (agf.loop, chat sessions); the others continue when Temporal suggests it, or past
 * `options.scale.loop_history_events` when a run sets it (tests and benchmarks lower it). Asking
 * reads workflowInfo() only: it issues no command, so it never changes a history.
 */
import { allHandlersFinished, condition, continueAsNew, workflowInfo } from '@temporalio/workflow';
import type { JsonObject } from '../../compiled/types';
import type { AgentRunResult, RunAgentInput, TokenUsage } from '../../shared/contract';
import type { CarriedMemberDecisions } from '../../runtime/decisions';

/** The run shell's part of `carried`. */
export interface ShellCarried {
  usage?: TokenUsage;
  warnings?: string[];
  paused?: boolean;
  pending_members?: CarriedMemberDecisions[];
}

/** What the previous run carried for the shell (nothing on a first run). */
export function shellCarried(input: RunAgentInput): ShellCarried {
  return (input.carried ?? {}) as ShellCarried;
}

/** `extra` plus the shell's part: usage, warnings, a pause that holds in the next run, and the pending decisions of members still open. */
export function withShellCarried(extra: JsonObject, shell: { usage: TokenUsage; warnings: readonly string[]; paused: boolean; members: CarriedMemberDecisions[] }): JsonObject {
  return {
    ...extra,
    usage: { ...shell.usage } as unknown as JsonObject,
    warnings: [...shell.warnings],
    ...(shell.paused ? { paused: true } : {}),
    ...(shell.members.length ? { pending_members: shell.members as unknown as JsonObject } : {}),
  };
}

/** Continue-as-new once every update handler has finished, with what `carried` returns then. */
export async function continueRun(input: RunAgentInput, carried: () => JsonObject): Promise<never> {
  await condition(allHandlersFinished);
  return continueAsNew<(i: RunAgentInput) => Promise<AgentRunResult>>({ ...input, carried: carried() });
}

export const HISTORY_EVENTS_LIMIT = 4000;

export function historyFull(limit?: number): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || (limit !== undefined && info.historyLength > limit);
}
