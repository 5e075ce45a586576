/**
 * Graph pattern scheduling (the Agent Definition Specification's "Graph pattern"), pure and deterministic:
 *  - `$self` (the orchestrator) is the implicit entry node and runs first;
 *  - after a node completes, its outgoing edges are evaluated against the graph state and every
 *    edge whose condition holds (or has none) activates its target;
 *  - an activated node runs once none of its inbound source nodes can still complete in the
 *    current wave (join: a fan-in node waits for all running/queued upstream branches, while a
 *    branch that was never taken does not block it). Back-edges (found by a depth-first search
 *    from `$self`, edges in declaration order) close cycles: their sources never block the
 *    target, since they can only complete again after the target itself has run;
 *  - `max_node_executions` bounds the total number of node executions ($self included);
 *  - error edges (`on: error`, the Agent Definition Specification's "explicit error edges") are traversed only when their
 *    source fails: the target receives `{error, node}` as that source's input. They take no part
 *    in joins or cycle detection (a failed source never runs again in that wave);
 *  - the graph transcript: every completion appends `{node, visit, output}` (completion order);
 *    conditions read it as `transcript` (`transcript.0.output`, `len(transcript)`) and
 *    `transcript_last` (the newest entry), nodes read it in their first message (the workflow
 *    stores it as a chain in the content-addressed store, src/activities/graph-messages.ts).
 */
import type { GraphPattern, JsonObject, JsonValue } from '../compiled/types';
import { Ast, evaluateExpr, parseExpr, textOf } from '../shared/expr';

export const SELF = '$self';

export interface GraphNodeState {
  id: string;
  executions: number;
  status: 'idle' | 'activated' | 'running' | 'completed' | 'failed';
  last_output?: JsonValue;
  /** All outputs of this node, oldest first (kept for reset_on_revisit: false). */
  outputs: JsonValue[];
  /** Sources whose completion activated this node since its last run. */
  activated_by: string[];
  /** Targets activated by this node's last completion (none = a sink of this run). */
  last_activated?: string[];
}

export interface GraphSnapshot {
  nodes: Record<string, GraphNodeState>;
  total_executions: number;
  order: string[];
  /** Node ids in completion order. */
  completed_order: string[];
  /** Every completion in order (the graph transcript; outputs the workflow already holds). */
  transcript?: GraphTranscriptEntry[];
}

/** One entry of the graph transcript: which node completed, its visit number (1-based), its output. */
export interface GraphTranscriptEntry { node: string; visit: number; output: JsonValue }

export class GraphScheduler {
  readonly nodeIds: string[];
  readonly inbound: Record<string, string[]> = {};
  readonly outbound: Record<string, { to: string; cond?: Ast; condition?: string }[]> = {};
  /** Error edges by source: targets to activate when the source fails (condition evaluated on the error). */
  readonly errorOut: Record<string, { to: string; cond?: Ast }[]> = {};
  readonly state: GraphSnapshot;
  /** Edges `from -> to` that close a cycle (DFS from `$self` in declaration order), as `from\u0000to`. */
  readonly backEdges: Set<string>;
  /**
   * Whether back-edge sources are ignored when deciding if a node may run (the workflow turns it off
   * when replaying a run recorded before patch `graph-back-edges`).
   */
  ignoreBackEdges = true;

  constructor(readonly pattern: Pick<GraphPattern, 'nodes' | 'edges' | 'max_node_executions'>, snapshot?: GraphSnapshot) {
    this.nodeIds = [SELF, ...pattern.nodes.map((n) => n.id)];
    for (const id of this.nodeIds) { this.inbound[id] = []; this.outbound[id] = []; this.errorOut[id] = []; }
    for (const e of pattern.edges) {
      if (!(e.from in this.outbound)) throw new Error(`graph edge from unknown node '${e.from}'`);
      if (!(e.to in this.inbound)) throw new Error(`graph edge to unknown node '${e.to}'`);
      if (e.to === SELF) throw new Error(`graph edge into '${SELF}': the orchestrator is only the entry node`);
      if (e.on === 'error') { this.errorOut[e.from].push({ to: e.to, cond: e.condition ? parseExpr(e.condition) : undefined }); continue; }
      this.outbound[e.from].push({ to: e.to, condition: e.condition, cond: e.condition ? parseExpr(e.condition) : undefined });
      if (!this.inbound[e.to].includes(e.from)) this.inbound[e.to].push(e.from);
    }
    this.backEdges = this.findBackEdges();
    this.state = snapshot ?? {
      nodes: Object.fromEntries(this.nodeIds.map((id) => [id, { id, executions: 0, status: id === SELF ? 'activated' : 'idle', outputs: [], activated_by: [] }])),
      total_executions: 0,
      order: this.nodeIds,
      completed_order: [],
      transcript: [],
    };
  }

  node(id: string): GraphNodeState {
    const n = this.state.nodes[id];
    if (!n) throw new Error(`unknown graph node '${id}'`);
    return n;
  }

  private live(except: string): string[] {
    return this.nodeIds.filter((id) => id !== except && ['running', 'activated'].includes(this.state.nodes[id].status));
  }

  /** Nodes reachable from `from` (inclusive) without passing through `blocked`. */
  private reachable(from: string[], blocked: string): Set<string> {
    const seen = new Set<string>();
    const stack = [...from];
    while (stack.length) {
      const n = stack.pop()!;
      if (n === blocked || seen.has(n)) continue;
      seen.add(n);
      for (const e of this.outbound[n]) stack.push(e.to);
    }
    return seen;
  }

  /** Iterative DFS from `$self` (outgoing edges in declaration order): edges into a node on the stack. */
  private findBackEdges(): Set<string> {
    const back = new Set<string>();
    const onStack = new Set<string>();
    const visited = new Set<string>([SELF]);
    const stack: { id: string; next: number }[] = [{ id: SELF, next: 0 }];
    onStack.add(SELF);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const out = this.outbound[top.id];
      if (top.next >= out.length) {
        onStack.delete(top.id);
        stack.pop();
        continue;
      }
      const to = out[top.next++].to;
      if (onStack.has(to)) back.add(`${top.id}\u0000${to}`);
      else if (!visited.has(to)) {
        visited.add(to);
        onStack.add(to);
        stack.push({ id: to, next: 0 });
      }
    }
    return back;
  }

  isBackEdge(from: string, to: string): boolean {
    return this.backEdges.has(`${from}\u0000${to}`);
  }

  /** Activated nodes whose inbound sources can no longer complete in this wave, in declaration order. */
  readyNodes(): string[] {
    const ready: string[] = [];
    for (const id of this.nodeIds) {
      if (this.state.nodes[id].status !== 'activated') continue;
      const upstreamLive = this.reachable(this.live(id), id);
      const blocking = this.ignoreBackEdges ? this.inbound[id].filter((s) => !this.isBackEdge(s, id)) : this.inbound[id];
      if (blocking.some((s) => upstreamLive.has(s))) continue;
      ready.push(id);
    }
    return ready;
  }

  /** Nodes running now. */
  running(): string[] {
    return this.nodeIds.filter((id) => this.state.nodes[id].status === 'running');
  }

  /**
   * Activated nodes that can never start: nothing is running and none of them is ready (they wait
   * on each other). Empty when the graph can make progress or is finished.
   */
  stalled(): string[] {
    if (this.running().length || this.readyNodes().length) return [];
    return this.nodeIds.filter((id) => this.state.nodes[id].status === 'activated');
  }

  /** Whether starting another execution would pass max_node_executions. */
  limitReached(): boolean {
    const max = this.pattern.max_node_executions;
    return max !== undefined && this.state.total_executions >= max;
  }

  markRunning(id: string): number {
    const n = this.node(id);
    n.status = 'running';
    n.executions += 1;
    this.state.total_executions += 1;
    return n.executions;
  }

  /** The scope edge conditions see after `source` completed with `output`. */
  scopeFor(source: string, output: JsonValue, input: JsonValue): { vars: Record<string, JsonValue | undefined>; resultText: string } {
    const results: JsonObject = {};
    const state: JsonObject = {};
    for (const id of this.state.completed_order) {
      const o = this.state.nodes[id].last_output;
      if (o === undefined) continue;
      results[id] = o;
      if (o && typeof o === 'object' && !Array.isArray(o)) Object.assign(state, o);
    }
    const executions: JsonObject = Object.fromEntries(this.nodeIds.map((id) => [id, this.state.nodes[id].executions]));
    const transcript = (this.state.transcript ?? []) as unknown as JsonObject[];
    return {
      vars: {
        result: output,
        state: { ...state, input, results, last_node: source, executions, total_executions: this.state.total_executions },
        input,
        results,
        node: source,
        executions,
        transcript,
        transcript_last: transcript.length ? transcript[transcript.length - 1] : null,
      },
      resultText: textOf(output),
    };
  }

  /**
   * Record a completion and activate the targets of every traversable outgoing edge.
   * Returns the activated target ids (in edge order).
   */
  complete(id: string, output: JsonValue, input: JsonValue): string[] {
    const n = this.node(id);
    n.status = 'completed';
    n.last_output = output;
    n.outputs.push(output);
    n.activated_by = [];
    (this.state.transcript ??= []).push({ node: id, visit: n.executions, output });
    this.state.completed_order = [...this.state.completed_order.filter((x) => x !== id), id];
    return this.activate(id, this.outbound[id], output, input);
  }

  /** Activate the target of every edge of `edges` whose condition holds for `source`'s `result`. */
  private activate(source: string, edges: { to: string; cond?: Ast }[], result: JsonValue, input: JsonValue): string[] {
    const scope = this.scopeFor(source, result, input);
    const activated: string[] = [];
    for (const e of edges) {
      if (e.cond && !evaluateExpr(e.cond, scope)) continue;
      const t = this.node(e.to);
      if (!t.activated_by.includes(source)) t.activated_by.push(source);
      if (t.status !== 'running') t.status = 'activated';
      if (!activated.includes(e.to)) activated.push(e.to);
    }
    this.node(source).last_activated = activated;
    return activated;
  }

  fail(id: string): void {
    this.node(id).status = 'failed';
  }

  /** Whether `id` has error edges (the workflow then routes its failure instead of escalating). */
  hasErrorEdges(id: string): boolean {
    return this.errorOut[id].length > 0;
  }

  /**
   * Record a failure that error edges handle: the node is failed, its `{error, node}` becomes what
   * its error targets receive from it, and every error edge whose condition holds (evaluated with
   * `result` = that object) activates its target. Returns the activated targets (edge order).
   */
  failInto(id: string, error: string, input: JsonValue): string[] {
    const n = this.node(id);
    const failure: JsonObject = { error, node: id };
    n.status = 'failed';
    n.last_output = failure;
    n.activated_by = [];
    return this.activate(id, this.errorOut[id], failure, input);
  }

  /** True when nothing is running or waiting to run. */
  finished(): boolean {
    return !this.nodeIds.some((id) => ['running', 'activated'].includes(this.state.nodes[id].status));
  }

  /**
   * The graph's output: the outputs of the nodes whose last completion activated nothing (the
   * sinks of this run). One sink → its output; several → object keyed by node id in declaration order.
   */
  output(): JsonValue {
    const sinks = this.nodeIds.filter((id) => {
      const n = this.state.nodes[id];
      return n.status === 'completed' && (n.last_activated?.length ?? 0) === 0;
    });
    if (sinks.length === 1) return this.state.nodes[sinks[0]].last_output ?? null;
    if (sinks.length === 0) {
      const last = this.state.completed_order[this.state.completed_order.length - 1];
      return last ? this.state.nodes[last].last_output ?? null : null;
    }
    const out: JsonObject = {};
    for (const id of sinks) out[id] = this.state.nodes[id].last_output ?? null;
    return out;
  }

  /** Inputs of the sources that activated `id`, keyed by node id (for the node's input). */
  inputsFor(id: string): JsonObject {
    const out: JsonObject = {};
    for (const s of this.node(id).activated_by) {
      const o = this.state.nodes[s].last_output;
      if (o !== undefined) out[s] = o;
    }
    return out;
  }

  progress(): JsonObject {
    return {
      total_executions: this.state.total_executions,
      max_node_executions: this.pattern.max_node_executions ?? null,
      nodes: Object.fromEntries(this.nodeIds.map((id) => [id, { status: this.state.nodes[id].status, executions: this.state.nodes[id].executions }])),
    };
  }
}

/** Compile-time style checks of a graph pattern (unknown nodes, bad conditions, $self in nodes). */
export function checkGraph(p: Pick<GraphPattern, 'nodes' | 'edges'>): string[] {
  const problems: string[] = [];
  const ids = new Set(p.nodes.map((n) => n.id));
  if (ids.has(SELF)) problems.push(`'${SELF}' must not appear in nodes`);
  for (const e of p.edges) {
    if (e.from !== SELF && !ids.has(e.from)) problems.push(`edge from unknown node '${e.from}'`);
    if (!ids.has(e.to)) problems.push(`edge to unknown node '${e.to}'`);
    if (e.condition) {
      try { parseExpr(e.condition); } catch (err) { problems.push(`edge ${e.from} -> ${e.to}: ${(err as Error).message}`); }
    }
  }
  return problems;
}
