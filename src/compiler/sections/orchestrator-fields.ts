/**
 * What a definition declares is what runs, orchestrators included. An agent whose own model turn
 * never runs — a multi-agent Agent Format execution policy (agf.sequential, agf.parallel, agf.loop,
 * agf.conditional, agf.batch) or a workflow, steps or strategies pattern — calls no model and no
 * tool itself. Each field that governs model turns or tool calls is, on such an agent, either
 * handed down to every agent it drives (a ceiling, or a default the member's own value overrides;
 * ../inheritance.ts merges it into the members' compiled entries of the bundle), or a diagnostic
 * that names the field and why it cannot apply there (AGF190, or AGL052 for an unused grant). Graph and swarm orchestrators run
 * their own turn (`$self`, the first speaker), so their fields apply as on any agent.
 */
import type { PathPart } from '../source';
import type { Inheritance } from '../inheritance';
import { isFuseraftGraph } from '../strategies';
import { asArr, asNum, asObj, asStr, isObj, type Obj } from '../values';
import type { AgentBuild, Ctx } from './context';

const MEMBER_POLICIES = ['agf.sequential', 'agf.parallel', 'agf.loop', 'agf.conditional', 'agf.batch'];
const MEMBER_PATTERNS = ['workflow', 'steps', 'strategies'];

/**
 * What makes `d` an orchestrator whose own model turn never runs (`execution_policy agf.sequential`,
 * `orchestration.pattern workflow`), or undefined. A pattern wins over a policy (AGL018).
 */
export function membersOnly(d: Obj): string | undefined {
  const orch = asObj(d.orchestration);
  if (orch.pattern !== undefined) {
    const p = asObj(orch.pattern);
    const type = asStr(p.type);
    if (type === 'graph' && isFuseraftGraph(p)) return 'fuseraft\'s strategies (`orchestration.pattern`)';
    return type && MEMBER_PATTERNS.includes(type) ? `\`orchestration.pattern\` type ${type}` : undefined;
  }
  const id = isObj(d.execution_policy) ? asStr(d.execution_policy.id) : undefined;
  return id && MEMBER_POLICIES.includes(id) ? `\`execution_policy\` ${id}` : undefined;
}

/**
 * The fields that cannot apply to an orchestrator that runs no model turn, with what to do instead.
 * A setting that shapes its own model turns (tool_choice, retrieval, sampling, output tokens) asks
 * for a behaviour that cannot happen: an error (AGF190). A grant its own turn would use (tools,
 * knowledge, delegates) lets nothing run that was not declared and is simply never used: a warning
 * (AGL052).
 */
const NOT_APPLICABLE: { path: PathPart[]; applies: (v: unknown) => boolean; grant?: true; why: string }[] = [
  { path: ['tools', 'refs'], applies: (v) => asArr(v).length > 0, grant: true, why: 'its tools are offered to its own model turn only, so none of them is ever called; declare them on the members that call them' },
  { path: ['tools', 'tool_choice'], applies: (v) => v === 'none' || v === 'required', why: 'it steers its own model turn\'s tool use; set it on the members (`auto`, the default, is accepted)' },
  { path: ['knowledge', 'refs'], applies: (v) => asArr(v).length > 0, grant: true, why: 'knowledge is searched by and given to its own model turn only, so no member reads it; declare it on the members that answer from it' },
  { path: ['knowledge', 'retrieval'], applies: (v) => v !== undefined, why: 'retrieval settings apply to its own knowledge searches; set them on the members' },
  { path: ['runtime', 'temperature'], applies: (v) => v !== undefined, why: 'it is a sampling setting of its own model turns (each member\'s model has its own range); set it on the members' },
  { path: ['runtime', 'top_p'], applies: (v) => v !== undefined, why: 'it is a sampling setting of its own model turns; set it on the members' },
  { path: ['runtime', 'reasoning_effort'], applies: (v) => v !== undefined, why: 'it is a hint to its own model turns; set it on the members' },
  { path: ['runtime', 'max_output_tokens'], applies: (v) => v !== undefined, why: 'it caps its own model replies; set it on the members' },
  { path: ['orchestration', 'can_delegate'], applies: (v) => v === true, grant: true, why: 'it delegates from its own model turn only, so it never delegates (`false` is a ceiling: then no member delegates); set it on the members that delegate' },
  { path: ['orchestration', 'allowed_delegates'], applies: (v) => asArr(v).length > 0, grant: true, why: 'its delegates are offered to its own model turn only; list them on the members that delegate' },
];

function at(d: Obj, path: PathPart[]): unknown {
  let cur: unknown = d;
  for (const k of path) cur = isObj(cur) ? cur[k as string] : undefined;
  return cur;
}

export function compileOrchestratorFields(ctx: Ctx, b: AgentBuild): void {
  const d = b.d;
  const kind = membersOnly(d);
  if (!kind) return;
  for (const f of NOT_APPLICABLE) {
    if (!f.applies(at(d, f.path))) continue;
    const message = `\`${f.path.join('.')}\` cannot apply to this agent: it runs ${kind}, so its own model turn never runs and ${f.why}`;
    if (f.grant) ctx.warn(f.path, 'AGL052', message);
    else ctx.err(f.path, 'AGF190', message);
  }
  const pol = asObj(d.policies);
  const rt = asObj(d.runtime);
  const tc = asObj(asObj(d.guardrails).tool_calls);
  const inh: Inheritance = { from: b.agentId };
  if (pol.require_human_approval === true) inh.require_human_approval = true;
  if (typeof pol.allow_external_http === 'boolean') inh.allow_external_http = pol.allow_external_http;
  if (Array.isArray(pol.allowed_connectors)) inh.allowed_connectors = pol.allowed_connectors.filter((c): c is string => typeof c === 'string');
  const maxTurns = asNum(rt.max_turns);
  if (maxTurns !== undefined) inh.max_turns = maxTurns;
  const maxCalls = asNum(rt.max_tool_calls);
  if (maxCalls !== undefined) inh.max_tool_calls = maxCalls;
  if (isObj(rt.retry_policy)) {
    const rp = rt.retry_policy;
    inh.retry_policy = { max_attempts: asNum(rp.max_attempts) ?? 1, backoff_seconds: asNum(rp.backoff_seconds) ?? 0 };
  }
  if (b.fallback) inh.fallback_model = b.fallback;
  if (b.guardrails.tool_input.length) inh.tool_input = b.guardrails.tool_input;
  if (b.guardrails.tool_output.length) inh.tool_output = b.guardrails.tool_output;
  if (b.confirmTools.length) inh.require_user_confirmation_for = b.confirmTools;
  if (tc.block_tools_on_input_fail === true) inh.block_tools_on_input_fail = true;
  if (asObj(d.orchestration).can_delegate === false) inh.can_delegate = false;
  if (Object.keys(inh).length > 1) b.inherit = inh;
}
