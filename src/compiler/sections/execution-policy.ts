/**
 * The Agent Format's `local_agents` (aliases of registry agents) and `execution_policy`: the policy
 * id (a standard `agf.*` policy or a vendor `x-<vendor>.<name>`), and for a standard policy the
 * semantics of its config — aliases declared, path expressions that read only from the parent or an
 * earlier step, `output_from`, and the operators of `args_match` conditions.
 */
import type { ExecutionPolicy } from '../../compiled/types';
import type { PathPart } from '../source';
import { AGF_POLICIES, VENDOR_POLICY_RE } from '../schemas';
import { CONDITION_OPERATORS } from '../../shared/condition-operators';
import { editDistance } from '../../shared/edit-distance';
import { asArr, asObj, asStr, isObj, jsonObj, type Obj } from '../values';
import type { AgentBuild, Ctx } from './context';

const OUTPUT_KEYWORDS = ['last', 'merge', 'first'];

export function compileLocalAgents(ctx: Ctx, b: AgentBuild): void {
  asArr(b.d.local_agents).forEach((la, i) => {
    const lo = asObj(la);
    const alias = asStr(lo.alias);
    const ref = asStr(lo.agent_ref);
    if (!alias || !ref) return;
    if (OUTPUT_KEYWORDS.includes(alias)) ctx.err(['local_agents', i, 'alias'], 'AGF044', `alias \`${alias}\` is an output_from keyword (last, merge, first); choose another alias`);
    if (b.aliases.has(alias)) ctx.err(['local_agents', i, 'alias'], 'AGF043', `alias \`${alias}\` is declared twice; aliases must be unique`);
    b.aliases.set(alias, ref);
    if (!ctx.reg.entries.agent.has(ref)) ctx.err(['local_agents', i, 'agent_ref'], 'AGF045', `agent \`${ref}\` is not registered; create agents/${ref}.agent.md or fix \`agent_ref\``);
    else { ctx.needs.add(ref); ctx.disabledAgent(['local_agents', i, 'agent_ref'], ref, `local agent \`${alias}\``); }
  });
}

export function compileExecutionPolicy(ctx: Ctx, b: AgentBuild): void {
  const d = b.d;
  if (!isObj(d.execution_policy)) return; // absent: agf.react; another shape: the schema already reported it
  const ep = d.execution_policy;
  const id = asStr(ep.id);
  if (id === undefined) return;
  if (id.startsWith('agf.') && !AGF_POLICIES.includes(id)) ctx.err(['execution_policy', 'id'], 'AGF040', `unknown standard policy \`${id}\`; use one of ${AGF_POLICIES.join(', ')} or a vendor id \`x-<vendor>.<name>\``);
  else if (!id.startsWith('agf.') && !VENDOR_POLICY_RE.test(id)) ctx.err(['execution_policy', 'id'], 'AGF041', `policy id \`${id}\` is neither agf.* nor a vendor id; vendor ids look like \`x-<vendor>.<name>\` (e.g. \`x-contoso.custom-react\`)`);
  else if (!id.startsWith('agf.')) checkVendorPolicy(ctx, id);
  if (ep.config !== undefined && !isObj(ep.config)) ctx.err(['execution_policy', 'config'], 'AGF042', '`config` must be a mapping');
  b.executionPolicy = { id, config: jsonObj(ep.config) } as ExecutionPolicy;
  if (AGF_POLICIES.includes(id)) policySemantics(ctx, id, asObj(ep.config), b.aliases);
}

/**
 * A vendor policy is code the worker registers: where the compile knows the worker's policies
 * (ctx.reg.code) one it lacks is AGF193, naming the registered ones; elsewhere AGL061 defers the check to the run.
 */
function checkVendorPolicy(ctx: Ctx, id: string): void {
  const known = ctx.reg.code?.policies;
  if (!known) {
    ctx.warn(['execution_policy', 'id'], 'AGL061', `\`${id}\` is a vendor policy, code the worker registers: the worker's policies are not known here, so the run checks it when it starts (compile with the worker's policies — AgentloomPlugin.compile or AgentloomClient's \`code\` — to check it now)`);
    return;
  }
  if (!known.includes(id)) ctx.err(['execution_policy', 'id'], 'AGF193', `execution policy \`${id}\` is not registered by the worker; register it (AgentloomPlugin's \`policies\` or registerPolicy in the worker's workflows module) or use a standard agf.* policy (registered: ${[...known].sort().join(', ') || 'none'})`);
}

function policySemantics(ctx: Ctx, id: string, cfg: Obj, aliases: Map<string, string>): void {
  const base: PathPart[] = ['execution_policy', 'config'];
  const checkAlias = (p: PathPart[], a: unknown): void => {
    if (typeof a !== 'string') return;
    if (!aliases.has(a)) ctx.err(p, 'AGF046', `\`${a}\` is not a declared alias; add \`local_agents: [{alias: ${a}, agent_ref: <agent_id>}]\` or use one of: ${[...aliases.keys()].join(', ') || 'none declared'}`);
  };
  const checkPath = (p: PathPart[], expr: unknown, earlier: Set<string>, batch: boolean): void => {
    if (typeof expr !== 'string') return;
    const parts = expr.split('.');
    if (expr.includes('[]') && !batch) ctx.err(p, 'AGF047', `\`${expr}\` uses \`.[]\`, which is only valid in agf.batch input_mapping; map a single field instead`);
    if (parts.length < 3 || (parts[1] !== 'input' && parts[1] !== 'output') || parts.slice(2).some((x) => x === '')) {
      ctx.err(p, 'AGF048', `\`${expr}\` is not a path expression; write \`<source>.<input|output>.<field>\`, e.g. \`parent.input.topic\` or \`writer.output.draft\``);
      return;
    }
    const source = parts[0];
    if (source === 'parent') {
      if (parts[1] !== 'input') ctx.err(p, 'AGF048', `\`${expr}\`: the parent only has \`input\`; write \`parent.input.<field>\``);
      return;
    }
    if (parts[1] === 'input') {
      ctx.err(p, 'AGF048', `\`${expr}\`: a step's input is not available at run time; read the parent's input with \`parent.input.${parts.slice(2).join('.')}\` or the step's result with \`${source}.output.…\``);
      return;
    }
    if (!earlier.has(source)) ctx.err(p, 'AGF048', `\`${expr}\` reads from \`${source}\`, which is not \`parent\` or an alias of an earlier step; use ${['parent', ...earlier].map((x) => `\`${x}\``).join(', ')}`);
  };
  const mapping = (p: PathPart[], m: unknown, earlier: Set<string>, batch: boolean): void => {
    for (const [k, v] of Object.entries(asObj(m))) checkPath([...p, k], v, earlier, batch);
  };
  const condition = (p: PathPart[], c: unknown, known: Set<string>): void => {
    const groups = Array.isArray(c) ? c : [c];
    groups.forEach((g, gi) => {
      const gp = Array.isArray(c) ? [...p, gi, 'args_match'] : [...p, 'args_match'];
      for (const [k, v] of Object.entries(asObj(asObj(g).args_match))) {
        checkPath(gp, k, known, false);
        operatorCheck(ctx, [...gp, k], v);
      }
    });
  };
  const stepsOf = (field: 'steps' | 'agents', sequential: boolean): Set<string> => {
    const seen = new Set<string>();
    asArr(cfg[field]).forEach((s, i) => {
      const so = asObj(s);
      checkAlias([...base, field, i, 'agent'], so.agent);
      mapping([...base, field, i, 'input_mapping'], so.input_mapping, sequential ? seen : new Set(), false);
      if (typeof so.agent === 'string') seen.add(so.agent);
    });
    return seen;
  };
  const outputFrom = (declared: Set<string>): void => {
    const of = cfg.output_from;
    const a = typeof of === 'string' ? (OUTPUT_KEYWORDS.includes(of) ? undefined : of) : asStr(asObj(of).agent);
    if (a && !declared.has(a)) ctx.err([...base, 'output_from'], 'AGF046', `output_from \`${a}\` is not an alias used by this policy; use one of ${[...declared, ...OUTPUT_KEYWORDS].join(', ')}`);
  };
  if (id === 'agf.sequential') outputFrom(stepsOf('steps', true));
  else if (id === 'agf.parallel') outputFrom(stepsOf('agents', false));
  else if (id === 'agf.loop') {
    const all = stepsOf('steps', true);
    condition([...base, 'exit_condition'], cfg.exit_condition, all);
    outputFrom(all);
  } else if (id === 'agf.batch') {
    checkAlias([...base, 'agent'], cfg.agent);
    const m = asObj(cfg.input_mapping);
    mapping([...base, 'input_mapping'], m, new Set(), true);
    if (Object.keys(m).length && !Object.values(m).some((v) => typeof v === 'string' && v.includes('.[]')))
      ctx.err([...base, 'input_mapping'], 'AGF047', 'agf.batch input_mapping needs at least one field iterating an array with `.[]`, e.g. `item: "parent.input.items.[].value"`');
  } else if (id === 'agf.conditional') {
    asArr(cfg.routes).forEach((r, i) => {
      const ro = asObj(r);
      checkAlias([...base, 'routes', i, 'agent'], ro.agent);
      condition([...base, 'routes', i, 'when'], ro.when, new Set());
      mapping([...base, 'routes', i, 'input_mapping'], ro.input_mapping, new Set(), false);
    });
    if (cfg.default_agent !== undefined) checkAlias([...base, 'default_agent'], cfg.default_agent);
  }
}

const OPS = CONDITION_OPERATORS as readonly string[];
/** The operator a misspelled key most likely meant (`gtee` → `gte`, `notin` → `not_in`), if any. */
function nearOperator(k: string): string | undefined {
  if (k.length < 3) return undefined;
  const x = k.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const op of OPS) {
    const d = x.replace(/[-_]/g, '') === op.replace(/_/g, '') ? 0 : editDistance(x, op);
    if (d < bestD) { best = op; bestD = d; }
  }
  return best && bestD <= (best.length >= 6 ? 2 : 1) ? best : undefined;
}

/** AGF049: an args_match value that is (or tries to be) an operator object must be a valid one. */
function operatorCheck(ctx: Ctx, p: PathPart[], v: unknown): void {
  if (!isObj(v)) return;
  const keys = Object.keys(v);
  const ops = keys.filter((k) => OPS.includes(k));
  const others = keys.filter((k) => !OPS.includes(k));
  const known = `known operators: ${OPS.join(', ')}`;
  if (ops.length && others.length) {
    ctx.err(p, 'AGF049', `this value mixes operators (${ops.join(', ')}) with other keys (${others.join(', ')}); an operator object holds operators only (${known}) — to compare with a literal mapping write \`{eq: {...}}\``);
    return;
  }
  if (!ops.length) {
    for (const k of others) {
      const near = nearOperator(k);
      if (near) ctx.err([...p, k], 'AGF049', `unknown operator \`${k}\`; did you mean \`${near}\`? (${known}; to compare with a literal mapping write \`{eq: {...}}\`)`, true);
    }
    return;
  }
  for (const op of ['in', 'not_in']) {
    if (op in v && !Array.isArray(v[op])) ctx.err([...p, op], 'AGF049', `\`${op}\` needs a list of values, e.g. \`${op}: [a, b]\``);
  }
  if (typeof v.matches === 'string') {
    try { new RegExp(v.matches); } catch { ctx.err([...p, 'matches'], 'AGF049', '`matches` is not a valid regular expression; fix or escape it'); }
  } else if (v.matches !== undefined) ctx.err([...p, 'matches'], 'AGF049', '`matches` needs a regular expression string');
}
