/**
 * `policies`, the agent's governance settings (not its execution policy): the blocked-content
 * vocabulary, connector names, the audit level, declared fields the runtime does not enforce (a
 * warning naming each, never silence), and data residency against the model's and tools' regions.
 */
import { unenforcedFields, unenforcedMessage } from '../enforcement';
import { withinResidency } from '../../governance/residency';
import { asArr, asObj, asStr } from '../values';
import type { AgentBuild, Ctx } from './context';

const KNOWN_BLOCKED = ['legal_advice', 'medical_advice', 'financial_advice', 'adult_content', 'hate_speech', 'violence', 'self_harm', 'harassment', 'illegal_activity'];

export function compileGovernancePolicies(ctx: Ctx, b: AgentBuild): void {
  const d = b.d;
  const pol = asObj(d.policies);
  asArr(pol.blocked_content).forEach((x, i) => {
    if (typeof x === 'string' && !KNOWN_BLOCKED.includes(x)) ctx.warn(['policies', 'blocked_content', i], 'AGL014', `\`${x}\` is not in the blocked_content vocabulary (${KNOWN_BLOCKED.join(', ')})`);
  });
  asArr(pol.allowed_connectors).forEach((c, i) => {
    if (typeof c === 'string' && !/^[a-z0-9][a-z0-9_-]{1,63}$/.test(c)) ctx.err(['policies', 'allowed_connectors', i], 'AGF013', `connector \`${c}\` is not a valid connector identifier; use the lowercase registered name, e.g. \`sharepoint\``);
  });
  if (b.active && pol.audit_level === 'none') ctx.warn(['policies', 'audit_level'], 'AGL019', '`audit_level: none` on an active agent; use `standard` or `full`');
  for (const u of unenforcedFields(d)) ctx.warn(u.at, 'AGL030', unenforcedMessage(u));
  checkResidency(ctx, b, asStr(pol.data_residency));
}

/** data_residency in the Agent Definition Specification: a model or tool declaring a region outside it is a hard error (AGF140). */
function checkResidency(ctx: Ctx, b: AgentBuild, residency: string | undefined): void {
  if (!residency) return;
  const outside = (what: string, region: string | undefined): string | undefined =>
    region && !withinResidency(region, residency) ? `${what} is in region \`${region}\`, outside \`policies.data_residency: ${residency}\`; use one whose \`region\` is in \`${residency}\`` : undefined;
  for (const [field, m] of [['model', b.model], ['fallback_model', b.fallback]] as const) {
    const why = m && outside(`model \`${m.model_id}\``, m.region);
    if (why) ctx.err(['runtime', field], 'AGF140', why);
  }
  const refs = asArr(asObj(b.d.tools).refs);
  for (const t of b.toolRefs) {
    const why = outside(`tool \`${t.tool_id}\``, t.region);
    const i = refs.findIndex((r) => asStr(asObj(r).ref) === t.tool_id || r === t.tool_id);
    if (why) ctx.err(i >= 0 ? ['tools', 'refs', i] : ['tools'], 'AGF140', why);
  }
}
