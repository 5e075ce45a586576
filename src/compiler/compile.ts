/**
 * Agent compilation: normalize the front matter, compile it section by section (each section's
 * module under sections/ adds its diagnostics, in file order, and fills its part of the agent being
 * built), then assemble the CompiledAgent.
 */
import type { CompiledAgent, Diagnostic, JsonSchema } from '../compiled/types';
import type { Entry, Registry } from './registry';
import { AgentBuild, Ctx } from './sections/context';
import { applyTenantResidency, compileHeader, normalize } from './sections/header';
import { compileBody, lintMeta } from './sections/body';
import { compileRuntime } from './sections/runtime';
import { compileInterface } from './sections/interface';
import { compileRole } from './sections/role';
import { compileTools } from './sections/tools';
import { compileKnowledge } from './sections/knowledge';
import { compileMemory } from './sections/memory';
import { compileGovernancePolicies } from './sections/governance-policies';
import { compileGuardrails } from './sections/guardrails';
import { lintObservability } from './sections/observability';
import { compileExecutionPolicy, compileLocalAgents } from './sections/execution-policy';
import { compileOrchestration } from './sections/orchestration';
import { compileOrchestratorFields } from './sections/orchestrator-fields';
import type { Inheritance } from './inheritance';
import { compileCredentialRefs } from './sections/credentials';
import { compileToolManifest } from './sections/routing';
import { lintEphemeral } from './sections/artifacts';
import { checkStateBudget } from './sections/state';
import { assembleAgent, inlinePatternAgents } from './sections/output';

export { compileModel } from './compiled-entries';

export interface AgentResult {
  agent?: Omit<CompiledAgent, 'content_hash'>;
  diags: Diagnostic[];
  /** agent_ids this agent needs in its bundle. */
  needs: string[];
  /** registry entries read (their own file diagnostics belong to the bundle). */
  touched: Entry[];
  /** The agents of its graph nodes' inline nested patterns (they join the bundle with it). */
  inline?: Omit<CompiledAgent, 'content_hash'>[];
  /** What this agent hands down to the agents it drives, when its own model turn never runs. */
  inherit?: Inheritance;
}

/**
 * The sections in the order they are compiled: the order of the diagnostics, and each section may
 * read what an earlier one resolved (the tools read the role; residency the model and the tools;
 * escalation the guardrails and the pattern; an orchestrator's inherited fields the runtime, guardrails
 * and pattern; the ephemeral lint the collections, tools and escalation).
 */
const SECTIONS: ((ctx: Ctx, b: AgentBuild) => void)[] = [
  compileBody, lintMeta, compileRuntime, compileInterface, compileRole, compileTools, compileKnowledge, compileMemory,
  compileGovernancePolicies, compileGuardrails, lintObservability, compileLocalAgents, compileExecutionPolicy,
  compileOrchestration, compileOrchestratorFields, compileCredentialRefs, compileToolManifest, lintEphemeral, checkStateBudget,
];

export function compileAgentEntry(reg: Registry, entry: Entry): AgentResult {
  const src = entry.src;
  if (!src?.data) return { diags: [], needs: [], touched: [] };
  const ctx = new Ctx(src, reg, {});
  const d = normalize(ctx, src.data);
  ctx.data = d;
  applyTenantResidency(reg, d);
  compileHeader(ctx, d, entry);
  const b = new AgentBuild(d, entry.id);
  for (const section of SECTIONS) section(ctx, b);
  const agent = assembleAgent(ctx, b);
  const inline = inlinePatternAgents(agent, b);
  return { agent, diags: ctx.diags, needs: [...ctx.needs].sort(), touched: ctx.touched, ...(inline.length ? { inline } : {}), ...(b.inherit ? { inherit: b.inherit } : {}) };
}

export type { JsonSchema };
