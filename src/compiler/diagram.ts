/**
 * Diagrams of a compiled agent's topology (`loom diagram`, `loom validate --diagram`): the react loop
 * with its tools, every agf.* policy, the graph/swarm/workflow/steps patterns and every fuseraft
 * strategy (keyword routes, state machines with signals, keyword graphs, scatter-gather, map-reduce,
 * manager-driven and adversarial selection) with its termination. Pure: one neutral graph per agent,
 * rendered as Mermaid (`flowchart TD`) or Graphviz dot. Back-edges (loops, cycles, revisits) are dashed.
 */
import type {
  CompiledAgent, CompiledBundle, Condition, GraphPattern, JsonObject, OutputFrom, StepsPattern, StrategiesPattern, SwarmPattern, WorkflowPattern,
} from '../compiled/types';

export type NodeShape = 'box' | 'round' | 'decision' | 'terminal';
export interface DiagramNode { id: string; label: string; shape: NodeShape }
export interface DiagramEdge { from: string; to: string; label?: string; back?: boolean }
export interface Diagram { title: string; nodes: DiagramNode[]; edges: DiagramEdge[] }
export type DiagramFormat = 'mermaid' | 'dot';

class Builder {
  readonly nodes: DiagramNode[] = [];
  readonly edges: DiagramEdge[] = [];
  constructor(readonly title: string) {}
  node(id: string, label: string, shape: NodeShape = 'box'): string {
    if (!this.nodes.some((n) => n.id === id)) this.nodes.push({ id, label, shape });
    return id;
  }
  edge(from: string, to: string, label?: string, back = false): void {
    this.edges.push({ from, to, ...(label ? { label } : {}), ...(back ? { back } : {}) });
  }
  // Not `start`/`end`: `end` is a Mermaid keyword.
  start(): string { return this.node('input', 'input', 'terminal'); }
  end(label = 'output'): string { return this.node('output', label, 'terminal'); }
  done(): Diagram { return { title: this.title, nodes: this.nodes, edges: this.edges }; }
}

/** `a = 1 and b in [x]` for a ConditionGroup list (OR across groups, AND within). */
export function conditionText(c: Condition | undefined): string {
  if (!c) return '';
  const groups = Array.isArray(c) ? c : [c];
  return groups.map((g) => Object.entries(g.args_match).map(([k, v]) => matchText(k, v)).join(' and ')).join(' or ');
}

const OPERATORS: Record<string, string> = { eq: '=', ne: '≠', gt: '>', gte: '≥', lt: '<', lte: '≤', in: 'in', not_in: 'not in', matches: '~', contains: 'contains', exists: 'exists' };
function matchText(path: string, v: unknown): string {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const ops = Object.entries(v as Record<string, unknown>);
    if (ops.length && ops.every(([op]) => op in OPERATORS)) return ops.map(([op, x]) => `${path} ${OPERATORS[op]} ${JSON.stringify(x)}`).join(' and ');
  }
  return `${path} = ${JSON.stringify(v)}`;
}

function outputFromText(o: OutputFrom | undefined): string {
  if (o === undefined) return 'output';
  if (typeof o === 'string') return `output_from: ${o}`;
  return `output_from: ${o.agent ?? o.strategy ?? o.custom_transform ?? 'custom'}`;
}

const stepId = (i: number): string => `s${i + 1}`;

function react(a: CompiledAgent, b: Builder): void {
  const agent = b.node('agent', `${a.agent_id} (${a.runtime.model.model_id})`, 'round');
  b.edge(b.start(), agent);
  a.tools.refs.forEach((t, i) => {
    const notes = [t.approval_required ? 'approval' : '', t.max_calls_per_run !== undefined ? `max ${t.max_calls_per_run}` : '', t.kind === 'mcp' ? `mcp ${t.mcp?.server_id ?? ''}`.trim() : ''].filter(Boolean);
    const id = b.node(`t${i + 1}`, `${t.tool_id}${notes.length ? ` [${notes.join(', ')}]` : ''}`);
    b.edge(agent, id, 'call');
    b.edge(id, agent, 'result', true);
  });
  b.edge(agent, b.end(), a.runtime.max_turns ? `answer (max ${a.runtime.max_turns} turns)` : 'answer');
}

function policy(a: CompiledAgent, b: Builder): boolean {
  const p = a.execution_policy;
  const start = b.start();
  switch (p.id) {
    case 'agf.react':
      return false;
    case 'agf.sequential': {
      let prev = start;
      p.config.steps.forEach((s, i) => { b.edge(prev, b.node(stepId(i), s.agent)); prev = stepId(i); });
      b.edge(prev, b.end(outputFromText(p.config.output_from)));
      return true;
    }
    case 'agf.parallel': {
      const end = b.end(outputFromText(p.config.output_from));
      p.config.agents.forEach((s, i) => { b.edge(start, b.node(stepId(i), s.agent)); b.edge(stepId(i), end); });
      return true;
    }
    case 'agf.loop': {
      let prev = start;
      p.config.steps.forEach((s, i) => { b.edge(prev, b.node(stepId(i), s.agent)); prev = stepId(i); });
      const check = b.node('check', p.config.exit_condition ? `exit when ${conditionText(p.config.exit_condition)}` : 'next iteration', 'decision');
      b.edge(prev, check);
      if (p.config.steps.length) b.edge(check, stepId(0), `repeat (max ${p.config.max_iterations})`, true);
      b.edge(check, b.end(outputFromText(p.config.output_from)), 'exit');
      return true;
    }
    case 'agf.batch': {
      const each = b.node('each', `${p.config.agent} per item${p.config.max_concurrency ? ` (${p.config.max_concurrency} at a time)` : ''}`);
      b.edge(start, each, p.config.max_batch_count ? `≤ ${p.config.max_batch_count} items` : 'items');
      b.edge(each, b.end('results in input order'));
      return true;
    }
    case 'agf.conditional': {
      const route = b.node('route', 'first matching route', 'decision');
      b.edge(start, route);
      const end = b.end();
      p.config.routes.forEach((r, i) => { b.edge(route, b.node(`r${i + 1}`, r.agent), conditionText(r.when)); b.edge(`r${i + 1}`, end); });
      if (p.config.default_agent) { b.edge(route, b.node('default', p.config.default_agent), 'otherwise'); b.edge('default', end); }
      return true;
    }
    default:
      b.edge(start, b.node('vendor', `${p.id} (vendor policy)`));
      b.edge('vendor', b.end());
      return true;
  }
}

/** Edges that close a cycle (target on the DFS stack from the entry nodes) are back-edges. */
function markBackEdges(entries: string[], nodes: string[], edges: DiagramEdge[]): void {
  const state = new Map<string, 'open' | 'done'>();
  const visit = (n: string): void => {
    state.set(n, 'open');
    for (const e of edges.filter((x) => x.from === n)) {
      const s = state.get(e.to);
      if (s === 'open') e.back = true;
      else if (!s) visit(e.to);
    }
    state.set(n, 'done');
  };
  for (const n of [...entries, ...nodes]) if (!state.has(n)) visit(n);
}

function graph(p: GraphPattern, b: Builder, self: string): void {
  // `$self` (the orchestrating agent) is the implicit entry node and runs first.
  b.edge(b.start(), b.node('n_self', `$self: ${self}`, 'round'));
  const id = (n: string): string => (n === '$self' ? 'n_self' : `n_${n}`);
  const ids = ['n_self', ...p.nodes.map((n) => id(n.id))];
  p.nodes.forEach((n) => b.node(id(n.id), `${n.id}: ${n.agent_ref}`));
  const targets = new Set(p.edges.map((e) => e.to));
  const entries = ['n_self', ...p.nodes.filter((n) => !targets.has(n.id)).map((n) => id(n.id))];
  for (const e of entries.slice(1)) b.edge('n_self', e);
  const edges: DiagramEdge[] = p.edges.map((e) => ({ from: id(e.from), to: id(e.to), ...(e.condition ? { label: e.condition } : {}) }));
  markBackEdges(entries, ids, edges);
  b.edges.push(...edges);
  // A node ends the run when no edge leaves it unconditionally.
  for (const n of p.nodes) {
    const out = p.edges.filter((e) => e.from === n.id);
    if (!out.some((e) => !e.condition)) b.edge(id(n.id), b.end(), out.length ? 'no condition holds' : undefined);
  }
}

function swarm(p: SwarmPattern, b: Builder): void {
  const ids = p.agents.map((a, i) => b.node(`a${i + 1}`, a.ref));
  if (ids.length) b.edge(b.start(), ids[0]);
  for (const x of ids) for (const y of ids) if (x !== y) b.edge(x, y, 'handoff', true);
  for (const x of ids) b.edge(x, b.end(`output (max ${p.max_handoffs} handoffs)`));
}

function workflow(p: WorkflowPattern, b: Builder): void {
  for (const t of p.tasks) b.node(`t_${t.task_id}`, `${t.task_id}: ${t.agent_ref}`);
  const dependedOn = new Set(p.tasks.flatMap((t) => t.dependencies));
  for (const t of p.tasks) {
    if (!t.dependencies.length) b.edge(b.start(), `t_${t.task_id}`);
    for (const d of t.dependencies) b.edge(`t_${d}`, `t_${t.task_id}`);
  }
  for (const t of p.tasks.filter((x) => !dependedOn.has(x.task_id))) b.edge(`t_${t.task_id}`, b.end(p.max_workers ? `output (${p.max_workers} workers)` : 'output'));
}

function steps(p: StepsPattern, b: Builder): void {
  // FanOut steps all start from the step before them; a Collect step (or the next step) joins them.
  let prev = [b.start()];
  let fanFrom: string[] | undefined;
  // A condition's false branch skips its step and goes on to the next one.
  const link = (f: string, to: string, label?: string): void => b.edge(f, to, f.startsWith('c_') ? 'false' : label);
  for (const s of p.steps) {
    const id = b.node(`st_${s.name}`, `${s.name}: ${s.agent.ByName}${s.output_var ? ` → ${s.output_var}` : ''}`);
    const m = s.mode;
    if (m === 'FanOut') {
      fanFrom ??= prev;
      for (const f of fanFrom) link(f, id, 'fan out');
      prev = fanFrom === prev ? [id] : [...prev, id];
      continue;
    }
    fanFrom = undefined;
    if (m && typeof m === 'object' && 'Conditional' in m) {
      const c = b.node(`c_${s.name}`, m.Conditional.condition, 'decision');
      for (const f of prev) link(f, c);
      b.edge(c, id, 'true');
      prev = [id, c];
      continue;
    }
    for (const f of prev) link(f, id, m === 'Collect' ? 'collect' : undefined);
    if (m && typeof m === 'object' && 'Loop' in m) b.edge(id, id, `loop ≤ ${m.Loop.max_iterations}${m.Loop.until ? ` until ${m.Loop.until}` : ''}`, true);
    prev = [id];
  }
  const end = b.end();
  for (const f of prev) link(f, end);
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));
const arr = (v: unknown): JsonObject[] => (Array.isArray(v) ? (v as JsonObject[]) : []);
const obj = (v: unknown): JsonObject => (v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {});

function terminationText(t: JsonObject): string {
  switch (t.Type) {
    case 'regex': return `stop on /${str(t.Pattern)}/${arr(t.AgentNames).length ? ` from ${(t.AgentNames as string[]).join(', ')}` : ''}`;
    case 'maxiterations': return `stop after ${str(t.MaxIterations)} turns`;
    case 'composite': return arr(t.Strategies).map(terminationText).join(' or ');
    default: return 'output';
  }
}

/** A fuseraft Graph (top level or a sub-graph); node ids prefixed so sub-graphs never collide. */
function strategyGraph(g: JsonObject, b: Builder, prefix: string, entryFrom: string, end: string): void {
  const nodes = arr(g.Nodes);
  const ids = nodes.map((n) => `${prefix}${str(n.Id)}`);
  nodes.forEach((n) => b.node(`${prefix}${str(n.Id)}`, `${str(n.Id)}: ${n.SubGraphId ? `sub-graph ${str(n.SubGraphId)}` : str(n.Agent)}${n.Parallel ? ' (parallel)' : ''}`));
  const entry = `${prefix}${str(g.EntryNode ?? nodes[0]?.Id)}`;
  b.edge(entryFrom, entry);
  const edges: DiagramEdge[] = arr(g.Edges).map((e) => {
    const label = [e.Keyword ? `'${str(e.Keyword)}'` : '', e.RequireHumanApproval ? 'approval' : ''].filter(Boolean).join(', ');
    return { from: `${prefix}${str(e.From)}`, to: `${prefix}${str(e.To)}`, ...(label ? { label } : {}) };
  });
  markBackEdges([entry], ids, edges);
  b.edges.push(...edges);
  for (const n of nodes.filter((x) => x.Terminal === true)) b.edge(`${prefix}${str(n.Id)}`, end);
}

function strategies(p: StrategiesPattern, b: Builder): void {
  const cfg = p.config;
  const sel = obj(cfg.Selection);
  const start = b.start();
  const end = b.end(cfg.Termination ? terminationText(obj(cfg.Termination)) : 'output');
  const agentNode = (name: string): string => b.node(`a_${name}`, name);
  const type = str(sel.Type);
  switch (type) {
    case 'sequential':
    case 'roundrobin': {
      const names = p.agents.map((a) => a.name);
      let prev = start;
      for (const n of names) { b.edge(prev, agentNode(n)); prev = `a_${n}`; }
      if (names.length) { b.edge(prev, `a_${names[0]}`, type === 'roundrobin' ? 'next round' : 'again', true); b.edge(prev, end); }
      return;
    }
    case 'keyword':
    case 'structured': {
      const router = b.node('router', type === 'keyword' ? 'keyword in the last message' : 'field of the last JSON reply', 'decision');
      b.edge(start, router);
      if (type === 'keyword') for (const r of arr(sel.Routes)) b.edge(router, agentNode(str(r.Agent)), `'${str(r.Keyword)}'${r.RequireHumanApproval ? ', approval' : ''}`);
      else for (const r of arr(sel.StructuredRoutes)) {
        const c = obj(r.Condition);
        const op = ['Is', 'IsNot', 'Contains', 'Exists'].find((k) => c[k] !== undefined) ?? 'Is';
        b.edge(router, agentNode(str(r.Agent)), `${str(c.Field)} ${op} ${str(c[op])}`);
      }
      if (sel.DefaultAgent) b.edge(router, agentNode(str(sel.DefaultAgent)), 'otherwise');
      for (const a of p.agents) if (b.nodes.some((n) => n.id === `a_${a.name}`)) { b.edge(`a_${a.name}`, router, 'reply', true); }
      b.edge(router, end, 'terminated');
      return;
    }
    case 'statemachine': {
      const sm = obj(sel.StateMachine);
      const states = obj(sm.States);
      for (const [name, s] of Object.entries(states)) b.node(`q_${name}`, `${name}: ${str(obj(s).Agent)}`);
      const entry = `q_${str(sm.Initial)}`;
      b.edge(start, entry);
      const edges: DiagramEdge[] = [];
      for (const [name, s] of Object.entries(states)) {
        for (const t of arr(obj(s).Transitions)) {
          const label = [t.Signal ? `signal ${str(t.Signal)}` : '', t.Contract ? `contract ${str(t.Contract)}` : '', t.MaxRevisits !== undefined ? `max ${str(t.MaxRevisits)} revisits` : ''].filter(Boolean).join(', ');
          const targets = t.Parallel && Array.isArray(t.Targets) ? (t.Targets as string[]) : [str(t.To)];
          for (const to of targets) edges.push({ from: `q_${name}`, to: `q_${to}`, ...(label || t.Parallel ? { label: [t.Parallel ? 'parallel' : '', label].filter(Boolean).join(', ') } : {}) });
          if (t.Parallel && Array.isArray(t.Targets)) for (const to of t.Targets as string[]) edges.push({ from: `q_${to}`, to: `q_${str(t.To)}`, label: 'join' });
        }
        if (obj(s).Terminal === true) b.edge(`q_${name}`, end);
      }
      markBackEdges([entry], Object.keys(states).map((n) => `q_${n}`), edges);
      b.edges.push(...edges);
      return;
    }
    case 'graph': {
      const g = obj(sel.Graph);
      strategyGraph(g, b, 'g_', start, end);
      for (const [id, spec] of Object.entries(obj(g.SubGraphs))) {
        const sub = obj(spec);
        const at = arr(g.Nodes).find((n) => n.SubGraphId === id);
        const from = at ? `g_${str(at.Id)}` : start;
        if (sub.Graph) strategyGraph(obj(sub.Graph), b, `sg_${id}_`, from, from);
        else if (sub.ScatterGather || sub.MapReduce) fanOut(sub, b, `sg_${id}_`, from, from);
      }
      return;
    }
    case 'scattergather':
    case 'mapreduce':
      fanOut(sel, b, '', start, end);
      return;
    case 'adversarial': {
      const adv = obj(sel.Adversarial);
      let prev = start;
      arr(adv.Stages).forEach((s, i) => {
        const g = b.node(`gen${i + 1}`, `${str(s.Label) || `stage ${i + 1}`}: ${str(s.Generator)} generates`);
        const c = b.node(`crit${i + 1}`, `${str(s.Critic)} critiques`, 'decision');
        b.edge(prev, g);
        b.edge(g, c);
        b.edge(c, g, `revise (≤ ${str(adv.Rounds ?? 3)} rounds)`, true);
        prev = c;
      });
      b.edge(prev, end, adv.PassKeyword ? `'${str(adv.PassKeyword)}'` : 'pass');
      return;
    }
    default: {
      // llm / magentic: a model picks the next speaker among the agents each turn.
      const mgr = b.node('manager', type === 'magentic' ? 'magentic manager (plan, pick, review)' : 'model picks the next agent', 'decision');
      b.edge(start, mgr);
      for (const a of p.agents) { b.edge(mgr, agentNode(a.name)); b.edge(`a_${a.name}`, mgr, 'reply', true); }
      b.edge(mgr, end, 'done');
    }
  }
}

function fanOut(cfg: JsonObject, b: Builder, prefix: string, from: string, to: string): void {
  if (cfg.ScatterGather) {
    const sg = obj(cfg.ScatterGather);
    const synth = b.node(`${prefix}synth`, `${str(sg.Synthesizer)} synthesizes`);
    for (const p of (sg.Participants as string[] | undefined) ?? []) { b.edge(from, b.node(`${prefix}p_${p}`, p), 'scatter'); b.edge(`${prefix}p_${p}`, synth, 'gather'); }
    b.edge(synth, to, undefined, from === to);
    return;
  }
  const mr = obj(cfg.MapReduce);
  const split = b.node(`${prefix}split`, `${str(mr.Splitter)} splits`);
  const map = b.node(`${prefix}map`, `${str(mr.Mapper)} per item${mr.MaxConcurrency ? ` (${str(mr.MaxConcurrency)} at a time)` : ''}`);
  const reduce = b.node(`${prefix}reduce`, `${str(mr.Reducer)} reduces`);
  b.edge(from, split);
  b.edge(split, map, 'items');
  b.edge(map, reduce, 'results');
  b.edge(reduce, to, undefined, from === to);
}

/** The topology of one compiled agent. */
export function agentDiagram(a: CompiledAgent): Diagram {
  const pattern = a.orchestration.pattern;
  const b = new Builder(`${a.agent_id} v${a.version}`);
  switch (pattern?.type) {
    case 'graph': graph(pattern as GraphPattern, b, a.agent_id); break;
    case 'swarm': swarm(pattern as SwarmPattern, b); break;
    case 'workflow': workflow(pattern as WorkflowPattern, b); break;
    case 'steps': steps(pattern as StepsPattern, b); break;
    case 'strategies': strategies(pattern as StrategiesPattern, b); break;
    default: if (!policy(a, b)) react(a, b);
  }
  return b.done();
}

/** The diagram of a bundle's root agent. */
export function bundleDiagram(bundle: CompiledBundle): Diagram {
  return agentDiagram(bundle.agents[bundle.root]);
}

// ---- where a run is now (`loom diagram AGENT --run ID`) ---------------------------------------

/** Diagram node ids a run is at now, has finished, or failed at. */
export interface RunMarks { current: string[]; done: string[]; failed: string[] }

/** The subset of the run's status query the marks are read from (src/shared/contract.ts RunStatus). */
export interface RunStatusView { state: string; pattern: string; progress?: JsonObject }

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/**
 * Where a run of `a` is now, from its status query, as diagram node ids: graph nodes by their
 * status, the step of agf.sequential, the route of agf.conditional, task DAG tasks by
 * status, the swarm's current agent, the steps pattern's current step, a strategies speaker or
 * state. A finished run marks the output done; a failed one marks the nodes it stopped at failed.
 */
export function runMarks(a: CompiledAgent, status: RunStatusView): RunMarks {
  const d = agentDiagram(a);
  const has = (id: string): boolean => d.nodes.some((n) => n.id === id);
  const m: RunMarks = { current: [], done: [], failed: [] };
  const add = (k: keyof RunMarks, id: string): void => { if (has(id) && !m[k].includes(id)) m[k].push(id); };
  const prog = status.progress ?? {};
  const pattern = a.orchestration.pattern;
  const policyId = a.execution_policy.id;
  if (pattern?.type === 'graph') {
    const nodes = obj(prog.nodes);
    for (const [id, v] of Object.entries(nodes)) {
      const nid = id === '$self' ? 'n_self' : `n_${id}`;
      const st = str(obj(v).status);
      if (st === 'running' || st === 'activated') add('current', nid);
      else if (st === 'completed') add('done', nid);
      else if (st === 'failed') add('failed', nid);
    }
  } else if (pattern?.type === 'workflow') {
    for (const t of arr(prog.tasks)) {
      const st = str(t.status);
      const id = `t_${str(t.task_id)}`;
      if (st === 'running') add('current', id);
      else if (st === 'completed') add('done', id);
      else if (st === 'failed' || st === 'halted') add('failed', id);
    }
  } else if (pattern?.type === 'swarm') {
    const names = (pattern as SwarmPattern).agents.map((x) => x.ref);
    const cur = names.indexOf(str(prog.current_agent));
    for (const h of arr(prog.history)) { const i = names.indexOf(str(h.agent)); if (i >= 0 && i !== cur) add('done', `a${i + 1}`); }
    if (cur >= 0) add('current', `a${cur + 1}`);
  } else if (pattern?.type === 'steps') {
    const names = (pattern as StepsPattern).steps.map((x) => x.name);
    const at = names.indexOf(str(prog.current_step));
    names.forEach((n, i) => { if (i < at) add('done', `st_${n}`); });
    if (at >= 0) add('current', `st_${names[at]}`);
  } else if (pattern?.type === 'strategies') {
    if (prog.speaker !== undefined) add('current', `a_${str(prog.speaker)}`);
    if (prog.position !== undefined) { add('current', `q_${str(prog.position)}`); add('current', `g_${str(prog.position)}`); }
  } else if (policyId === 'agf.sequential') {
    const step = num(prog.step);
    if (step !== undefined) {
      for (let i = 0; i < step - 1; i++) add('done', stepId(i));
      add('current', stepId(step - 1));
    }
  } else if (policyId === 'agf.conditional') {
    const route = prog.route;
    add('done', 'route');
    add('current', route === 'default' ? 'default' : typeof route === 'number' ? `r${route + 1}` : '');
  } else if (!pattern && policyId === 'agf.react') {
    add('current', 'agent');
  }
  if (status.state === 'completed') {
    // Everything the run was at is behind it.
    m.done.push(...m.current.filter((id) => !m.done.includes(id)));
    m.current = [];
    add('done', 'input');
    add('done', 'output');
  } else if (status.state === 'failed' || status.state === 'cancelled') {
    m.failed.push(...m.current.filter((id) => !m.failed.includes(id)));
    m.current = [];
    add('done', 'input');
  } else add('done', 'input');
  return m;
}

// ---- rendering -------------------------------------------------------------------------------

const mermaidId = (id: string): string => id.replace(/[^A-Za-z0-9_]/g, '_');
const mermaidText = (s: string): string => s.replace(/"/g, '#quot;').replace(/\n/g, ' ');

/** Mermaid classes of `--run` marks: where the run is now, what it finished, where it failed. */
const MERMAID_MARKS: Record<keyof RunMarks, string> = {
  current: 'fill:#ffe082,stroke:#e65100,stroke-width:3px',
  done: 'fill:#c8e6c9,stroke:#2e7d32',
  failed: 'fill:#ffcdd2,stroke:#c62828,stroke-width:3px',
};

export function toMermaid(d: Diagram, marks?: RunMarks): string {
  const shape = (n: DiagramNode): string => {
    const t = `"${mermaidText(n.label)}"`;
    return n.shape === 'round' ? `(${t})` : n.shape === 'decision' ? `{${t}}` : n.shape === 'terminal' ? `([${t}])` : `[${t}]`;
  };
  const lines = [`---`, `title: ${mermaidText(d.title)}`, `---`, 'flowchart TD'];
  for (const n of d.nodes) lines.push(`  ${mermaidId(n.id)}${shape(n)}`);
  for (const e of d.edges) {
    const arrow = e.back ? '-.->' : '-->';
    lines.push(`  ${mermaidId(e.from)} ${arrow}${e.label ? `|"${mermaidText(e.label)}"|` : ''} ${mermaidId(e.to)}`);
  }
  if (marks) {
    for (const k of ['current', 'done', 'failed'] as const) {
      lines.push(`  classDef ${k} ${MERMAID_MARKS[k]}`);
      if (marks[k].length) lines.push(`  class ${marks[k].map(mermaidId).join(',')} ${k}`);
    }
  }
  return lines.join('\n') + '\n';
}

const dotText = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, ' ')}"`;

const DOT_MARKS: Record<keyof RunMarks, string> = { current: '#ffe082', done: '#c8e6c9', failed: '#ffcdd2' };

export function toDot(d: Diagram, marks?: RunMarks): string {
  const shape: Record<NodeShape, string> = { box: 'box', round: 'box, style=rounded', decision: 'diamond', terminal: 'oval' };
  const lines = [`digraph ${dotText(d.title)} {`, '  rankdir=TB;'];
  const markOf = (n: DiagramNode): string => {
    const k = (['current', 'failed', 'done'] as const).find((x) => marks?.[x].includes(n.id));
    if (!k) return `shape=${shape[n.shape]}`;
    const base = n.shape === 'round' ? 'box, style="rounded,filled"' : `${shape[n.shape]}, style=filled`;
    return `shape=${base}, fillcolor=${dotText(DOT_MARKS[k])}${k === 'done' ? '' : ', penwidth=3'}`;
  };
  for (const n of d.nodes) lines.push(`  ${dotText(n.id)} [label=${dotText(n.label)}, ${markOf(n)}];`);
  for (const e of d.edges) {
    const attrs = [e.label ? `label=${dotText(e.label)}` : '', e.back ? 'style=dashed' : ''].filter(Boolean);
    lines.push(`  ${dotText(e.from)} -> ${dotText(e.to)}${attrs.length ? ` [${attrs.join(', ')}]` : ''};`);
  }
  lines.push('}');
  return lines.join('\n') + '\n';
}

export function renderDiagram(d: Diagram, format: DiagramFormat = 'mermaid', marks?: RunMarks): string {
  return format === 'dot' ? toDot(d, marks) : toMermaid(d, marks);
}
