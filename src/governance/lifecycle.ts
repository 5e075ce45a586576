/**
 * The agent lifecycle (the Agent Definition Specification's `status`: draft | active | deprecated | disabled) at run time:
 * a draft root agent runs only when the run asks for it (`loom run --allow-draft`, RunOptions
 * .allow_draft), a disabled agent never runs, a deprecated one runs with a warning. Checked by
 * `loom run` before anything starts and again by the loadAgent activity of a root run (so a run
 * started through the API is refused too). A member (any agent an orchestrator, a delegation or an
 * agent tool loads) is held to the same rule except for drafts: its root was allowed to run, and a
 * draft root's members are drafts too. Pure: no Temporal import; unit tested.
 */

export interface LifecycleAgent {
  agent_id: string;
  version: string;
  status?: string;
}

/** Why this agent may not run as a root, or undefined when it may. */
export function lifecycleRefusal(agent: LifecycleAgent, opts: { allow_draft?: boolean } = {}): string | undefined {
  if (agent.status === 'disabled') {
    return `${agent.agent_id} v${agent.version} has status: disabled and cannot be run: set status: active (or deprecated) in its definition and publish it`;
  }
  if (agent.status === 'draft' && opts.allow_draft !== true) {
    return `${agent.agent_id} v${agent.version} has status: draft: drafts are not runnable by default; pass --allow-draft to loom run or loom start (RunOptions.allow_draft: true) to try it, or set status: active`;
  }
  return undefined;
}

/** The warning a run of this agent carries (deprecated, or a draft run on purpose), if any. */
export function lifecycleWarning(agent: LifecycleAgent): string | undefined {
  if (agent.status === 'deprecated') return `${agent.agent_id} v${agent.version} is deprecated: it still runs, but is hidden for new use; move to its successor`;
  if (agent.status === 'draft') return `${agent.agent_id} v${agent.version} is a draft, run with --allow-draft`;
  return undefined;
}

/** Why this agent may not run as a member of another run (only `disabled`), or undefined. */
export function memberRefusal(agent: LifecycleAgent): string | undefined {
  if (agent.status !== 'disabled') return undefined;
  return `member ${agent.agent_id} v${agent.version} has status: disabled and cannot be run: set status: active (or deprecated) in its definition and publish it, or remove it from the team`;
}

/** The warning a member run carries: only `deprecated` (a draft member runs under a root that was allowed to). */
export function memberWarning(agent: LifecycleAgent): string | undefined {
  return agent.status === 'deprecated' ? lifecycleWarning(agent) : undefined;
}
