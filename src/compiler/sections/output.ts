/** The compiled agent, assembled from the normalized front matter and what each section resolved (keys in their canonical order). */
import type { CompiledAgent, CompiledModel, JsonValue } from '../../compiled/types';
import { compiledTenant } from '../tenant';
import { asArr, asNum, asObj, asStr, isObj, json, jsonObj, strip, type Obj } from '../values';
import type { AgentBuild, Ctx } from './context';

function runtimeOut(b: AgentBuild): CompiledAgent['runtime'] {
  const rt = asObj(b.d.runtime);
  const retry = asObj(rt.retry_policy);
  return strip({
    model: b.model ?? ({ model_id: asStr(rt.model) ?? '', version: '0.0.0', status: 'draft', provider: 'scripted' } as CompiledModel),
    fallback_model: b.fallback,
    reasoning_effort: rt.reasoning_effort as 'low' | 'medium' | 'high' | undefined,
    temperature: asNum(rt.temperature), top_p: asNum(rt.top_p), timeout_seconds: asNum(rt.timeout_seconds), max_input_chars: asNum(rt.max_input_chars),
    max_output_tokens: asNum(rt.max_output_tokens), max_turns: asNum(rt.max_turns), max_tool_calls: asNum(rt.max_tool_calls),
    execution_loop: rt.execution_loop === 'dependencies' || rt.execution_loop === 'turn' ? rt.execution_loop : undefined,
    retry_policy: isObj(rt.retry_policy) ? { max_attempts: asNum(retry.max_attempts) ?? 1, backoff_seconds: asNum(retry.backoff_seconds) ?? 0 } : undefined,
  } as CompiledAgent['runtime'] & Obj);
}

function interfaceOut(b: AgentBuild): CompiledAgent['interface'] {
  const itf = asObj(b.d.interface);
  const output = asObj(itf.output);
  const examples = asArr(asObj(itf.input).examples);
  return {
    input: { schema: jsonObj(asObj(itf.input).schema), examples: json(examples) as JsonValue[], ...(Object.keys(b.fileFields).length ? { file_fields: b.fileFields } : {}) },
    output: strip({ schema: jsonObj(output.schema), render: isObj(output.render) ? jsonObj(output.render) : undefined, provenance: isObj(output.provenance) ? (json(asObj(output.provenance)) as { citations_required?: boolean }) : undefined }),
  };
}

function policiesOut(b: AgentBuild): CompiledAgent['policies'] {
  const pol = asObj(b.d.policies);
  return strip({
    pii_redaction: pol.pii_redaction === true, allow_external_http: pol.allow_external_http === true, require_human_approval: pol.require_human_approval === true,
    blocked_content: asArr(pol.blocked_content).filter((x): x is string => typeof x === 'string'),
    allowed_connectors: asArr(pol.allowed_connectors).filter((x): x is string => typeof x === 'string'),
    data_residency: asStr(pol.data_residency),
    audit_level: (pol.audit_level === 'none' || pol.audit_level === 'full' ? pol.audit_level : 'standard'),
    runtime_pass: pol.pii_redaction === true || asArr(pol.blocked_content).length > 0 ? true : undefined,
    audit_trail: pol.audit_level === 'standard' || pol.audit_level === 'full' ? true : undefined,
  } as CompiledAgent['policies'] & Obj);
}

export function assembleAgent(ctx: Ctx, b: AgentBuild): Omit<CompiledAgent, 'content_hash'> {
  const d = b.d;
  const meta = asObj(d.meta);
  const art = asObj(d.artifacts);
  const rc = art.retention_class;
  const orch = asObj(d.orchestration);
  const tcalls = asObj(asObj(d.guardrails).tool_calls);
  const ksec = asObj(d.knowledge);
  return strip({
    agent_id: b.agentId,
    version: asStr(d.version) ?? '0.0.0',
    spec_version: asStr(d.spec_version) ?? '',
    status: b.status,
    meta: strip({ name: asStr(meta.name) ?? b.agentId, category: asStr(meta.category), description: asStr(meta.description), owner: asStr(meta.owner), tags: Array.isArray(meta.tags) ? (json(meta.tags) as string[]) : undefined }),
    instructions: b.instructions,
    sections: b.bodySections,
    runtime: runtimeOut(b),
    interface: interfaceOut(b),
    tools: { tool_choice: b.toolChoice, refs: b.toolRefs },
    knowledge: strip({ refs: b.kbRefs, retrieval: isObj(ksec.retrieval) ? jsonObj(ksec.retrieval) : undefined }),
    memory: { mode: b.memoryMode, read_collections: b.readCollections, write_collections: b.writeCollections },
    state: isObj(d.state) ? (json(asObj(d.state)) as CompiledAgent['state']) : undefined,
    artifacts: {
      enabled: art.enabled === true, save_input: art.save_input === true, save_output: art.save_output === true, save_intermediate: art.save_intermediate === true,
      retention_class: (rc === 'extended' || rc === 'ephemeral' || rc === 'restricted' ? rc : 'standard'),
    },
    policies: policiesOut(b),
    role: b.role,
    guardrails: { ...b.guardrails, tool_calls: { require_user_confirmation_for: b.confirmTools, block_tools_on_input_fail: tcalls.block_tools_on_input_fail === true } },
    observability: isObj(d.observability) ? jsonObj(d.observability) : undefined,
    routing: isObj(d.routing) ? (json(asObj(d.routing)) as CompiledAgent['routing']) : undefined,
    tenant: ctx.reg.tenant ? compiledTenant(ctx.reg.tenant, b.credentialRefs.map((r) => r.ref)) : undefined,
    orchestration: strip({ can_delegate: orch.can_delegate === true, allowed_delegates: b.delegates, can_be_invoked_as_tool: orch.can_be_invoked_as_tool === true, escalation: b.escalation, pattern: b.pattern }),
    execution_policy: b.executionPolicy,
    local_agents: [...b.aliases.entries()].map(([alias, agent_ref]) => ({ alias, agent_ref })),
    tool_manifest: b.toolManifest,
  } as Omit<CompiledAgent, 'content_hash'> & Obj);
}

/**
 * The agents of the graph nodes' inline nested patterns: each is the owner (its model, tools,
 * policies, guardrails, instructions) with the nested pattern as its own, no escalation rules (a
 * failed nested pattern is a failed node of the enclosing graph, whose rules apply) and an open
 * interface (it gets the node's input and gives the node's output, which the enclosing graph's
 * edges and nodes read, so the owner's final-answer schemas do not apply to it).
 */
export function inlinePatternAgents(owner: Omit<CompiledAgent, 'content_hash'>, b: AgentBuild): Omit<CompiledAgent, 'content_hash'>[] {
  return b.inlinePatterns.map(({ agent_id, node, pattern }) => ({
    ...owner,
    agent_id,
    meta: { ...owner.meta, name: `${owner.meta.name} / ${node}`, description: `The nested pattern of graph node \`${node}\` of ${owner.agent_id}.` },
    interface: { input: { schema: {}, examples: [] }, output: { schema: {} } },
    orchestration: { ...owner.orchestration, escalation: [], pattern },
  }));
}
