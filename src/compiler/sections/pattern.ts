/**
 * `orchestration.pattern`: the multi-agent patterns of the Agent Definition Specification (graph,
 * swarm, workflow), the Step Execution Modes (`steps`), and fuseraft's strategies (`strategies`, or
 * a fuseraft graph under `type: graph`, compiled in ../strategies.ts). Members resolve to registry
 * agents (or local agent aliases, for steps); ids are unique; graph edges name nodes and their
 * conditions parse; workflow tasks form a DAG. A graph node's `agent_ref` may be a nested pattern
 * declaration instead of an agent id (a graph, swarm or workflow written inline): it is compiled
 * like a pattern and runs as an agent of its own in the bundle (`<owner>.<node id>`, see InlinePattern).
 */
import type { OrchestrationPattern, StepDefinition } from '../../compiled/types';
import type { PathPart } from '../source';
import { schemaDiagnostics } from '../validate';
import { RESERVED_PATTERNS } from '../schemas';
import { checkExpr } from '../../shared/expr';
import { compileStrategies, isFuseraftGraph } from '../strategies';
import { asArr, asNum, asObj, asStr, isObj, json, strip, type Obj } from '../values';
import type { Ctx } from './context';

const BASE: PathPart[] = ['orchestration', 'pattern'];

/** The pattern types a graph node may declare inline: the Agent Definition Specification's multi-agent patterns. */
export const NESTED_PATTERN_TYPES = ['graph', 'swarm', 'workflow'] as const;

/**
 * A graph node's inline nested pattern: the bundle gets an agent `agent_id` (the owner's id, a dot,
 * the node id; a dot is never in a registry agent_id) that is the owner with this pattern, and the
 * node's compiled `agent_ref` names it, so the graph runs it as any member whose agent has a pattern.
 */
export interface InlinePattern {
  agent_id: string;
  node: string;
  pattern: OrchestrationPattern;
}

/** Where a graph's inline nested patterns go: the id of the agent that owns the graph, and the list. */
export interface InlineSink {
  owner: string;
  out: InlinePattern[];
}

export function inlineAgentId(owner: string, node: string): string {
  return `${owner}.${node}`;
}

export function compilePattern(ctx: Ctx, p: Obj, aliases: Map<string, string>, present: boolean, inline?: InlineSink): OrchestrationPattern | undefined {
  if (!present) return undefined;
  const base = BASE;
  const type = asStr(p.type);
  if (!type) return undefined;
  // fuseraft's strategies: `type: strategies` carries fuseraft's orchestration block; a fuseraft graph under `type: graph` is told apart by its PascalCase shape.
  if (type === 'strategies' || (type === 'graph' && isFuseraftGraph(p))) return compileStrategies(ctx, p, aliases, base);
  if (RESERVED_PATTERNS.includes(type)) {
    ctx.warn([...base, 'type'], 'AGL017', `pattern type \`${type}\` is reserved for fuseraft's strategies: it compiles but is not yet executed by the runtime; to run the routing strategies write \`type: strategies\` with the seed's \`Selection: {Type: ${type}, …}\` block`);
    return json(p) as unknown as OrchestrationPattern;
  }
  if (!['graph', 'swarm', 'workflow', 'steps'].includes(type)) {
    ctx.err([...base, 'type'], 'AGF050', `unknown pattern type \`${type}\`; use graph, swarm, workflow, steps or strategies (reserved: ${RESERVED_PATTERNS.join(', ')})`);
    return undefined;
  }
  schemaDiagnostics(`pattern:${type}`, p, ctx.src, ctx.diags, () => 'AGF051', base);
  if (type === 'graph') return compileGraph(ctx, p, base, inline);
  if (type === 'swarm') return compileSwarm(ctx, p, base);
  if (type === 'workflow') return compileWorkflow(ctx, p, base);
  return compileSteps(ctx, p, aliases);
}

/** A graph node's nested pattern declaration (`agent_ref: {type: …}`): checked like a pattern at its place, kept for its own agent. */
function compileNested(ctx: Ctx, node: Obj, base: PathPart[], inline: InlineSink | undefined): void {
  const p = asObj(node.agent_ref);
  const type = asStr(p.type);
  const id = asStr(node.id);
  if (!(NESTED_PATTERN_TYPES as readonly string[]).includes(type ?? '') || (type === 'graph' && isFuseraftGraph(p))) {
    ctx.err(type ? [...base, 'type'] : base, 'AGF063', `a nested pattern declaration in a graph node is a graph, swarm or workflow (got ${type ? `\`${type}\`` : 'no `type`'}); write e.g. \`agent_ref: {type: workflow, tasks: [...]}\`, or name a registered agent whose pattern it is`);
    return;
  }
  if (!schemaDiagnostics(`pattern:${type}`, p, ctx.src, ctx.diags, () => 'AGF051', base) || !id || !inline) return;
  const agentId = inlineAgentId(inline.owner, id);
  const sink: InlineSink = { owner: agentId, out: inline.out };
  const pattern = type === 'graph' ? compileGraph(ctx, p, base, sink) : type === 'swarm' ? compileSwarm(ctx, p, base) : compileWorkflow(ctx, p, base);
  inline.out.push({ agent_id: agentId, node: id, pattern });
}

/** A pattern member is a registered agent (AGF055), invocable as a tool where it must be (AGF026), not disabled (AGF031). */
function member(ctx: Ctx, path: PathPart[], id: unknown, needTool: boolean): void {
  if (typeof id !== 'string') return;
  const e = ctx.reg.entries.agent.get(id);
  if (!e) { ctx.err(path, 'AGF055', `agent \`${id}\` is not registered; create agents/${id}.agent.md or fix the reference`); return; }
  if (needTool && asObj(asObj(e.data).orchestration).can_be_invoked_as_tool !== true) ctx.err(path, 'AGF026', `swarm member \`${id}\` must set \`orchestration.can_be_invoked_as_tool: true\``);
  ctx.needs.add(id);
  ctx.disabledAgent(path, id, 'pattern member');
}

/** The ids of `list` (its `field`), each declared once (AGF053). */
function dupCheck(ctx: Ctx, list: unknown[], field: string, what: string, path: (i: number) => PathPart[]): Set<string> {
  const seen = new Set<string>();
  list.forEach((x, i) => {
    const id = asStr(asObj(x)[field]);
    if (!id) return;
    if (seen.has(id)) ctx.err(path(i), 'AGF053', `${what} \`${id}\` is declared twice; ids must be unique`);
    seen.add(id);
  });
  return seen;
}

function compileGraph(ctx: Ctx, p: Obj, base: PathPart[], inline: InlineSink | undefined): OrchestrationPattern {
  const nodes = asArr(p.nodes);
  nodes.forEach((n, i) => {
    const no = asObj(n);
    if (no.id === '$self') ctx.err([...base, 'nodes', i, 'id'], 'AGF052', '`$self` is the implicit entry node and must not be listed in `nodes`; use it only in `edges.from`');
    else if (isObj(no.agent_ref)) compileNested(ctx, no, [...base, 'nodes', i, 'agent_ref'], inline);
    else member(ctx, [...base, 'nodes', i, 'agent_ref'], no.agent_ref, false);
  });
  const ids = dupCheck(ctx, nodes, 'id', 'node', (i) => [...base, 'nodes', i, 'id']);
  const edges = asArr(p.edges);
  edges.forEach((e, i) => {
    const eo = asObj(e);
    for (const end of ['from', 'to'] as const) {
      const v = asStr(eo[end]);
      if (end === 'to' && v === '$self') ctx.err([...base, 'edges', i, 'to'], 'AGF052', '`$self` (the orchestrator) is the entry node only and cannot be an edge target (the runtime rejects it); end the edge at a node listed in `nodes`');
      else if (v && v !== '$self' && !ids.has(v)) ctx.err([...base, 'edges', i, end], 'AGF054', `edge ${end} \`${v}\` is not a node id; ${end === 'from' ? 'use `$self` or one' : 'use one'} of: ${[...ids].join(', ')}`);
    }
    if (typeof eo.condition === 'string') {
      const problem = checkExpr(eo.condition);
      if (problem) ctx.err([...base, 'edges', i, 'condition'], 'AGF059', `edge condition does not parse: ${problem}; write e.g. \`result_contains('approved')\` or \`state.score >= 0.8 and not exists(state.error)\``);
    }
  });
  return strip({
    type: 'graph', execution_timeout: asNum(p.execution_timeout) ?? 900, max_node_executions: asNum(p.max_node_executions), node_timeout: asNum(p.node_timeout) ?? 300,
    reset_on_revisit: p.reset_on_revisit === true,
    nodes: nodes.map((n) => {
      const no = asObj(n);
      const id = String(no.id ?? '');
      return { id, agent_ref: isObj(no.agent_ref) && inline ? inlineAgentId(inline.owner, id) : String(no.agent_ref ?? '') };
    }),
    edges: edges.map((e) => strip({ from: String(asObj(e).from ?? ''), to: String(asObj(e).to ?? ''), condition: asStr(asObj(e).condition), on: asObj(e).on === 'error' ? ('error' as const) : undefined })),
  } as Obj) as unknown as OrchestrationPattern;
}

function compileSwarm(ctx: Ctx, p: Obj, base: PathPart[]): OrchestrationPattern {
  const agents = asArr(p.agents);
  agents.forEach((a, i) => member(ctx, [...base, 'agents', i, 'ref'], asObj(a).ref, true));
  dupCheck(ctx, agents, 'ref', 'swarm member', (i) => [...base, 'agents', i, 'ref']);
  const win = asNum(p.repetitive_handoff_detection_window) ?? 0;
  const min = asNum(p.repetitive_handoff_min_unique_agents) ?? 0;
  if (win > 0 && win < min + 1) ctx.err([...base, 'repetitive_handoff_detection_window'], 'AGF056', `repetitive_handoff_detection_window (${win}) must be ≥ repetitive_handoff_min_unique_agents + 1 (${min + 1}), or 0 to disable`);
  return {
    type: 'swarm', max_handoffs: asNum(p.max_handoffs) ?? 20, max_iterations: asNum(p.max_iterations) ?? 20, execution_timeout: asNum(p.execution_timeout) ?? 900,
    node_timeout: asNum(p.node_timeout) ?? 300, repetitive_handoff_detection_window: win, repetitive_handoff_min_unique_agents: min,
    agents: agents.map((a) => ({ ref: String(asObj(a).ref ?? '') })),
  };
}

function compileWorkflow(ctx: Ctx, p: Obj, base: PathPart[]): OrchestrationPattern {
  const tasks = asArr(p.tasks);
  const ids = dupCheck(ctx, tasks, 'task_id', 'task', (i) => [...base, 'tasks', i, 'task_id']);
  const deps = new Map<string, string[]>();
  tasks.forEach((t, i) => {
    const to = asObj(t);
    member(ctx, [...base, 'tasks', i, 'agent_ref'], to.agent_ref, false);
    const ds = asArr(to.dependencies).filter((x): x is string => typeof x === 'string');
    ds.forEach((dep, j) => {
      if (!ids.has(dep)) ctx.err([...base, 'tasks', i, 'dependencies', j], 'AGF054', `dependency \`${dep}\` is not a task_id; use one of: ${[...ids].join(', ')}`);
    });
    const id = asStr(to.task_id);
    if (id) deps.set(id, ds);
  });
  // cycle detection
  const state = new Map<string, number>();
  const reported = new Set<string>();
  const visit = (n: string, stack: string[]): void => {
    state.set(n, 1);
    for (const m of deps.get(n) ?? []) {
      if (!deps.has(m)) continue;
      if (state.get(m) === 1) {
        const cyc = [...stack.slice(stack.indexOf(m)), m];
        const key = [...new Set(cyc)].sort().join(',');
        if (!reported.has(key)) {
          reported.add(key);
          const idx = tasks.findIndex((t) => asObj(t).task_id === m);
          ctx.err([...base, 'tasks', idx, 'dependencies'], 'AGF057', `dependency cycle ${cyc.join(' → ')}; workflow tasks must form a DAG — remove one of these dependencies`);
        }
      } else if (!state.get(m)) visit(m, [...stack, m]);
    }
    state.set(n, 2);
  };
  for (const id of deps.keys()) if (!state.get(id)) visit(id, [id]);
  return strip({
    type: 'workflow', max_workers: asNum(p.max_workers), retry_failed_tasks: p.retry_failed_tasks === true,
    tasks: tasks.map((t) => {
      const to = asObj(t);
      return { task_id: String(to.task_id ?? ''), agent_ref: String(to.agent_ref ?? ''), description: String(to.description ?? ''), priority: asNum(to.priority) ?? 0, dependencies: asArr(to.dependencies).map(String) };
    }),
  } as Obj) as unknown as OrchestrationPattern;
}

/** The Step Execution Modes: each step's agent is a local agent alias or a registered agent (AGF058). */
function compileSteps(ctx: Ctx, p: Obj, aliases: Map<string, string>): OrchestrationPattern {
  const base = BASE;
  const steps = asArr(p.steps);
  dupCheck(ctx, steps, 'name', 'step', (i) => [...base, 'steps', i, 'name']);
  steps.forEach((s, i) => {
    const name = asStr(asObj(asObj(s).agent).ByName);
    if (!name) return;
    if (aliases.has(name)) return;
    if (ctx.reg.entries.agent.has(name)) { ctx.needs.add(name); ctx.disabledAgent([...base, 'steps', i, 'agent', 'ByName'], name, 'step agent'); return; }
    ctx.err([...base, 'steps', i, 'agent', 'ByName'], 'AGF058', `\`${name}\` is neither a local_agents alias nor a registered agent_id; declare \`local_agents: [{alias: ${name}, agent_ref: <agent_id>}]\` or create agents/${name}.agent.md`);
  });
  return { type: 'steps', steps: json(steps) as unknown as StepDefinition[] };
}
