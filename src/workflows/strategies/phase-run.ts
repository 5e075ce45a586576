/**
 * What the phase-driven strategies (scattergather, mapreduce, adversarial) share inside a
 * strategies run: the run shell, the task text, agent-name resolution, one member turn (a member
 * run through the shell's runMember, like every routing-strategy turn) and the progress shown by
 * `loom status` and the Web UI's Current Details (strategy, phase, round, participants).
 */
import { patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { STRATEGY_MODEL_ACTIVITY } from '../activity-options';
import type { Activities } from '../../activities';
import type { JsonObject, JsonValue } from '../../compiled/types';
import type { RunAgentInput } from '../../shared/contract';
import { WORKFLOW_TYPES } from '../../shared/dispatch';
import { textOf } from '../../shared/expr';
import type { OrchestratorRun } from '../orchestrator';
import { failureMessage } from '../shell/failures';
import { strategyDetailsTail } from '../../strategies/status';
import { PATCHES } from '../patches';
import { historyFull as historyPastLimit } from '../shell/continue-as-new';

export interface PhaseCtx {
  run: OrchestratorRun;
  input: RunAgentInput;
  /** Strategy name (`Selection.Type`, or `<parent>/<sub-graph kind>` for a sub-graph). */
  strategy: string;
  agentIdOf(name: string): string;
  /** The run's shared workspace (runs started on patch phases-workspace); members' file and shell tools use it. */
  workspace?: string;
}

const acts = proxyActivities<Activities>(STRATEGY_MODEL_ACTIVITY);

/**
 * The shared workspace of a phase-strategy run: runs started on patch
 * `phases-workspace` resolve it by activity (options.workspace, else the run's own under LOOM_HOME,
 * the one the routing strategies use); older runs give their members none, as before.
 */
export async function phaseWorkspace(input: RunAgentInput): Promise<string | undefined> {
  if (!patched(PATCHES.phasesWorkspace.id)) return undefined;
  return acts.strategyWorkspace({ workflow_id: workflowInfo().workflowId, ...(input.options?.workspace ? { workspace: input.options.workspace } : {}) });
}

/** Scatter-gather: one copy of the shared workspace per participant role, made by one activity. */
export async function workspaceSnapshots(ctx: PhaseCtx, roles: string[]): Promise<(string | undefined)[]> {
  if (!ctx.workspace) return roles.map(() => undefined);
  return acts.strategyWorkspaceSnapshots({ workspace: ctx.workspace, roles });
}

/** `messages`: a sub-graph's messages before its terminal reply, in order (streamed to the parent's shared history). */
export interface MemberReply { agent: string; text: string; output: JsonValue; messages?: { agent: string; text: string }[] }

/**
 * One member run of agent `name` with `input` as its only user message. No run options, so the
 * member sees nothing else (the context firewall and "no cross-item history" rely on this). Turns
 * run the agent's react loop (agfReactWorkflow), like routing-strategy turns; `inline` (the
 * Mapper) instead runs the agent as itself, and a single-turn one as model activities of this
 * workflow (shell/inline-member.ts), as agf.batch does with its items.
 */
export async function memberTurn(ctx: PhaseCtx, name: string, role: string, input: string, opts: { inline?: boolean; workspace?: string } = {}): Promise<MemberReply> {
  // The workspace is a directory for the member's tools, not model input (the firewall holds). The
  // inline Mapper gets none: a run option would stop it running inline.
  const workspace = opts.inline ? undefined : opts.workspace ?? ctx.workspace;
  try {
    const res = await ctx.run.runMember({
      agent_id: ctx.agentIdOf(name), input, role, ...(opts.inline ? { inline: true } : { workflowType: WORKFLOW_TYPES['agf.react'] }),
      ...(workspace ? { options: { workspace } } : {}),
    });
    return { agent: name, text: textOf(res.output), output: res.output };
  } catch (err) {
    throw ctx.run.fail(`${ctx.strategy}: agent '${name}' (${ctx.agentIdOf(name)}, ${role}) failed: ${failureMessage(err)}`, 'NodeFailed', ctx.run.status.progress);
  }
}

/** Status progress and Current Details: `phase` plus what the strategy adds (round, participants, items). */
export function reportPhase(ctx: PhaseCtx, phase: string, what: string, extra: JsonObject = {}): void {
  ctx.run.status.progress = { strategy: ctx.strategy, phase, ...extra };
  // Current Details is user metadata (not a command): the round and participants ride along.
  const tail = strategyDetailsTail(ctx.run.status.progress);
  ctx.run.details(`${ctx.strategy} ${phase}: ${what}${tail ? ` (${tail})` : ''}`);
}

/**
 * `llm` and `magentic` runs continue-as-new like the routing strategies (runs started on patch
 * `phases-continue-as-new`; older runs keep one execution): the loop's state, its transcript of
 * turns included, is carried under `carried.phases`. Decided once, at the start of each execution.
 */
export function phaseCarry<T>(ctx: PhaseCtx): { carried: T | undefined; enabled: boolean } {
  const carried = (ctx.input.carried as { phases?: T } | undefined)?.phases;
  // A continued run is on the patch by construction; a literal id: the compat guard scans for it.
  return { carried, enabled: carried !== undefined || patched(PATCHES.phasesContinueAsNew.id) };
}

/** Temporal suggests continue-as-new, or history is past `options.scale.loop_history_events`. */
export function historyFull(ctx: PhaseCtx): boolean {
  return historyPastLimit(ctx.input.options?.scale?.loop_history_events);
}

/** Continue-as-new carrying `state` (the run shell adds usage, warnings, pause and pending decisions). */
export async function continuePhases(ctx: PhaseCtx, state: object, what: string): Promise<never> {
  ctx.run.details(`${ctx.strategy}: continue-as-new ${what}`);
  return ctx.run.continueAsNew({ phases: state as JsonObject });
}
