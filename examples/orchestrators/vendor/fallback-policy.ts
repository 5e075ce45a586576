/**
 * A vendor execution policy written in code, `x-agentloom.fallback`: try the agent's local_agents
 * in declaration order (config.order may reorder them by alias) and return the first that succeeds.
 * The worker registers it through AgentloomPlugin:
 *
 *   new AgentloomPlugin({ policies: { 'x-agentloom.fallback': require.resolve('./fallback-policy') } })
 *
 * The plugin bundles this module with the workflows and registers its exported `policy` under the
 * id; the same plugin's `compile()` then accepts agents that name it (agents/fallback-chain.agent.md).
 * This is workflow code: deterministic, no I/O, only `import type` from the package.
 */
import type { VendorPolicyFn } from '@agentloom/core/workflows';

/** The message of a failed member run and of every cause under it. */
function reason(err: unknown): string {
  const parts: string[] = [];
  for (let e = err as { message?: string; cause?: unknown } | undefined; e && parts.length < 8; e = e.cause as typeof e) {
    const m = (e.message ?? '').trim();
    if (m && !parts.some((p) => p.includes(m))) parts.push(m);
  }
  return parts.join(': ') || String(err);
}

export const policy: VendorPolicyFn = async (input, { agent, config, run }) => {
  const aliases = Array.isArray(config.order) ? (config.order as string[]) : (agent.local_agents ?? []).map((l) => l.alias);
  if (!aliases.length) throw run.fail('x-agentloom.fallback needs local_agents (or config.order)', 'InvalidConfig');
  const errors: string[] = [];
  for (const [i, alias] of aliases.entries()) {
    run.status.step = i + 1;
    run.status.progress = { trying: alias, attempt: i + 1, of: aliases.length };
    try {
      const res = await run.runMember({ agent_id: run.agentIdFor(alias), input: input.input, role: `try-${i + 1}-${alias}` });
      if (errors.length) run.warn(`x-agentloom.fallback: ${errors.length} agent(s) failed before '${alias}' answered`);
      return run.complete(res.output);
    } catch (err) {
      errors.push(`${alias}: ${reason(err)}`);
    }
  }
  throw run.fail(`x-agentloom.fallback: every agent failed (${errors.join('; ')})`, 'AllFailed');
};
