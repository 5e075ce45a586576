/**
 * The inbox: every decision waiting on a human in every open run tree, shared by `loom inbox`, the
 * MCP server and AgentloomClient.
 *
 * Found through visibility, not by scanning histories: the runs that hold a decision publish it in
 * their search attributes (AgentStatus waiting_for_approval / waiting_for_human; strategies runs,
 * whose route approvals do not change AgentStatus, by AgentPattern), each is mapped to its root
 * (rootExecution), and each root is asked once for its tree-wide `pending_decisions` (status
 * query). A root started before patch `tree-pending-decisions` lists no tree: its holders are then
 * asked directly. Each query has a deadline (LOOM_INBOX_QUERY_TIMEOUT_SECONDS, default 5): a tree
 * no worker answers for (workers stopped, or a task queue nobody polls) is reported by id, on
 * stderr and in the MCP answer, instead of holding the whole listing.
 */
import type { LoomSession } from './connect';
import type { PendingDecision, RunStatus } from '../shared/contract';
import { SEARCH_ATTRIBUTES } from '../shared/names';
import { approvalsAsDecisions, decisionRef } from '../runtime/decisions';
import { mapBounded } from '../orchestration/batch';
import { withStoredArgs } from './stored-args';
import { waitingFor } from './waiting';

export const INBOX_QUERY = `ExecutionStatus = 'Running' AND (${SEARCH_ATTRIBUTES.status} IN ('waiting_for_approval', 'waiting_for_human') OR ${SEARCH_ATTRIBUTES.pattern} = 'strategies')`;

export interface InboxEntry extends PendingDecision {
  root_workflow_id: string;
  /** What `loom approve ROOT …` / `loom reject ROOT …` take. */
  ref: string;
  waited_seconds: number;
  /** The commands that answer it. */
  answer: string[];
  /** What the run holding it also waits on (store, model endpoint), when anything: src/operator/waiting.ts. */
  waiting_for?: string[];
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function answerCommands(root: string, d: PendingDecision): string[] {
  const ref = shellQuote(decisionRef(d));
  if (d.kind === 'escalation') return [`loom respond ${shellQuote(root)} ${ref} --output JSON`, `loom respond ${shellQuote(root)} ${ref} --close --reason TEXT`];
  return [`loom approve ${shellQuote(root)} ${ref}`, `loom reject ${shellQuote(root)} ${ref} --reason TEXT`];
}

/**
 * Seconds a status query may take before its tree is reported unanswered. The LOOM_* environment's
 * reader (its zod schema) loads here, at the first query: an inbox with nothing waiting never needs it.
 */
export async function queryTimeoutMs(): Promise<number> {
  const { envInt } = await import('../platform/env');
  return (envInt('LOOM_INBOX_QUERY_TIMEOUT_SECONDS') ?? 5) * 1000;
}

type Answer = { st: RunStatus } | { closed: true } | { unanswered: true };

async function status(s: Pick<LoomSession, 'client'>, id: string): Promise<Answer> {
  const { statusQuery } = await import('../shared/definitions');
  const timeoutMs = await queryTimeoutMs();
  try {
    return { st: await s.client.withDeadline(Date.now() + timeoutMs, () => s.client.workflow.getHandle(id).query(statusQuery)) };
  } catch (e) {
    // The client wraps the gRPC DEADLINE_EXCEEDED (code 4) in a ServiceError; anything else: closed meanwhile, nothing to answer there now.
    const cause = (e as { cause?: { code?: number } }).cause;
    return cause?.code === 4 || (e as { code?: number }).code === 4 ? { unanswered: true } : { closed: true };
  }
}

/** The decisions of a holder that reports no tree (a root from before the patch, asked directly). */
function holderDecisions(id: string, st: RunStatus, root: string): PendingDecision[] {
  const path = id === root ? [] : id.slice(root.length + 1).split('/');
  const own = approvalsAsDecisions(st.pending_approvals ?? [], { workflow_id: id, agent_id: st.agent_id });
  if (st.escalation) own.push({ kind: 'escalation', workflow_id: id, path: [], agent_id: st.agent_id, queue: st.escalation.queue, reason: st.escalation.reason, requested_at: st.escalation.since });
  return own.map((d) => ({ ...d, path }));
}

/**
 * Every decision waiting on a human. `unanswered` collects the root ids whose status query timed
 * out (their decisions are not in the list).
 */
export async function collectInbox(s: Pick<LoomSession, 'client'>, now: number, unanswered: string[] = []): Promise<InboxEntry[]> {
  const holdersByRoot = new Map<string, string[]>();
  for await (const wf of s.client.workflow.list({ query: INBOX_QUERY })) {
    const root = wf.rootExecution?.workflowId ?? wf.workflowId;
    holdersByRoot.set(root, [...(holdersByRoot.get(root) ?? []), wf.workflowId]);
  }
  const perRoot = await mapBounded([...holdersByRoot.entries()], 16, async ([root, holders]) => {
    const a = await status(s, root);
    if ('unanswered' in a) {
      unanswered.push(root);
      return [];
    }
    const st = 'st' in a ? a.st : undefined;
    let ds: PendingDecision[];
    if (st?.pending_decisions) ds = st.pending_decisions;
    else {
      const sts = await Promise.all(holders.map(async (id) => [id, id === root ? st : await statusOf(s, id)] as const));
      ds = sts.flatMap(([id, hs]) => (hs ? holderDecisions(id, hs, root) : []));
    }
    // An ephemeral run's pending calls hold a reference: their arguments are read from the store.
    ds = await withStoredArgs(ds);
    return ds.map((d): InboxEntry => ({
      root_workflow_id: root,
      ref: decisionRef(d),
      ...d,
      waited_seconds: Math.max(0, Math.floor((now - Date.parse(d.requested_at)) / 1000)),
      answer: answerCommands(root, d),
    }));
  });
  unanswered.sort();
  // A run where a human waits may also wait on a dependency (e.g. a concurrent call's store write).
  const holders = [...new Set(perRoot.flat().map((e) => e.workflow_id))];
  const waiting = new Map(await mapBounded(holders, 16, async (id) => [id, await waitingFor(s.client.workflow.getHandle(id))] as const));
  for (const e of perRoot.flat()) {
    const w = waiting.get(e.workflow_id);
    if (w?.length) e.waiting_for = w;
  }
  return perRoot.flat().sort((a, b) => b.waited_seconds - a.waited_seconds || a.root_workflow_id.localeCompare(b.root_workflow_id));
}

async function statusOf(s: Pick<LoomSession, 'client'>, id: string): Promise<RunStatus | undefined> {
  const a = await status(s, id);
  return 'st' in a ? a.st : undefined;
}

/** The stderr note for trees whose root did not answer in time. */
export async function unansweredNote(roots: readonly string[]): Promise<string> {
  if (!roots.length) return '';
  return `loom inbox: ${roots.length} run tree(s) did not answer the status query within ${(await queryTimeoutMs()) / 1000} s (is a worker polling their task queue?); their decisions are not listed: ${roots.join(', ')}\n`;
}

/** Identity of an inbox entry across refreshes (a decision asked again later is a new one). */
export function entryKey(e: InboxEntry): string {
  return JSON.stringify([e.root_workflow_id, e.workflow_id, e.kind, e.call_id ?? e.queue ?? '', e.requested_at]);
}

/** What changed between two refreshes: entries that appeared and entries that are gone. */
export function inboxChanges(before: ReadonlyMap<string, InboxEntry>, now: readonly InboxEntry[]): { added: InboxEntry[]; gone: InboxEntry[] } {
  const keys = new Set(now.map(entryKey));
  return { added: now.filter((e) => !before.has(entryKey(e))), gone: [...before.entries()].filter(([k]) => !keys.has(k)).map(([, e]) => e) };
}
