/**
 * One member turn of a routing strategy. A turn that is one model call (its agent qualifies by
 * inlineMemberBlocker: no tools, approvals, deadline, guardrails or pattern of its own) runs inline
 * as model-turn activities of the strategy's workflow (patch `strategies-members-inline`), as
 * agf.batch members and chat session turns do; every other turn is a child agf.react run, as
 * before. Inline needs what the inline runner reads: a stored first message (runs on patch
 * `strategies-transcript-store`), no handoff tool (keyword, statemachine and graph speakers get
 * it), and an orchestrator with no deadline and no memory of its own (the run shell applies those
 * around a member's child run). A reply that asks for a tool after all drops the attempt and runs
 * the child from the start.
 */
import { patched } from '@temporalio/workflow';
import type { AgentRunResult } from '../../shared/contract';
import { WORKFLOW_TYPES } from '../../shared/dispatch';
import { inlineMemberBlocker } from '../../runtime/inline-member';
import { memoryUse } from '../../runtime/memory';
import { memberInputRefusal } from '../../orchestration/member-input';
import { NEEDS_CHILD, runInlineMember } from '../shell/inline-member';
import type { MemberSpec, OrchestratorRun } from '../orchestrator';
import { PATCHES } from '../patches';

/** Can a turn with these options run inline, whatever its agent? (Decided before the patch is asked.) */
export function inlineCandidate(run: OrchestratorRun, spec: MemberSpec): boolean {
  const o = spec.options ?? {};
  if (!o.input_ref || o.extra_tools?.length || spec.timeoutSeconds || spec.workflowType !== WORKFLOW_TYPES['agf.react']) return false;
  // The run shell's own deadline and memory context wrap a child member run; those runs keep it.
  if (run.agent.runtime.timeout_seconds) return false;
  const mem = memoryUse(run.agent.memory);
  return !mem.reads && !mem.writes;
}

/**
 * Run one member turn: inline when it qualifies (see the file comment), else through the shell's
 * runMember (a child workflow). The result, usage and warnings are the ones the child would give.
 */
export async function runMemberTurn(run: OrchestratorRun, spec: MemberSpec): Promise<AgentRunResult> {
  if (inlineCandidate(run, spec) && patched(PATCHES.strategiesMembersInline.id)) {
    await run.checkpoint();
    const member = await run.load(spec.agent_id);
    // Only the first message and the shared workspace are passed, and a tool-less member has no use for the workspace.
    const call = { workflowType: spec.workflowType!, ...(spec.timeoutSeconds ? { timeoutSeconds: spec.timeoutSeconds } : {}) };
    if (inlineMemberBlocker(member, call) === undefined && memberInputRefusal(member, spec.role, spec.input) === undefined) {
      const res = await runInlineMember(run.input.bundle, member, { agent_id: spec.agent_id, input: spec.input, role: spec.role, input_ref: spec.options!.input_ref });
      if (res !== NEEDS_CHILD) {
        run.addUsage(res.usage);
        for (const w of res.warnings ?? []) run.warn(`${spec.role}: ${w}`);
        return res;
      }
    }
  }
  return run.runMember(spec);
}
