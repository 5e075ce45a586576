/**
 * Tree-wide pending decisions: what a run reports up its tree and what the CLI does with
 * it. Pure: redaction of sensitive arguments, the per-member merge a parent keeps (newest report
 * wins, closed members drop out), the flat list a status shows, the Current Details text, and how
 * `loom approve ROOT REF` finds the member holding a call. No Temporal import; unit tested.
 */
import type { JsonObject } from '../compiled/types';
import type { DecideArgs, DescendantDecisionsReport, PendingApproval, PendingDecision } from '../shared/contract';

// The one redaction of sensitive tool fields lives in src/governance/sensitive.ts (displays, logs, spans).
import { REDACTED, redactArgs } from '../governance/sensitive';
export { REDACTED, redactArgs };

/** A run's own pending approvals as decisions (arguments redacted with the tool's sensitive fields). */
export function approvalsAsDecisions(
  own: readonly PendingApproval[],
  who: { workflow_id: string; agent_id: string },
  opts: { sensitive?: (tool: string) => readonly string[]; kind?: 'approval' | 'route_approval'; queue?: string } = {},
): PendingDecision[] {
  return own.map((p) => ({
    kind: opts.kind ?? (p.tool === 'route' ? 'route_approval' : 'approval'),
    workflow_id: who.workflow_id,
    path: [],
    agent_id: who.agent_id,
    call_id: p.call_id,
    tool: p.tool,
    arguments: redactArgs(p.arguments, opts.sensitive?.(p.tool) ?? []),
    ...(opts.queue ? { queue: opts.queue } : {}),
    reason: p.reason,
    requested_at: p.requested_at,
  }));
}

/** One member's newest report as a continue-as-new carries it (its decisions' paths already prefixed with its role). */
export interface CarriedMemberDecisions { workflow_id: string; at: number; seq: number; decisions: PendingDecision[] }

/** What a parent keeps of its members' reports: the newest report of each member, paths prefixed with its role. */
export class DescendantDecisions {
  private readonly members = new Map<string, { at: number; seq: number; decisions: PendingDecision[] }>();
  private readonly closedAt = new Map<string, number>();

  /** Take a member's report; false when it is older than the one kept (or came from a member that has closed since). */
  accept(r: DescendantDecisionsReport): boolean {
    const closed = this.closedAt.get(r.workflow_id);
    if (closed !== undefined && r.at <= closed) return false;
    const kept = this.members.get(r.workflow_id);
    if (kept && (r.at < kept.at || (r.at === kept.at && r.seq <= kept.seq))) return false;
    const decisions = r.decisions.map((d) => ({ ...d, path: [r.role, ...d.path] }));
    this.members.set(r.workflow_id, { at: r.at, seq: r.seq, decisions });
    return true;
  }

  /** The member's run is over (its result or failure arrived): whatever it last reported is gone. */
  closed(workflowId: string, now: number): boolean {
    this.closedAt.set(workflowId, now);
    return this.members.delete(workflowId);
  }

  /** What a continue-as-new carries: each member's newest report (paths already prefixed). */
  snapshot(): CarriedMemberDecisions[] {
    return [...this.members.entries()].map(([workflow_id, m]) => ({ workflow_id, at: m.at, seq: m.seq, decisions: m.decisions }));
  }

  /** Take back what the previous run carried (before any report of this run). */
  restore(carried: readonly CarriedMemberDecisions[]): void {
    for (const m of carried) this.members.set(m.workflow_id, { at: m.at, seq: m.seq, decisions: m.decisions });
  }

  /** Every member's decisions, members in workflow-id order (a stable listing whatever order the reports came in). */
  list(): PendingDecision[] {
    return [...this.members.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([, m]) => m.decisions);
  }
}

/** Identity of a decision list (what changed is worth a signal to the parent). */
export function decisionsKey(ds: readonly PendingDecision[]): string {
  return JSON.stringify(ds.map((d) => [d.workflow_id, d.kind, d.call_id ?? '', d.queue ?? '', d.requested_at]));
}

/** `step-2-charge/item-3:call_0_0` — the address `loom approve ROOT REF` accepts; the bare call id at the root. */
export function decisionRef(d: PendingDecision): string {
  const id = d.call_id ?? d.queue ?? '';
  return d.path.length ? `${d.path.join('/')}:${id}` : id;
}

/** One line per decision, for Current Details and `loom status`. */
export function describeDecision(d: PendingDecision): string {
  const where = d.path.length ? d.path.join('/') : '(this run)';
  const what =
    d.kind === 'escalation'
      ? `human queue '${d.queue}'`
      : `${d.kind === 'route_approval' ? 'route approval' : 'approval'} ${d.call_id}: ${d.tool} ${JSON.stringify(d.arguments ?? {})}${d.queue ? ` (escalated to '${d.queue}')` : ''}`;
  return `${where} · ${d.agent_id} · ${what} · since ${d.requested_at} · ${d.reason}`;
}

/** The Current Details block listing every pending decision (empty when none). */
export function decisionsDetails(ds: readonly PendingDecision[]): string {
  if (!ds.length) return '';
  return `\n\nWaiting on a human (${ds.length}):\n${ds.map((d) => `- ${describeDecision(d)}`).join('\n')}`;
}

export type Resolution =
  | { ok: true; decision: PendingDecision }
  | { ok: false; reason: 'none' | 'ambiguous'; candidates: PendingDecision[] };

/**
 * Which approval/route decision `ref` names: a call id pending in exactly one run of the tree, or
 * `PATH:CALL_ID` (PATH is the member's role chain joined by '/', as `loom status` prints it; an
 * empty PATH is the root itself). A call id pending in several members is ambiguous.
 */
export function resolveCall(ds: readonly PendingDecision[], ref: string): Resolution {
  const calls = ds.filter((d) => d.kind !== 'escalation' && d.call_id !== undefined);
  let hits = calls.filter((d) => d.call_id === ref);
  if (!hits.length) {
    const i = ref.lastIndexOf(':');
    if (i >= 0) {
      const path = ref.slice(0, i);
      const id = ref.slice(i + 1);
      hits = calls.filter((d) => d.call_id === id && d.path.join('/') === path);
    }
  }
  if (hits.length === 1) return { ok: true, decision: hits[0] };
  return hits.length ? { ok: false, reason: 'ambiguous', candidates: hits } : { ok: false, reason: 'none', candidates: calls };
}

/**
 * Which human-queue escalation `ref` names: a queue waited on by exactly one run of the tree,
 * `PATH:QUEUE` (as `loom inbox` prints it; an empty PATH is the run itself), or the member's PATH
 * alone. A queue waited on in several members is ambiguous.
 */
export function resolveEscalation(ds: readonly PendingDecision[], ref: string): Resolution {
  const waits = ds.filter((d) => d.kind === 'escalation');
  let hits = waits.filter((d) => d.queue === ref);
  if (!hits.length) {
    const i = ref.lastIndexOf(':');
    hits = i >= 0 ? waits.filter((d) => d.queue === ref.slice(i + 1) && d.path.join('/') === ref.slice(0, i)) : waits.filter((d) => d.path.length > 0 && d.path.join('/') === ref);
  }
  if (hits.length === 1) return { ok: true, decision: hits[0] };
  return hits.length ? { ok: false, reason: 'ambiguous', candidates: hits } : { ok: false, reason: 'none', candidates: waits };
}

/** Why a `decide` update is refused before it reaches the holder (the payload's shape), or undefined. */
export function decideArgsProblem(a: DecideArgs | undefined): string | undefined {
  if (!a || typeof a !== 'object') return 'decide needs a JSON object: {"ref": "PATH:CALL_ID", "decision": "approve"|"reject"|"respond", …}';
  if (typeof a.ref !== 'string' || !a.ref) return 'decide needs "ref": a call id or PATH:CALL_ID (approve/reject), a queue or PATH:QUEUE (respond), as loom inbox prints it';
  if (a.decision === 'approve') {
    if (a.args !== undefined && (a.args === null || typeof a.args !== 'object' || Array.isArray(a.args))) return '"args" must be a JSON object of the tool\'s arguments';
    if (a.tool !== undefined && (typeof a.tool !== 'string' || !a.tool.trim())) return '"tool" must name one of the holding agent\'s tools (the replacement runs with "args", default {})';
    return undefined;
  }
  if (a.decision === 'reject') return typeof a.reason === 'string' && a.reason.trim() ? undefined : 'reject needs a "reason" (the model sees it as the tool result)';
  if (a.decision === 'respond') {
    if (a.close === true) return a.output === undefined ? undefined : 'give "output" or "close": true, not both';
    return a.output === undefined ? 'respond needs "output" (the answer) or "close": true' : undefined;
  }
  return `"decision" must be "approve", "reject" or "respond" (got ${JSON.stringify(a.decision)})`;
}

/**
 * Why `decide` cannot replace the call `d` with `tool` (the Execution Loop specification's "Correction … replace it with a
 * different one"), or undefined: only a pending tool-call approval is replaced, and only by a
 * registry tool of the agent holding it (`tools`, that agent's tool ids); delegations are approved or rejected.
 */
export function replacementProblem(d: PendingDecision, tool: string, tools: readonly string[]): string | undefined {
  const id = decisionRef(d);
  if (d.kind !== 'approval') return `${id} is a ${d.kind === 'route_approval' ? 'route approval' : d.kind}: only a pending tool call can be replaced (approve or reject it)`;
  if (!tools.includes(d.tool ?? '')) return `${id} (${d.tool}) cannot be replaced: only calls of the agent's registry tools can (approve or reject it)`;
  if (!tools.includes(tool)) return `cannot replace ${id} with '${tool}': not a tool of ${d.agent_id}; use one of ${tools.join(', ') || '(none)'}`;
  return undefined;
}

/** The decision a valid `decide` payload names in `ds`, or why none (with what is pending instead). */
export function resolveDecide(ds: readonly PendingDecision[], a: DecideArgs, where: string): { ok: true; decision: PendingDecision } | { ok: false; message: string } {
  const problem = decideArgsProblem(a);
  if (problem) return { ok: false, message: problem };
  const respond = a.decision === 'respond';
  const r = respond ? resolveEscalation(ds, a.ref) : resolveCall(ds, a.ref);
  if (r.ok) return r;
  const refs = r.candidates.map(decisionRef);
  const what = respond ? 'human-queue escalation' : 'approval';
  if (r.reason === 'ambiguous') return { ok: false, message: `'${a.ref}' names ${refs.length} pending ${what}s in ${where}; name one as PATH:${respond ? 'QUEUE' : 'CALL_ID'}: ${refs.join(', ')}` };
  return { ok: false, message: `no pending ${what} '${a.ref}' in ${where}; ${refs.length ? `pending: ${refs.join(', ')}` : `no ${what} is pending`}` };
}

/** How long ago `iso` was, in words (`42s`, `3m05s`, `2h10m`, `3d4h`). */
export function waited(iso: string, now: number): string {
  const s = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86400)}d${Math.floor((s % 86400) / 3600)}h`;
}
