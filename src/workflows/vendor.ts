/**
 * `x-<vendor>.*` execution policies (the Agent Format's "Registering Custom Policies"). A vendor's
 * policy is code its worker registers: AgentloomPlugin's `policies` option (`{ id: module }`: the
 * plugin bundles the module and registers its exported function under the id), or `registerPolicy(id,
 * fn)` at module load in the workflows module the worker bundles. `vendorPolicyWorkflow` dispatches
 * on the agent's execution_policy.id; a policy the worker does not register fails the run with a
 * non-retryable UnsupportedPolicy naming the id and the registered ones.
 *
 * The core registers no vendor policy. The example one, `x-agentloom.fallback` (try local_agents in
 * order, return the first that succeeds), lives in examples/orchestrators/vendor/fallback-policy.ts;
 * a thin compat copy of it stays here, run only when the worker registers no `x-agentloom.fallback`
 * of its own, so that runs started before it moved out (and their recorded histories) still finish
 * and replay with the same commands.
 */
import type { JsonObject } from '../compiled/types';
import type { AgentRunResult, RunAgentInput } from '../shared/contract';
import { LoadedAgent, OrchestratorRun } from './orchestrator';
import { failureMessage } from './shell/failures';

/** A vendor policy body: runs inside vendorPolicyWorkflow with the shared run helpers. */
export type VendorPolicyFn = (input: RunAgentInput, ctx: { agent: LoadedAgent; config: JsonObject; run: OrchestratorRun }) => Promise<AgentRunResult>;

const registry = new Map<string, VendorPolicyFn>();

/** Register an `x-<vendor>.<name>` policy (call at module load, before any workflow runs). */
export function registerPolicy(id: string, fn: VendorPolicyFn): void {
  if (!/^x-[a-z0-9][a-z0-9-]*\.[A-Za-z0-9_.-]+$/.test(id)) {
    throw new Error(`vendor policy ids look like x-<vendor>.<name> (got '${id}')`);
  }
  registry.set(id, fn);
}

export function registeredPolicies(): string[] {
  return [...registry.keys()].sort();
}

export async function vendorPolicyWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const run = new OrchestratorRun(input, 'vendor');
  const agent = await run.init();
  const id = agent.execution_policy?.id ?? '(none)';
  run.status.pattern = id;
  const fn = registry.get(id) ?? COMPAT_POLICIES.get(id);
  if (!fn) {
    throw run.fail(
      `execution policy '${id}' is not implemented by this worker (registered vendor policies: ${registeredPolicies().join(', ') || 'none'})`,
      'UnsupportedPolicy',
    );
  }
  return fn(input, { agent, config: (agent.execution_policy.config ?? {}) as JsonObject, run });
}

// ---------------------------------------------------------------------------------------------
// Compat: the example policy x-agentloom.fallback, which the core registered until it moved to
// examples/orchestrators/vendor/fallback-policy.ts. Kept with the same commands for runs started
// before the move; not listed by registeredPolicies(), and a worker's own registration wins.
// ---------------------------------------------------------------------------------------------

const COMPAT_POLICIES = new Map<string, VendorPolicyFn>();

COMPAT_POLICIES.set('x-agentloom.fallback', async (input, { agent, config, run }) => {
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
      errors.push(`${alias}: ${failureMessage(err)}`);
    }
  }
  throw run.fail(`x-agentloom.fallback: every agent failed (${errors.join('; ')})`, 'AllFailed');
});
