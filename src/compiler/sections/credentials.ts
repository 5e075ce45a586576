/**
 * `credentials_ref`, in the agent and in every registry file it read: each must resolve to an entry
 * of the tenant's secret store (a hard error otherwise, reported in the file that holds it). Only the
 * reference, and where a worker reads it, is compiled — never the value.
 */
import { diag, fieldPath, posOf } from '../source';
import { credentialRefs, unresolvedRefMessage } from '../tenant';
import type { AgentBuild, Ctx } from './context';

export function compileCredentialRefs(ctx: Ctx, b: AgentBuild): void {
  const reg = ctx.reg;
  const refs = credentialRefs(b.d);
  b.credentialRefs = refs;
  for (const r of refs) if (!reg.tenant?.secrets[r.ref]) ctx.err(r.path, 'AGF093', unresolvedRefMessage(r.ref, reg.tenant));
  for (const e of ctx.touched) {
    for (const r of credentialRefs(e.data)) {
      refs.push(r);
      if (reg.tenant?.secrets[r.ref] || !e.src) continue;
      const at = posOf(e.src, r.path);
      ctx.diags.push(diag(e.file, at.line, at.column, 'error', 'AGF093', fieldPath(r.path), unresolvedRefMessage(r.ref, reg.tenant)));
    }
  }
}
