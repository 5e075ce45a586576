/**
 * `guardrails`: each guardrail of each position resolved from the registry, its position, `on_fail`
 * and severity threshold checked against its result type; then `tool_calls`, whose confirmation
 * list names declared tools only (an orchestrator that runs no model turn: registered tools its members call).
 */
import type { CompiledGuardrail, CompiledModel, GuardrailResultType } from '../../compiled/types';
import type { PathPart } from '../source';
import { compileModel } from '../compiled-entries';
import { withinResidency } from '../../governance/residency';
import { asArr, asNum, asObj, asStr, isObj, jsonObj, statusOf, strip, type Obj } from '../values';
import type { AgentBuild, Ctx } from './context';
import { membersOnly } from './orchestrator-fields';

/**
 * An llm guardrail's judge: the registry model `config.model` names, compiled into the guardrail
 * (a bundle carries agents only, so the model travels with the guardrail that calls it); an
 * unknown or disabled model is an error at the agent's use of the guardrail (AGF560), a model
 * outside the agent's data_residency too (AGF140: the judge reads the agent's texts).
 */
function judgeModel(ctx: Ctx, b: AgentBuild, ref: string, prov: Obj, at: PathPart[]): CompiledModel | undefined {
  const id = asStr(asObj(prov.config).model);
  if (prov.type !== 'llm' || !id) return undefined;
  const e = ctx.get('model', id);
  if (!e) { ctx.err(at, 'AGF560', `guardrail \`${ref}\` judges with model \`${id}\`, which is not registered; create models/${id}.model.md or set its provider.config.model to one of: ${ctx.known('model')}`); return undefined; }
  if (statusOf(e.data) === 'disabled') ctx.err(at, 'AGF560', `guardrail \`${ref}\` judges with model \`${id}\`, which is disabled; set its provider.config.model to an active model`);
  const m = compileModel(e);
  const residency = asStr(asObj(b.d.policies).data_residency);
  if (residency && m.region && !withinResidency(m.region, residency)) ctx.err(at, 'AGF140', `guardrail \`${ref}\` judges with model \`${id}\` in region \`${m.region}\`, outside \`policies.data_residency: ${residency}\`; use a judge model whose \`region\` is in \`${residency}\``);
  return m;
}

const ON_FAIL: Record<GuardrailResultType, string[]> = {
  score: ['block', 'warn', 'log', 'escalate', 'retry'],
  transform: ['apply', 'reject', 'redact'],
  annotate: ['skip', 'fail_closed'],
  enrich: ['skip', 'fail_closed'],
};

export function compileGuardrails(ctx: Ctx, b: AgentBuild): void {
  const gsec = asObj(b.d.guardrails);
  for (const position of ['input', 'tool_input', 'tool_output', 'output'] as const) {
    asArr(gsec[position]).forEach((g, i) => {
      const go = asObj(g);
      const ref = asStr(go.ref);
      if (!ref) return;
      b.usedGuardrails.add(ref);
      const p: PathPart[] = ['guardrails', position, i];
      const e = ctx.get('guardrail', ref);
      if (!e) { ctx.err([...p, 'ref'], 'AGF011', `guardrail \`${ref}\` is not registered; create guardrails/${ref}.guardrail.md or use one of: ${ctx.known('guardrail')}`); return; }
      const gd = asObj(e.data);
      const gs = statusOf(gd);
      if (gs === 'disabled') ctx.err([...p, 'ref'], 'AGF027', `guardrail \`${ref}\` is disabled; remove it or use an active guardrail`);
      else if (gs === 'deprecated') ctx.warn([...p, 'ref'], 'AGL012', `guardrail \`${ref}\` is deprecated`);
      const beh = asObj(gd.behaviour);
      const rtype = (['score', 'transform', 'annotate', 'enrich'].includes(beh.result_type as string) ? beh.result_type : 'score') as GuardrailResultType;
      const positions = asArr(beh.positions);
      if (positions.length && !positions.includes(position)) ctx.err([...p, 'ref'], 'AGF030', `guardrail \`${ref}\` supports positions ${positions.join(', ')}, not \`${position}\`; move it`);
      const onFail = asStr(go.on_fail);
      if (onFail && !ON_FAIL[rtype].includes(onFail)) ctx.err([...p, 'on_fail'], 'AGF028', `on_fail \`${onFail}\` is not valid for a \`${rtype}\` guardrail; write one of: ${ON_FAIL[rtype].join(', ')}`);
      if (onFail === 'retry' && position !== 'output') ctx.err([...p, 'on_fail'], 'AGF028', '`on_fail: retry` is only valid for output guardrails; use block, warn, log or escalate');
      const thr = asNum(go.severity_threshold) ?? asNum(gd.default_severity_threshold);
      if (rtype === 'score' && thr === undefined) ctx.err(p, 'AGF029', `\`${ref}\` is a score guardrail; add \`severity_threshold: <0-10>\``);
      const prov = asObj(gd.provider);
      const model = judgeModel(ctx, b, ref, prov, [...p, 'ref']);
      b.guardrails[position].push(strip({
        ref, version: asStr(gd.version) ?? '0.0.0', status: gs, result_type: rtype,
        provider: strip({ type: asStr(prov.type) ?? 'builtin', name: asStr(prov.name), config: isObj(prov.config) ? jsonObj(prov.config) : undefined, credentials_ref: asStr(prov.credentials_ref), model }),
        severity_threshold: thr,
        on_fail: (onFail ?? 'block') as CompiledGuardrail['on_fail'],
      } as CompiledGuardrail & Obj));
    });
  }
  const tcalls = asObj(gsec.tool_calls);
  b.confirmTools = asArr(tcalls.require_user_confirmation_for).filter((x): x is string => typeof x === 'string');
  // An orchestrator that runs no model turn names the tools of its members (each member that has one waits for a human).
  const orchestrator = membersOnly(b.d);
  b.confirmTools.forEach((t, i) => {
    if (orchestrator) {
      if (!ctx.reg.entries.tool.has(t)) ctx.err(['guardrails', 'tool_calls', 'require_user_confirmation_for', i], 'AGF018', `\`${t}\` is not a registered tool; on an orchestrator this list names tools its members call (create tools/${t}.tool.md or remove it)`);
      return;
    }
    if (!b.seenTools.has(t)) ctx.err(['guardrails', 'tool_calls', 'require_user_confirmation_for', i], 'AGF018', `\`${t}\` is not a tool declared in \`tools.refs\`; add \`- ref: ${t}\` to tools or remove it here`);
  });
}
