/**
 * What an orchestrator whose own model turn never runs (a multi-agent Agent Format execution policy,
 * or a workflow, steps or strategies pattern) hands down to the agents it drives. Such an agent
 * runs no model and calls no tool itself, so a field that governs model turns or tool calls either
 * reaches every agent below it (a ceiling, or a default the member's own value overrides) or is a
 * compile error naming why it cannot apply (sections/orchestrator-fields.ts).
 *
 * The ceilings are merged at compile time into each member's compiled entry in the orchestrator's
 * bundle (members load from that bundle, so no workflow changes): an agent reached through
 * several such orchestrators of one bundle gets the strictest combination of their ceilings, and
 * the default of the nearest one. Pure.
 */
import type { CompiledAgent, CompiledGuardrail, CompiledModel, CompiledRuntime } from '../compiled/types';
import { withinResidency } from '../governance/residency';

/** What a members-only orchestrator hands down: each field only when the orchestrator declares it. */
export interface Inheritance {
  /** The orchestrator's agent_id (named in the bundle diagnostics). */
  from: string;
  /** policies.require_human_approval: true — every member's tool call waits for a human. */
  require_human_approval?: true;
  /** policies.allow_external_http as declared: a member may reach external hosts only if both allow it. */
  allow_external_http?: boolean;
  /** policies.allowed_connectors as declared: a member keeps only the connectors both lists name. */
  allowed_connectors?: string[];
  /** runtime.max_turns: no member run takes more model turns than this. */
  max_turns?: number;
  /** runtime.max_tool_calls: no member run makes more tool calls than this. */
  max_tool_calls?: number;
  /** runtime.retry_policy: the default of members that declare none. */
  retry_policy?: CompiledRuntime['retry_policy'];
  /** runtime.fallback_model: the default of members that declare none. */
  fallback_model?: CompiledModel;
  /** guardrails.tool_input / tool_output: run on every member's tool calls, after the member's own. */
  tool_input?: CompiledGuardrail[];
  tool_output?: CompiledGuardrail[];
  /** guardrails.tool_calls.require_user_confirmation_for: those tools wait for a human in every member that has them. */
  require_user_confirmation_for?: string[];
  /** guardrails.tool_calls.block_tools_on_input_fail: true in every member. */
  block_tools_on_input_fail?: true;
  /** orchestration.can_delegate: false — no member delegates. */
  can_delegate?: false;
}

type Agent = Omit<CompiledAgent, 'content_hash'>;

/** Guardrails `extra` appended to `own`, each ref once (the member's own setting of a ref wins). */
function withGuardrails(own: CompiledGuardrail[], extra: CompiledGuardrail[] | undefined): CompiledGuardrail[] {
  if (!extra?.length) return own;
  const refs = new Set(own.map((g) => g.ref));
  return [...own, ...extra.filter((g) => !refs.has(g.ref))];
}

/**
 * `member` under the ceilings and defaults of `inh`: a new object (the member's own compiled entry
 * is shared by every bundle that holds it and is never changed), or `member` itself when nothing
 * changes.
 */
export function inherit(member: Agent, inh: Inheritance, problems: string[] = []): Agent {
  const p = member.policies;
  const fb = inh.fallback_model;
  if (fb && !member.runtime.fallback_model && p.data_residency && fb.region && !withinResidency(fb.region, p.data_residency)) {
    problems.push(`\`${member.agent_id}\` would inherit runtime.fallback_model \`${fb.model_id}\` from \`${inh.from}\`, whose region \`${fb.region}\` is outside its policies.data_residency \`${p.data_residency}\`; give \`${member.agent_id}\` its own fallback_model or remove the orchestrator's`);
  }
  const policies = {
    ...p,
    ...(inh.require_human_approval ? { require_human_approval: true } : {}),
    ...(inh.allow_external_http !== undefined ? { allow_external_http: p.allow_external_http && inh.allow_external_http } : {}),
    ...(inh.allowed_connectors ? { allowed_connectors: p.allowed_connectors.filter((c) => inh.allowed_connectors!.includes(c)) } : {}),
  };
  const rt = member.runtime;
  const runtime: CompiledRuntime = {
    ...rt,
    ...(inh.max_turns !== undefined ? { max_turns: Math.min(rt.max_turns ?? Infinity, inh.max_turns) } : {}),
    ...(inh.max_tool_calls !== undefined ? { max_tool_calls: Math.min(rt.max_tool_calls ?? Infinity, inh.max_tool_calls) } : {}),
    ...(inh.retry_policy && !rt.retry_policy ? { retry_policy: inh.retry_policy } : {}),
    ...(inh.fallback_model && !rt.fallback_model ? { fallback_model: inh.fallback_model } : {}),
  };
  const g = member.guardrails;
  const tools = new Set(member.tools.refs.map((t) => t.tool_id));
  const confirm = [...g.tool_calls.require_user_confirmation_for];
  for (const t of inh.require_user_confirmation_for ?? []) if (tools.has(t) && !confirm.includes(t)) confirm.push(t);
  const guardrails = {
    ...g,
    tool_input: withGuardrails(g.tool_input, inh.tool_input),
    tool_output: withGuardrails(g.tool_output, inh.tool_output),
    tool_calls: { require_user_confirmation_for: confirm, block_tools_on_input_fail: g.tool_calls.block_tools_on_input_fail || inh.block_tools_on_input_fail === true },
  };
  const orchestration = inh.can_delegate === false && member.orchestration.can_delegate ? { ...member.orchestration, can_delegate: false } : member.orchestration;
  const next: Agent = { ...member, policies, runtime, guardrails, orchestration };
  return same(member, next) ? member : next;
}

function same(a: Agent, b: Agent): boolean {
  return JSON.stringify([a.policies, a.runtime, a.guardrails, a.orchestration]) === JSON.stringify([b.policies, b.runtime, b.guardrails, b.orchestration]);
}

/** Every agent reachable from `from` through `needs` (members, local agents, delegates, agent tools, escalation agents), `from` excluded. */
export function closure(from: string, needs: (id: string) => readonly string[]): string[] {
  const seen = new Set<string>([from]);
  const order: string[] = [];
  const queue = [...needs(from)];
  while (queue.length) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    order.push(id);
    queue.push(...needs(id));
  }
  return order;
}

/**
 * Every agent of a bundle under the inheritances of the orchestrators above it. `order` is the
 * bundle's agents nearest the root first; defaults are filled deepest orchestrator first, so the
 * nearest orchestrator's default wins (and a member's own value over both); ceilings combine to the
 * strictest whatever the order.
 */
export function applyInheritance(
  agents: Record<string, Agent>,
  order: readonly string[],
  inheritanceOf: (id: string) => Inheritance | undefined,
  needs: (id: string) => readonly string[],
  problems: { from: string; message: string }[] = [],
): Record<string, Agent> {
  const out = { ...agents };
  for (const orch of [...order].reverse()) {
    const inh = inheritanceOf(orch);
    if (!inh) continue;
    const found: string[] = [];
    for (const id of closure(orch, needs)) if (out[id]) out[id] = inherit(out[id], inh, found);
    problems.push(...found.map((message) => ({ from: orch, message })));
  }
  return out;
}
