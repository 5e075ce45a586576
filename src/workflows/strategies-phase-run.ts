/**
 * What the phase-driven strategies (scattergather, mapreduce, adversarial) share inside a
 * strategies run: the run shell, the task text, agent-name resolution, one member turn (a member
 * run through the shell's runMember, like every routing-strategy turn) and the progress shown by
 * `loom status` and the Web UI's Current Details (strategy, phase, round, participants).
 */
import type { JsonObject, JsonValue } from '../compiler/types';
import type { RunAgentInput } from '../shared/contract';
import { WORKFLOW_TYPES } from '../shared/dispatch';
import { textOf } from '../shared/expr';
import type { OrchestratorRun } from './orchestrator';
import { failureMessage } from './shell/failures';

export interface PhaseCtx {
  run: OrchestratorRun;
  input: RunAgentInput;
  /** Strategy name (`Selection.Type`, or `<parent>/<sub-graph kind>` for a sub-graph). */
  strategy: string;
  agentIdOf(name: string): string;
}

export interface MemberReply { agent: string; text: string; output: JsonValue }

/**
 * One member run of agent `name` with `input` as its only user message. No run options, so the
 * member sees nothing else (the context firewall and "no cross-item history" rely on this). Turns
 * run the agent's react loop (agfReactWorkflow), like routing-strategy turns; `inline` (the
 * Mapper) instead runs the agent as itself, and a single-turn one as model activities of this
 * workflow (shell/inline-member.ts), as agf.batch does with its items.
 */
export async function memberTurn(ctx: PhaseCtx, name: string, role: string, input: string, opts: { inline?: boolean } = {}): Promise<MemberReply> {
  try {
    const res = await ctx.run.runMember({ agent_id: ctx.agentIdOf(name), input, role, ...(opts.inline ? { inline: true } : { workflowType: WORKFLOW_TYPES['agf.react'] }) });
    return { agent: name, text: textOf(res.output), output: res.output };
  } catch (err) {
    throw ctx.run.fail(`${ctx.strategy}: agent '${name}' (${ctx.agentIdOf(name)}, ${role}) failed: ${failureMessage(err)}`, 'NodeFailed', ctx.run.status.progress);
  }
}

/** Status progress and Current Details: `phase` plus what the strategy adds (round, participants, items). */
export function reportPhase(ctx: PhaseCtx, phase: string, what: string, extra: JsonObject = {}): void {
  ctx.run.status.progress = { strategy: ctx.strategy, phase, ...extra };
  ctx.run.details(`${ctx.strategy} ${phase}: ${what}`);
}
