/** `knowledge`: each knowledge base resolved from the registry, its citation setting tightened (never loosened) and retrieval merged. */
import type { CompiledKnowledge } from '../../compiled/types';
import type { PathPart } from '../source';
import { asArr, asBool, asObj, asStr, json, jsonObj, statusOf, strip, type Obj } from '../values';
import type { AgentBuild, Ctx } from './context';

export function compileKnowledge(ctx: Ctx, b: AgentBuild): void {
  const d = b.d;
  const ksec = asObj(d.knowledge);
  const migration = asStr(asObj(d.notes).migration_notes);
  const seenKb = new Set<string>();
  asArr(ksec.refs).forEach((r, i) => {
    const ro = asObj(r);
    const ref = asStr(ro.ref);
    if (!ref) return;
    const p: PathPart[] = ['knowledge', 'refs', i, 'ref'];
    if (seenKb.has(ref)) { ctx.err(p, 'AGF021', `knowledge base \`${ref}\` is listed twice; keep one entry`); return; }
    seenKb.add(ref);
    const e = ctx.get('kb', ref);
    if (!e) { ctx.err(p, 'AGF008', `knowledge base \`${ref}\` is not registered; create knowledge/${ref}.kb.md or use one of: ${ctx.known('kb')}`); return; }
    const kd = asObj(e.data);
    const ks = statusOf(kd);
    if (ks === 'disabled') {
      if (b.active) ctx.err(p, 'AGF010', `knowledge base \`${ref}\` is disabled and cannot be used by an active agent; remove the ref`);
      else ctx.warn(p, 'AGL020', `knowledge base \`${ref}\` is disabled`);
    } else if (ks === 'deprecated' && !migration) ctx.warn(p, 'AGL008', `knowledge base \`${ref}\` is deprecated; add \`notes.migration_notes\` explaining the replacement`);
    let citations = kd.citations_required === true;
    if (ro.citations_required === false && citations) ctx.err(['knowledge', 'refs', i, 'citations_required'], 'AGF009', `\`citations_required: false\` loosens the registry setting of \`${ref}\`; remove the override`);
    else if (ro.citations_required === true) citations = true;
    const retrieval = { ...asObj(kd.retrieval), ...asObj(ro.retrieval) };
    b.kbRefs.push(strip({
      kb_id: e.id, version: asStr(kd.version) ?? '0.0.0', status: ks, description: asStr(kd.description),
      required: asBool(ro.required) ?? kd.required === true, citations_required: citations,
      retrieval: Object.keys(retrieval).length ? (json(retrieval) as CompiledKnowledge['retrieval']) : undefined,
      backend: jsonObj(kd.backend),
    } as CompiledKnowledge & Obj));
  });
  const provenance = asObj(asObj(asObj(d.interface).output).provenance);
  // The output-level setting cannot relax what a knowledge base requires (the Agent Format's overrides only tighten).
  const strict = b.kbRefs.filter((k) => k.citations_required && k.status !== 'disabled').map((k) => k.kb_id);
  if (provenance.citations_required === false && strict.length)
    ctx.err(['interface', 'output', 'provenance', 'citations_required'], 'AGF009', `\`citations_required: false\` loosens what knowledge base${strict.length > 1 ? 's' : ''} ${strict.map((k) => `\`${k}\``).join(', ')} require${strict.length > 1 ? '' : 's'}: answers must cite them; remove the override or set it to true`);
  if (!b.kbRefs.length && d.knowledge === undefined && (provenance.citations_required === true))
    ctx.warn(['interface', 'output', 'provenance'], 'AGL004', 'citations are required but no `knowledge` is declared; add `knowledge.refs` so answers can be grounded');
}
