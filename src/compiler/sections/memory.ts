/** `memory`: the mode, and the read and write collections resolved from the registry, none wider than the mode. */
import type { CompiledCollection } from '../../compiled/types';
import type { PathPart } from '../source';
import { compileCollection } from '../compiled-entries';
import { asArr, asObj, asStr, statusOf } from '../values';
import { collectionBackendProblem } from '../../store/collection-types';
import { residencyBreach } from '../../governance/residency';
import type { AgentBuild, Ctx, MemoryMode } from './context';

const SCOPE_RANK: Record<string, number> = { none: 0, session: 1, project: 2, user: 3 };

export function compileMemory(ctx: Ctx, b: AgentBuild): void {
  const mem = asObj(b.d.memory);
  const mode = typeof mem.mode === 'string' && mem.mode in SCOPE_RANK ? (mem.mode as MemoryMode) : 'none';
  b.memoryMode = mode;
  const colls = (field: 'read_collections' | 'write_collections'): CompiledCollection[] => {
    const out: CompiledCollection[] = [];
    const seen = new Set<string>();
    asArr(mem[field]).forEach((c, i) => {
      const id = asStr(c);
      if (!id) return;
      const p: PathPart[] = ['memory', field, i];
      if (seen.has(id)) { ctx.err(p, 'AGF021', `collection \`${id}\` is listed twice`); return; }
      seen.add(id);
      const e = ctx.get('collection', id);
      if (!e) { ctx.err(p, 'AGF024', `collection \`${id}\` is not registered; create collections/${id}.collection.md or use one of: ${ctx.known('collection')}`); return; }
      const cs = statusOf(e.data);
      if (cs === 'disabled') ctx.err(p, 'AGF024', `collection \`${id}\` is disabled; remove it or use an active collection`);
      else if (cs === 'deprecated') ctx.warn(p, 'AGL012', `collection \`${id}\` is deprecated`);
      const cc = compileCollection(e);
      // The backend: a type with a store here (AGF561), hosted inside the agent's residency (AGF562).
      const backend = asObj(asObj(e.data).backend);
      const bad = collectionBackendProblem(backend);
      if (bad) ctx.err(p, 'AGF561', `collection \`${id}\`: ${bad.message} (collections/${id}.collection.md \`backend.${bad.field}\`)`);
      const outside = residencyBreach(`collection \`${id}\`'s backend`, asStr(backend.region), asStr(asObj(b.d.policies).data_residency), `use a collection whose \`backend.region\` is in it`);
      if (outside) ctx.err(p, 'AGF562', outside);
      if (SCOPE_RANK[cc.scope] > SCOPE_RANK[mode]) ctx.err(p, 'AGF025', `collection \`${id}\` has scope \`${cc.scope}\`, wider than \`memory.mode: ${mode}\`; set \`memory.mode: ${cc.scope}\` or use a narrower collection`);
      if (field === 'write_collections' && cc.writeback.enabled && cc.writeback.approval_required !== true)
        ctx.warn(p, 'AGL007', `collection \`${id}\` has writeback enabled without \`approval_required: true\`; set it in collections/${id}.collection.md`);
      out.push(cc);
    });
    return out;
  };
  b.readCollections = colls('read_collections');
  b.writeCollections = colls('write_collections');
  const wb = asObj(mem.writeback);
  if (wb.enabled === true && wb.approval_required !== true) ctx.warn(['memory', 'writeback'], 'AGL007', 'memory writeback enabled without `approval_required: true`; add it');
}
