/**
 * `tools`: each ref resolved from the registry, narrowed by the role's grant and the ref's own
 * overrides (which may tighten, never loosen), agent tools checked as invocable, an MCP server
 * expanded into its pinned tools; then `tool_choice`.
 */
import type { CompiledTool } from '../../compiled/types';
import type { PathPart } from '../source';
import { compileTool, sensitiveFields } from '../compiled-entries';
import { expandMcpTools } from '../mcp-tools';
import { asArr, asNum, asObj, asStr, statusOf, strip, type Obj } from '../values';
import type { AgentBuild, Ctx } from './context';

export function compileTools(ctx: Ctx, b: AgentBuild): void {
  const d = b.d;
  const tsec = asObj(d.tools);
  const migration = asStr(asObj(d.notes).migration_notes);
  asArr(tsec.refs).forEach((r, i) => {
    const ro = asObj(r);
    const ref = asStr(ro.ref);
    if (!ref) return;
    const p: PathPart[] = ['tools', 'refs', i, 'ref'];
    if (b.seenTools.has(ref)) { ctx.err(p, 'AGF021', `tool \`${ref}\` is listed twice; keep one entry`); return; }
    b.seenTools.add(ref);
    const e = ctx.get('tool', ref);
    if (!e) { ctx.err(p, 'AGF007', `tool \`${ref}\` is not registered; create tools/${ref}.tool.md or use one of: ${ctx.known('tool')}`); return; }
    const ts = statusOf(e.data);
    if (ts === 'disabled') {
      if (b.active) ctx.err(p, 'AGF010', `tool \`${ref}\` is disabled and cannot be used by an active agent; remove the ref or pick an active tool`);
      else ctx.warn(p, 'AGL020', `tool \`${ref}\` is disabled; this agent cannot become active while it references it`);
    } else if (ts === 'deprecated' && !migration) ctx.warn(p, 'AGL008', `tool \`${ref}\` is deprecated; add \`notes.migration_notes\` explaining the replacement`);
    const ct = narrowTool(ctx, b, compileTool(e), ro, ref, i, p);
    if (ct.kind === 'agent' && ct.agent) checkAgentTool(ctx, ct.agent.agent_id, ref, p);
    if (ct.kind === 'code' && ct.code) checkCodeTool(ctx, ct.code.name, ref, p);
    if (ct.kind === 'mcp') {
      // One definition = one MCP server: its (narrowed) tools, schemas pinned into the bundle.
      const mcp = expandMcpTools(ct, asObj(asObj(e.data).mcp), (s) => sensitiveFields(s), asObj(d.policies).allow_external_http === true);
      for (const pr of mcp.problems) ctx.err(p, pr.code, pr.message);
      for (const t of mcp.tools) { b.seenTools.add(t.tool_id); b.toolRefs.push(t); }
      return;
    }
    b.toolRefs.push(ct);
  });
  b.toolChoice = tsec.tool_choice === 'none' || tsec.tool_choice === 'required' ? tsec.tool_choice : 'auto';
}

/** The registry tool with the role's grant and the ref's overrides applied (AGF022 ungranted, AGF009 loosened). */
function narrowTool(ctx: Ctx, b: AgentBuild, tool: CompiledTool, ro: Obj, ref: string, i: number, p: PathPart[]): CompiledTool {
  let approval = tool.approval_required;
  let maxCalls = tool.max_calls_per_run;
  const role = b.role;
  if (role) {
    const grant = role.tools[ref];
    if (!grant) ctx.err(p, 'AGF022', `tool \`${ref}\` is not granted by role \`${role.role_id}\`; grant it in roles/${role.role_id}.iam.md or remove it (granted: ${Object.keys(role.tools).sort().join(', ') || 'none'})`);
    else {
      if (grant.approval_required) approval = true;
      if (grant.max_calls_per_run !== undefined) maxCalls = maxCalls === undefined ? grant.max_calls_per_run : Math.min(maxCalls, grant.max_calls_per_run);
    }
  }
  if (ro.approval_required === false && approval) ctx.err(['tools', 'refs', i, 'approval_required'], 'AGF009', `\`approval_required: false\` loosens the registry/role constraint of \`${ref}\` (approval required); remove the override or write \`approval_required: true\``);
  else if (ro.approval_required === true) approval = true;
  const om = asNum(ro.max_calls_per_run);
  if (om !== undefined) {
    if (maxCalls !== undefined && om > maxCalls) ctx.err(['tools', 'refs', i, 'max_calls_per_run'], 'AGF009', `\`max_calls_per_run: ${om}\` loosens the limit of \`${ref}\` (${maxCalls}); write a value ≤ ${maxCalls}`);
    else maxCalls = om;
  }
  return strip({ ...tool, approval_required: approval, max_calls_per_run: maxCalls } as CompiledTool & Obj);
}

/** An agent tool runs a registered agent that allows being invoked as a tool (AGF017, AGF026, AGF031). */
function checkAgentTool(ctx: Ctx, agentId: string, ref: string, p: PathPart[]): void {
  const target = ctx.reg.entries.agent.get(agentId);
  if (!target) ctx.err(p, 'AGF017', `tool \`${ref}\` runs agent \`${agentId}\`, which is not registered; create agents/${agentId}.agent.md`);
  else {
    if (asObj(asObj(target.data).orchestration).can_be_invoked_as_tool !== true) ctx.err(p, 'AGF026', `tool \`${ref}\` runs agent \`${agentId}\`, which does not set \`orchestration.can_be_invoked_as_tool: true\`; set it in that agent`);
    ctx.needs.add(agentId);
    ctx.disabledAgent(p, agentId, `run by tool \`${ref}\``);
  }
}

/**
 * A `kind: code` tool names a tool the worker registers in code (defineTool): where the compile
 * knows the worker's tools (ctx.reg.code) an unknown name is AGF192, naming the registered ones;
 * elsewhere (plain `loom validate`) AGL060 says the check waits for the worker.
 */
function checkCodeTool(ctx: Ctx, name: string, ref: string, p: PathPart[]): void {
  const known = ctx.reg.code?.tools;
  if (!known) {
    ctx.warn(p, 'AGL060', `tool \`${ref}\` runs \`${name}\`, a tool written in code: the worker's tools are not known here, so the worker checks the name when it runs it (compile with the worker's tools — AgentloomPlugin.compile or AgentloomClient's \`code\` — to check it now)`);
    return;
  }
  if (!known.includes(name)) ctx.err(p, 'AGF192', `tool \`${ref}\` runs \`${name}\`, which the worker does not register in code; give a defineTool({ name: '${name}', … }) to AgentloomPlugin's tools or fix \`code.name\` (registered: ${[...known].sort().join(', ') || 'none'})`);
}
