/** `role`: the IAM role whose tool grants are the ceiling of the agent's tools (compiled once per role file). */
import type { CompiledRole } from '../../compiled/types';
import type { Entry } from '../registry';
import { asArr, asBool, asNum, asObj, asStr, statusOf, strip } from '../values';
import type { AgentBuild, Ctx } from './context';

const roleCache = new WeakMap<Entry, CompiledRole>();

export function compileRole(ctx: Ctx, b: AgentBuild): void {
  const d = b.d;
  const roleId = asStr(d.role);
  if (roleId) {
    const e = ctx.get('role', roleId);
    if (!e) ctx.err(['role'], 'AGF023', `role \`${roleId}\` is not registered; create roles/${roleId}.iam.md or use one of: ${ctx.known('role')}`);
    else {
      const rs = statusOf(e.data);
      if (rs === 'disabled') ctx.err(['role'], 'AGF023', `role \`${roleId}\` is disabled; use an active role`);
      else if (rs === 'deprecated') ctx.warn(['role'], 'AGL012', `role \`${roleId}\` is deprecated`);
      let role = roleCache.get(e);
      if (!role) {
        const tools: CompiledRole['tools'] = {};
        for (const t of asArr(asObj(e.data).tools)) {
          const to = asObj(t);
          const ref = asStr(to.ref);
          if (ref) tools[ref] = strip({ max_calls_per_run: asNum(to.max_calls_per_run), approval_required: asBool(to.approval_required) });
        }
        role = { role_id: e.id, version: asStr(asObj(e.data).version) ?? '0.0.0', status: rs, tools };
        roleCache.set(e, role);
      }
      b.role = role;
    }
  } else if (d.role === undefined) {
    ctx.warn([], 'AGL010', 'no `role` declared; add `role: <role_id>` (roles/<role_id>.iam.md) so tool access is checked against a ceiling');
  }
}
