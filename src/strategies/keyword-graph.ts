/**
 * The keyword `graph` selection strategy (fuseraft's "graph"), pure. Nodes bind an agent (or a
 * sub-graph) to an id; edges carry keywords. BFS layers from EntryNode classify every edge as
 * forward (target layer > source layer) or back-edge (target layer ≤ source layer): a back-edge
 * breaks the phase and restarts from its target. Only the current node's outgoing edges are
 * checked, in declaration order, with strict matching (the keyword alone on its line) or a
 * handoff call; an edge without Keyword fires unconditionally. Terminal nodes end the session once
 * their Validators pass; Parallel nodes sharing a trigger run as one fan-out.
 */
import { admits, FailureState, noFailures, Router, speak, Step } from './core';
import { runValidators, validatorsOf } from './evidence';
import { evidenceKind, handleFailure } from './failure';
import { sameKeyword, signalsOf } from './keywords';
import type { Decision, FailureHandlingConfig, FailureKind, GraphConfig, GraphEdgeConfig, GraphNodeConfig, Turn } from './types';

/** fuseraft's GraphConfig.MaxRetries default. */
export const DEFAULT_MAX_RETRIES = 4;
/** fuseraft: RecoveryAgent runs "when a validator has failed two or more consecutive times on this edge". */
export const EDGE_RECOVERY_AFTER = 2;

export type EdgeKind = 'forward' | 'back' | 'unreachable';

export function entryNodeOf(g: GraphConfig): string | undefined {
  return g.EntryNode ?? g.Nodes[0]?.Id;
}

/**
 * BFS layer of every node reachable from the entry, and each edge's kind. BFS distance over all
 * edges is fuseraft's layering: every edge of the BFS tree goes one layer down, so it is forward.
 */
export function graphLayers(g: GraphConfig): { layer: Record<string, number>; edgeKinds: EdgeKind[] } {
  const layer: Record<string, number> = {};
  const entry = entryNodeOf(g);
  const ids = new Set(g.Nodes.map((n) => n.Id));
  if (entry !== undefined && ids.has(entry)) {
    layer[entry] = 0;
    const queue = [entry];
    while (queue.length) {
      const n = queue.shift() as string;
      for (const e of g.Edges) {
        if (e.From === n && ids.has(e.To) && layer[e.To] === undefined) {
          layer[e.To] = layer[n] + 1;
          queue.push(e.To);
        }
      }
    }
  }
  const edgeKinds = g.Edges.map((e): EdgeKind => {
    if (layer[e.From] === undefined || layer[e.To] === undefined) return 'unreachable';
    return layer[e.To] > layer[e.From] ? 'forward' : 'back';
  });
  return { layer, edgeKinds };
}

/** The node every Parallel node of a fan-out group hands to: the common target of their first
 * unconditional edge; undefined when they do not agree (the validator refuses that). */
export function fanOutJoin(g: GraphConfig, branchIds: readonly string[]): string | undefined {
  const joins = branchIds.map((id) => g.Edges.find((e) => e.From === id && e.Keyword === undefined)?.To);
  return joins.length > 0 && joins.every((j) => j !== undefined && j === joins[0]) ? joins[0] : undefined;
}

/** Edges leaving `from` that fire together with `edge` as one Parallel fan-out (same trigger). */
export function fanOutGroup(g: GraphConfig, edge: GraphEdgeConfig, author?: string): GraphEdgeConfig[] {
  const isParallel = (id: string): boolean => g.Nodes.find((n) => n.Id === id)?.Parallel === true;
  if (!isParallel(edge.To)) return [edge];
  return g.Edges.filter((e) => e.From === edge.From && isParallel(e.To)
    && (e.Keyword === undefined ? edge.Keyword === undefined : edge.Keyword !== undefined && sameKeyword(e.Keyword, edge.Keyword))
    && (author === undefined || admits(e.SourceAgents, author)));
}

export interface GraphState extends FailureState {
  current: string;
  /** Consecutive validator failures per edge index. */
  edgeFailures: Record<number, number>;
  /** Edges whose RecoveryAgent already ran (at most once per edge per session). */
  recoveryUsed: number[];
  recovering?: boolean;
}

export function keywordGraphRouter(g: GraphConfig, handling?: FailureHandlingConfig): Router<GraphState> {
  const limit = g.MaxRetries ?? DEFAULT_MAX_RETRIES;
  const { edgeKinds } = graphLayers(g);
  const node = (id: string): GraphNodeConfig | undefined => g.Nodes.find((n) => n.Id === id);
  const run = (id: string, reason: string, extra: { message?: string; keyword?: string; backEdge?: boolean } = {}): Decision => {
    const n = node(id);
    if (!n) return { kind: 'stop', outcome: 'failed', reason: `node ${id} is not declared in Nodes` };
    if (n.SubGraphId !== undefined) {
      const spec = g.SubGraphs?.[n.SubGraphId];
      if (!spec) return { kind: 'stop', outcome: 'failed', reason: `sub-graph ${n.SubGraphId} is not declared in SubGraphs` };
      return { kind: 'subgraph', subGraphId: n.SubGraphId, spec, position: id, reason, ...extra };
    }
    return n.Agent ? speak(n.Agent, reason, { position: id, ...extra }) : { kind: 'stop', outcome: 'failed', reason: `node ${id} has neither Agent nor SubGraphId` };
  };
  /** A refused turn, classified and answered as FailureHandling says; `patch` is the router state it leaves (unless an escalation waits). */
  const refuse = (s: GraphState, turn: Turn, kind: FailureKind, what: string, retry: Decision, patch: Partial<GraphState> = {}): Step<GraphState> => {
    const o = handleFailure(s, turn, kind, what, retry, { handling, limit });
    return { state: o.pending ? s : { ...s, ...patch, ...o.failure }, decision: o.decision };
  };
  const stay = (s: GraphState, turn: Turn, kind: FailureKind, what: string, message: string): Step<GraphState> =>
    refuse(s, turn, kind, what, run(s.current, `${what}: re-invoked`, { message }));

  return {
    start: () => {
      const entry = entryNodeOf(g) ?? '';
      return { state: { current: entry, ...noFailures(), edgeFailures: {}, recoveryUsed: [] }, decision: run(entry, 'graph: EntryNode') };
    },
    next: (s, turn) => {
      if (s.recovering) return { state: { ...s, recovering: false }, decision: run(s.current, `recovery turn by ${turn.agent} done`) };
      const n = node(s.current);
      if (!n) return { state: s, decision: { kind: 'stop', outcome: 'failed', reason: `node ${s.current} is not declared in Nodes` } };
      if (n.Terminal) {
        const check = runValidators(n.Validators ?? [], turn);
        if (check.ok) return { state: { ...s, ...noFailures() }, decision: { kind: 'stop', outcome: 'terminal', reason: `terminal node ${n.Id} ran` } };
        return stay(s, turn, evidenceKind(check), check.reason, `The session cannot end yet: ${check.reason}.`);
      }
      const out = g.Edges.map((e, i) => ({ e, i })).filter(({ e }) => e.From === s.current);
      const keywords = out.flatMap(({ e }) => (e.Keyword !== undefined ? [e.Keyword] : []));
      const available = [...new Set(keywords)].join(', ') || '(none)';
      const { found, unknownHandoff } = signalsOf(turn, keywords, 'strict');
      if (unknownHandoff !== undefined) return stay(s, turn, 'UnauthorizedSignal', `handoff names unknown keyword "${unknownHandoff}"`, `"${unknownHandoff}" is not a keyword of node ${s.current}. Use one of: ${available}.`);
      const hit = out.find(({ e }) => (e.Keyword === undefined || found.some((f) => sameKeyword(f, e.Keyword as string))) && admits(e.SourceAgents, turn.agent));
      if (!hit) {
        if (found.length) return stay(s, turn, 'UnauthorizedSignal', `keyword "${found[0]}" is not allowed for ${turn.agent}`, `${turn.agent} may not emit "${found[0]}" at node ${s.current}. Use one of: ${available}.`);
        return stay(s, turn, 'MissingSignal', 'no keyword', `No routing keyword detected. Put exactly one of these alone on its own line: ${available}.`);
      }
      const { e, i } = hit;
      const label = e.Keyword ?? `${e.From} → ${e.To}`;
      const check = runValidators(validatorsOf(e), turn, { RequiredCommandPattern: e.RequiredCommandPattern, ShellFallbackPattern: e.ShellFallbackPattern });
      if (!check.ok) {
        const ef = (s.edgeFailures[i] ?? 0) + 1;
        const edgeFailures = { ...s.edgeFailures, [i]: ef };
        if (e.RecoveryAgent && ef >= EDGE_RECOVERY_AFTER && !s.recoveryUsed.includes(i)) {
          const recovery = speak(e.RecoveryAgent, `RecoveryAgent for edge "${label}" after ${ef} validator failures`, {
            position: s.current, recovery: true,
            message: `${turn.agent} is blocked at node ${s.current} on "${label}": ${check.reason} (${ef} consecutive failures). Diagnose and fix the blocking issue.`,
          });
          const step = refuse(s, turn, evidenceKind(check), check.reason, recovery, { edgeFailures });
          const recovering = step.decision.kind === 'speak' && step.decision.recovery === true;
          return recovering ? { state: { ...step.state, recoveryUsed: [...s.recoveryUsed, i], recovering: true }, decision: step.decision } : step;
        }
        return refuse(s, turn, evidenceKind(check), check.reason, run(s.current, `${check.reason}: re-invoked`, { message: `Edge "${label}" is blocked: ${check.reason}.` }), { edgeFailures });
      }
      if (e.RequireHumanApproval) {
        if (turn.routeApproval === undefined) return { state: s, decision: { kind: 'approval', source: turn.agent, keyword: label, target: e.To, reason: `edge "${label}" requires human approval` } };
        if (turn.routeApproval === 'rejected') return { state: s, decision: run(s.current, `edge "${label}" rejected by the operator`, { message: `Route blocked: the operator rejected "${label}". Address the concerns and try again.` }) };
      }
      const backEdge = edgeKinds[i] === 'back';
      const fired: GraphState = { ...s, ...noFailures(), edgeFailures: { ...s.edgeFailures, [i]: 0 } };
      const group = fanOutGroup(g, e, turn.agent);
      if (node(e.To)?.Parallel && group.length > 0) {
        const ids = group.map((x) => x.To);
        const join = fanOutJoin(g, ids);
        if (join === undefined) return { state: s, decision: { kind: 'stop', outcome: 'failed', reason: `Parallel nodes ${ids.join(', ')} have no common join node` } };
        const joinNode = node(join);
        return {
          state: { ...fired, current: join },
          decision: {
            kind: 'fanout', reason: `"${label}" from ${s.current}: fan-out to ${ids.join(', ')}, join ${join}`, keyword: e.Keyword, merge: { Strategy: 'union' },
            branches: ids.map((id) => ({ position: id, agent: node(id)?.Agent, subGraphId: node(id)?.SubGraphId })),
            join: { position: join, agent: joinNode?.Agent, subGraphId: joinNode?.SubGraphId },
          },
        };
      }
      return {
        state: { ...fired, current: e.To },
        decision: run(e.To, `${backEdge ? 'back-edge' : 'edge'} "${label}" from ${s.current}${backEdge ? ': phase restarts' : ''}`, { keyword: e.Keyword, backEdge }),
      };
    },
  };
}
