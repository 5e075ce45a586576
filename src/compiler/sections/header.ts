/**
 * The head of an agent's front matter: the Agent Definition Specification's short forms read as
 * their full forms (a lint warning each), the tenant's default data residency, then `spec_version`,
 * the schema of the whole front matter and `agent_id` against the file name.
 */
import type { Entry, Registry } from '../registry';
import type { PathPart } from '../source';
import { schemaDiagnostics } from '../validate';
import { AGF_POLICIES, SPEC_VERSIONS } from '../schemas';
import { asObj, asStr, isObj, type Obj } from '../values';
import type { Ctx } from './context';

/** The front matter with the minimal-example short forms rewritten to the full forms (AGL009 each). */
export function normalize(ctx: Ctx, raw: Obj): Obj {
  const d: Obj = JSON.parse(JSON.stringify(raw)) as Obj;
  const src = ctx.src;
  const alias = (path: PathPart[], what: string, instead: string): void =>
    ctx.warn(path, 'AGL009', `short form ${what} (minimal-example shape) accepted; prefer the full form: ${instead}`, true);
  if (Array.isArray(d.tools)) {
    alias(['tools'], 'bare `tools:` list', '`tools: {tool_choice: auto, refs: [- ref: …]}`');
    d.tools = { refs: d.tools };
    src.aliases.push([['tools', 'refs'], ['tools']]);
  }
  if (d.tool_choice !== undefined && (isObj(d.tools) || d.tools === undefined)) {
    alias(['tool_choice'], 'top-level `tool_choice`', '`tools.tool_choice`');
    const t = asObj(d.tools);
    if (t.tool_choice === undefined) t.tool_choice = d.tool_choice;
    d.tools = t;
    delete d.tool_choice;
    src.aliases.push([['tools', 'tool_choice'], ['tool_choice']]);
  }
  if (Array.isArray(d.knowledge)) {
    alias(['knowledge'], 'bare `knowledge:` list', '`knowledge: {refs: [- ref: …]}`');
    d.knowledge = { refs: d.knowledge };
    src.aliases.push([['knowledge', 'refs'], ['knowledge']]);
  }
  for (const io of ['input', 'output']) {
    if (d[io] !== undefined && d.interface === undefined || (d[io] !== undefined && isObj(d.interface) && (d.interface as Obj)[io] === undefined)) {
      alias([io], `top-level \`${io}\``, `\`interface.${io}\``);
      const i = asObj(d.interface);
      i[io] = d[io];
      d.interface = i;
      delete d[io];
      src.aliases.push([['interface', io], [io]]);
    }
  }
  if (isObj(d.guardrails)) {
    for (const pos of ['input', 'tool_input', 'tool_output', 'output']) {
      const list = (d.guardrails as Obj)[pos];
      if (!Array.isArray(list)) continue;
      list.forEach((g, i) => {
        if (!isObj(g)) return;
        if (g.id !== undefined && g.ref === undefined) {
          alias(['guardrails', pos, i, 'id'], 'guardrail `id:`', '`ref:`');
          g.ref = g.id;
          delete g.id;
          src.aliases.push([['guardrails', pos, i, 'ref'], ['guardrails', pos, i, 'id']]);
        }
        if (g.mode !== undefined) {
          alias(['guardrails', pos, i, 'mode'], 'guardrail `mode:`', 'the mode is part of the guardrail definition file (behaviour / provider.config)');
          delete g.mode;
        }
      });
    }
  }
  if (isObj(d.memory) && (d.memory as Obj).writeback !== undefined) {
    alias(['memory', 'writeback'], '`memory.writeback`', '`writeback` in each collections/<id>.collection.md');
  }
  return d;
}

/** The Agent Definition Specification's data_residency: "If omitted, the tenant's default residency setting applies." */
export function applyTenantResidency(reg: Registry, d: Obj): void {
  if (reg.tenant?.data_residency && (d.policies === undefined || (isObj(d.policies) && d.policies.data_residency === undefined))) d.policies = { ...asObj(d.policies), data_residency: reg.tenant.data_residency };
}

function agentCode(path: PathPart[], keyword: string): string {
  const [a, b] = path;
  if (path.length === 1 && keyword === 'required') return 'AGF001';
  if (a === 'spec_version' && path.length === 1) return 'AGF002';
  if (a === 'agent_id' && path.length === 1) return 'AGF003';
  if (a === 'version' && path.length === 1) return 'AGF004';
  if (a === 'status' && path.length === 1) return 'AGF005';
  if (a === 'policies' && path.length === 2 && keyword === 'additionalProperties') return 'AGF012';
  if (a === 'runtime' && b === 'temperature') return 'AGF015';
  if (a === 'execution_policy' && b === 'config') return 'AGF042';
  return 'AGF019';
}

/** `spec_version` read as a number, the front-matter schema, and `agent_id` against the file name. */
export function compileHeader(ctx: Ctx, d: Obj, entry: Entry): void {
  const policyId = asStr(asObj(d.execution_policy).id);
  const numericSpec = typeof d.spec_version === 'number';
  if (numericSpec) {
    const n = String(d.spec_version);
    const q = n.includes('.') ? n : `${n}.0`;
    ctx.err(['spec_version'], 'AGF002', `\`spec_version\` is read as the number ${n}; quote it: \`spec_version: "${q}"\` (supported: ${SPEC_VERSIONS.map((v) => `"${v}"`).join(', ')})`);
  }
  schemaDiagnostics('agent', d, ctx.src, ctx.diags, agentCode, [], (p) => {
    if (numericSpec && p.length === 1 && p[0] === 'spec_version') return true;
    if (p[0] === 'execution_policy' && p[1] === 'id') return true;
    if (p[0] === 'execution_policy' && p[1] === 'config' && !(policyId && AGF_POLICIES.includes(policyId))) return true;
    return false;
  });
  if (typeof d.agent_id === 'string' && d.agent_id !== entry.id && entry.file.endsWith('.agent.md')) {
    const stem = entry.file.split('/').pop()!.slice(0, -'.agent.md'.length);
    if (stem !== d.agent_id) ctx.err(['agent_id'], 'AGF003', `agent_id \`${d.agent_id}\` does not match the file name; rename the file to agents/${d.agent_id}.agent.md or write \`agent_id: ${stem}\``);
  }
}
