/**
 * `orchestration`: the delegates, the multi-agent pattern (compiled in pattern.ts), and the
 * escalation rules — each narrowed to a guardrail this agent uses or a node of its pattern, aimed at
 * an invocable agent or a human queue the tenant declares.
 */
import type { EscalationRule } from '../../compiled/types';
import type { PathPart } from '../source';
import { asArr, asObj, asStr, isObj, strip, type Obj } from '../values';
import type { AgentBuild, Ctx } from './context';
import { compilePattern } from './pattern';

export function compileOrchestration(ctx: Ctx, b: AgentBuild): void {
  const d = b.d;
  const orch = asObj(d.orchestration);
  const delegates = asArr(orch.allowed_delegates).filter((x): x is string => typeof x === 'string');
  b.delegates = delegates;
  const seenDel = new Set<string>();
  delegates.forEach((a, i) => {
    if (seenDel.has(a)) ctx.err(['orchestration', 'allowed_delegates', i], 'AGF021', `delegate \`${a}\` is listed twice`);
    seenDel.add(a);
    if (!ctx.reg.entries.agent.has(a)) ctx.err(['orchestration', 'allowed_delegates', i], 'AGF017', `delegate \`${a}\` is not a registered agent; create agents/${a}.agent.md or remove it`);
    else { ctx.needs.add(a); ctx.disabledAgent(['orchestration', 'allowed_delegates', i], a, 'delegate'); }
  });
  if (delegates.length && orch.can_delegate !== true) ctx.warn(['orchestration', 'allowed_delegates'], 'AGL015', '`allowed_delegates` has no effect while `can_delegate` is false; set `can_delegate: true` or remove the list');

  b.pattern = compilePattern(ctx, asObj(orch.pattern), b.aliases, orch.pattern !== undefined, { owner: b.agentId, out: b.inlinePatterns });
  if (orch.pattern !== undefined && isObj(d.execution_policy) && asStr((d.execution_policy as Obj).id) !== 'agf.react')
    ctx.warn(['execution_policy'], 'AGL018', 'both `orchestration.pattern` and a multi-agent `execution_policy` are declared; the pattern runs and the policy is ignored — keep one');
  compileEscalation(ctx, b, asArr(orch.escalation));
}

/** The ids an escalation rule's `node` may name: the nodes, tasks, members or steps of the pattern. */
function patternNodeIds(b: AgentBuild): Set<string> {
  const nodeIds = new Set<string>();
  if (b.pattern) {
    const pa = b.pattern as unknown as Obj;
    for (const n of asArr(pa.nodes)) { const id = asStr(asObj(n).id); if (id) nodeIds.add(id); }
    for (const t of asArr(pa.tasks)) { const id = asStr(asObj(t).task_id); if (id) nodeIds.add(id); }
    for (const a of asArr(pa.agents)) { const id = asStr(asObj(a).ref); if (id) nodeIds.add(id); }
    for (const s of asArr(pa.steps)) { const id = asStr(asObj(s).name); if (id) nodeIds.add(id); }
  }
  return nodeIds;
}

function compileEscalation(ctx: Ctx, b: AgentBuild, rules: unknown[]): void {
  const nodeIds = patternNodeIds(b);
  const catchAll = new Set<string>();
  rules.forEach((r, i) => {
    const ro = asObj(r);
    const on = asStr(ro.on);
    const tgt = asObj(ro.target);
    const p: PathPart[] = ['orchestration', 'escalation', i];
    if (!on) return;
    const narrow = ro.guardrail !== undefined || ro.node !== undefined;
    if (narrow && catchAll.has(on)) ctx.warn(p, 'AGL016', `this \`on: ${on}\` rule is narrower than an earlier catch-all rule of the same trigger, so it never fires; move it before the catch-all`);
    if (!narrow) catchAll.add(on);
    const g = asStr(ro.guardrail);
    if (g && !b.usedGuardrails.has(g)) ctx.err([...p, 'guardrail'], 'AGF032', `guardrail \`${g}\` is not used in this agent's \`guardrails\`; reference one of: ${[...b.usedGuardrails].join(', ') || 'none declared'}`);
    const node = asStr(ro.node);
    if (node && !nodeIds.has(node)) ctx.err([...p, 'node'], 'AGF032', `node \`${node}\` is not a node/task/member of this agent's pattern; use one of: ${[...nodeIds].join(', ') || 'no pattern declared'}`);
    if (tgt.type === 'agent' && typeof tgt.id === 'string') checkAgentTarget(ctx, tgt.id, p);
    if (tgt.type === 'human_queue' && typeof tgt.id === 'string') {
      const queues = ctx.reg.tenant?.human_queues;
      if (queues && !queues[tgt.id]) ctx.err([...p, 'target', 'id'], 'AGF094', `human queue \`${tgt.id}\` is not in the tenant's queue registry (tenant.md \`human_queues\`: ${Object.keys(queues).sort().join(', ') || 'none'}); declare it there or use one of those`);
      else if (!queues) ctx.warn([...p, 'target', 'id'], 'AGL042', `human queue \`${tgt.id}\` cannot be checked: the registry has no tenant.md declaring \`human_queues\`; declare the queues operators answer there`);
    }
    b.escalation.push(strip({ on: on as EscalationRule['on'], guardrail: g, node, target: { type: tgt.type === 'agent' ? 'agent' : 'human_queue', id: String(tgt.id ?? '') } } as EscalationRule & Obj));
  });
}

/** An escalation target agent is registered and invocable as a tool (AGF017, AGF026, AGF031). */
function checkAgentTarget(ctx: Ctx, id: string, p: PathPart[]): void {
  const te = ctx.reg.entries.agent.get(id);
  if (!te) ctx.err([...p, 'target', 'id'], 'AGF017', `escalation target agent \`${id}\` is not registered; create agents/${id}.agent.md or use \`type: human_queue\``);
  else {
    if (asObj(asObj(te.data).orchestration).can_be_invoked_as_tool !== true) ctx.err([...p, 'target', 'id'], 'AGF026', `escalation target \`${id}\` must set \`orchestration.can_be_invoked_as_tool: true\``);
    ctx.needs.add(id);
    ctx.disabledAgent([...p, 'target', 'id'], id, 'escalation target');
  }
}
