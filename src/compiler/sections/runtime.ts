/** `runtime`: the model and fallback model resolved from the registry, the temperature checked against the model's range. */
import type { CompiledModel } from '../../compiled/types';
import { compileModel } from '../compiled-entries';
import { asNum, asObj, asStr, statusOf } from '../values';
import type { AgentBuild, Ctx } from './context';

export function compileRuntime(ctx: Ctx, b: AgentBuild): void {
  const rt = asObj(b.d.runtime);
  const resolveModel = (field: 'model' | 'fallback_model'): CompiledModel | undefined => {
    const id = asStr(rt[field]);
    if (!id) return undefined;
    const e = ctx.get('model', id);
    if (!e) { ctx.err(['runtime', field], 'AGF014', `model \`${id}\` is not registered; create models/${id}.model.md or use one of: ${ctx.known('model')}`); return undefined; }
    const ms = statusOf(e.data);
    if (ms === 'disabled') ctx.err(['runtime', field], 'AGF020', `model \`${id}\` is disabled; switch to an active model (${ctx.known('model')})`);
    else if (ms === 'deprecated') ctx.warn(['runtime', field], 'AGL011', `model \`${id}\` is deprecated; plan a move to an active model`);
    return compileModel(e);
  };
  const model = resolveModel('model');
  b.model = model;
  b.fallback = resolveModel('fallback_model');
  const temp = asNum(rt.temperature);
  if (temp !== undefined && model?.temperature_range) {
    const [lo, hi] = model.temperature_range;
    if (temp < lo || temp > hi) ctx.err(['runtime', 'temperature'], 'AGF015', `temperature ${temp} is outside the range [${lo}, ${hi}] allowed for model \`${model.model_id}\`; pick a value inside it`);
  }
  if (temp !== undefined && temp > 0.7) ctx.warn(['runtime', 'temperature'], 'AGL006', `temperature ${temp} is above 0.7; use ≤ 0.7 for deterministic business workflows`);
}
