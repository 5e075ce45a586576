/**
 * `policies`, the agent's governance settings (not its execution policy): the blocked-content
 * vocabulary, connector names, the audit level, declared fields the runtime does not enforce (a
 * warning naming each, never silence), and data residency against the model's and tools' regions.
 */
import { unenforcedFields, unenforcedMessage } from '../enforcement';
import { residencyBreach, withinResidency } from '../../governance/residency';
import { asArr, asObj, asStr } from '../values';
import type { AgentBuild, Ctx } from './context';

const KNOWN_BLOCKED = ['legal_advice', 'medical_advice', 'financial_advice', 'adult_content', 'hate_speech', 'violence', 'self_harm', 'harassment', 'illegal_activity'];

export function compileGovernancePolicies(ctx: Ctx, b: AgentBuild): void {
  const d = b.d;
  const pol = asObj(d.policies);
  asArr(pol.blocked_content).forEach((x, i) => {
    if (typeof x === 'string' && !KNOWN_BLOCKED.includes(x)) ctx.warn(['policies', 'blocked_content', i], 'AGL014', `\`${x}\` is not in the blocked_content vocabulary (${KNOWN_BLOCKED.join(', ')})`);
  });
  checkConnectors(ctx, b, asArr(pol.allowed_connectors));
  if (b.active && pol.audit_level === 'none') ctx.warn(['policies', 'audit_level'], 'AGL019', '`audit_level: none` on an active agent; use `standard` or `full`');
  for (const u of unenforcedFields(d)) ctx.warn(u.at, 'AGL030', unenforcedMessage(u));
  checkResidency(ctx, b, asStr(pol.data_residency));
  lintUnconstrainedResidency(ctx, b, pol);
}

/**
 * AGF013: `allowed_connectors` names, and the connector a tool of the agent reaches, resolve to the
 * tenant's connector registry (tenant.md `connectors`); without one, a name is checked for its form.
 */
function checkConnectors(ctx: Ctx, b: AgentBuild, allowed: unknown[]): void {
  const registry = ctx.reg.tenant?.connectors;
  const known = registry ? Object.keys(registry).sort() : [];
  const unknownMsg = (c: string): string => `connector \`${c}\` is not in the tenant's connector registry; register it under tenant.md \`connectors\` or use one of: ${known.length ? known.join(', ') : '(none registered)'}`;
  allowed.forEach((c, i) => {
    if (typeof c !== 'string') return;
    if (registry) { if (!Object.hasOwn(registry, c)) ctx.err(['policies', 'allowed_connectors', i], 'AGF013', unknownMsg(c)); }
    else if (!/^[a-z0-9][a-z0-9_-]{1,63}$/.test(c)) ctx.err(['policies', 'allowed_connectors', i], 'AGF013', `connector \`${c}\` is not a valid connector identifier; use the lowercase registered name, e.g. \`sharepoint\``);
  });
  if (!registry) return;
  const refs = asArr(asObj(b.d.tools).refs);
  for (const t of b.toolRefs) {
    if (!t.connector || Object.hasOwn(registry, t.connector)) continue;
    const i = refs.findIndex((r) => asStr(asObj(r).ref) === t.tool_id || r === t.tool_id);
    ctx.err(i >= 0 ? ['tools', 'refs', i] : ['tools'], 'AGF013', `tool \`${t.tool_id}\`: ${unknownMsg(t.connector)}`);
  }
}

/**
 * AGL560: no data_residency (the agent's, or the tenant default the header injected) for an agent
 * in a regulated context: full audit, PII redaction, or restricted artifacts. The specification:
 * "If no tenant default is configured, data residency is unconstrained — a lint warning for any
 * agent operating in a regulated context."
 */
function lintUnconstrainedResidency(ctx: Ctx, b: AgentBuild, pol: Record<string, unknown>): void {
  if (asStr(pol.data_residency)) return;
  const why = pol.audit_level === 'full' ? '`audit_level: full`' : pol.pii_redaction === true ? '`pii_redaction: true`' : asObj(b.d.artifacts).retention_class === 'restricted' ? '`artifacts.retention_class: restricted`' : undefined;
  if (!why) return;
  ctx.warn(['policies'], 'AGL560', `data residency is unconstrained: this agent (${why}) declares no \`policies.data_residency\` and ${ctx.reg.tenant ? 'tenant.md sets no default `data_residency`' : 'the registry has no tenant.md with a default `data_residency`'}; set one (e.g. \`data_residency: eu\`)`);
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
  // The tenant artifact store (tenant.md `artifact_store.region`), when this agent stores artifacts.
  const store = ctx.reg.tenant?.artifact_store;
  if (store && asObj(b.d.artifacts).enabled !== false) {
    const why = residencyBreach('the tenant artifact store (tenant.md `artifact_store`)', asStr(store.region), residency, 'route this agent\'s artifacts to a store in that region or disable them (`artifacts.enabled: false`)');
    if (why) ctx.err(['policies', 'data_residency'], 'AGF562', why);
  }
}
