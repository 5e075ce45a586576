/**
 * A run tree seen from the client: the root and every member it started (children, grandchildren,
 * shards, delegates), found through the StartChildWorkflowExecutionInitiated events of each
 * history. The compat guard records every history of the tree and answers every decision waiting
 * anywhere in it, speaking the wire protocol by name: the names are the contract that in-flight
 * runs were started with, so they must never change.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { RunStatus } from '../../src/shared/contract';
import { until } from '../helpers/wait';

/** Wire names of the run protocol (src/shared/contract.ts); in-flight runs depend on them. */
export const WIRE = { status: 'status', approve: 'approveCall', respond: 'respondEscalation', pause: 'pause', resume: 'resume' } as const;

export interface Member {
  workflowId: string;
  /** The latest run's history. */
  history: temporal.api.history.v1.IHistory;
  /** Earlier runs of the same workflow id (continue-as-new), oldest first. */
  earlier?: temporal.api.history.v1.IHistory[];
  open: boolean;
  status?: RunStatus;
}

function childIds(history: temporal.api.history.v1.IHistory): string[] {
  const ids: string[] = [];
  for (const e of history.events ?? []) {
    const id = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    if (id && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

function isOpen(history: temporal.api.history.v1.IHistory): boolean {
  const last = history.events?.[history.events.length - 1];
  return !(
    last?.workflowExecutionCompletedEventAttributes ||
    last?.workflowExecutionFailedEventAttributes ||
    last?.workflowExecutionCanceledEventAttributes ||
    last?.workflowExecutionTerminatedEventAttributes ||
    last?.workflowExecutionTimedOutEventAttributes ||
    last?.workflowExecutionContinuedAsNewEventAttributes
  );
}

/** The runs before the latest one (continue-as-new chain), oldest first. */
async function earlierRuns(client: Client, id: string, latest: temporal.api.history.v1.IHistory): Promise<temporal.api.history.v1.IHistory[]> {
  const out: temporal.api.history.v1.IHistory[] = [];
  let prev = latest.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
  while (prev) {
    const h = await client.workflow.getHandle(id, prev).fetchHistory();
    out.unshift(h);
    prev = h.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
  }
  return out;
}

/**
 * Every workflow of the tree rooted at `rootId` (latest run of each), with status for open ones;
 * with `chains`, also every earlier run of each id and the members those runs started.
 */
export async function runTree(client: Client, rootId: string, chains = false): Promise<Member[]> {
  const out: Member[] = [];
  const queue = [rootId];
  while (queue.length) {
    const id = queue.shift()!;
    let history: temporal.api.history.v1.IHistory;
    try {
      history = await client.workflow.getHandle(id).fetchHistory();
    } catch {
      continue; // initiated but not started yet
    }
    const open = isOpen(history);
    let status: RunStatus | undefined;
    if (open) {
      try {
        status = await client.workflow.getHandle(id).query<RunStatus>(WIRE.status);
      } catch {
        // no worker has handled its first task yet
      }
    }
    const earlier = chains ? await earlierRuns(client, id, history) : [];
    out.push({ workflowId: id, history, open, status, ...(earlier.length ? { earlier } : {}) });
    for (const h of [...earlier, history]) for (const c of childIds(h)) if (!queue.includes(c) && !out.some((m) => m.workflowId === c)) queue.push(c);
  }
  return out;
}

/** The first workflow task failure in a history (a nondeterminism error shows up here), if any. */
export function workflowTaskFailure(history: temporal.api.history.v1.IHistory): string | undefined {
  for (const e of history.events ?? []) {
    const f = e.workflowTaskFailedEventAttributes;
    if (f) return f.failure?.message ?? `workflow task failed (cause ${String(f.cause)})`;
  }
  return undefined;
}

/** Patch ids whose markers a history recorded. */
export function patchMarkers(history: temporal.api.history.v1.IHistory): string[] {
  const ids: string[] = [];
  for (const e of history.events ?? []) {
    const m = e.markerRecordedEventAttributes;
    if (!m || m.markerName !== 'core_patch') continue;
    const data = m.details?.['patch-data']?.payloads?.[0]?.data;
    if (!data) continue;
    try {
      const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as { id?: string };
      if (parsed.id) ids.push(parsed.id);
    } catch {
      // not a JSON payload
    }
  }
  return ids;
}

/** Poll until `pred` holds over the tree; fail with what the tree looked like. */
export async function waitForTree(client: Client, rootId: string, pred: (tree: Member[]) => boolean, what: string, ms = 60_000): Promise<Member[]> {
  let tree: Member[] = [];
  return until(
    async () => {
      tree = await runTree(client, rootId);
      if (pred(tree)) return tree;
      const failed = tree.map((m) => workflowTaskFailure(m.history)).find(Boolean);
      if (failed) throw new Error(`waiting for ${what}: a workflow task failed: ${failed}`);
      return undefined;
    },
    () => `${what}; tree: ${tree.map((m) => `${m.workflowId}: ${m.open ? m.status?.state ?? 'open' : 'closed'}`).join('; ')}`,
    ms,
    150,
  );
}

/**
 * Answer every decision waiting in the tree once (approve pending calls, resume paused runs,
 * answer human queues) except those `hold` keeps. Returns how many it answered.
 */
export async function answerAll(client: Client, tree: Member[], hold: (m: Member) => boolean = () => false): Promise<number> {
  let n = 0;
  for (const m of tree) {
    if (!m.open || !m.status || hold(m)) continue;
    const h = client.workflow.getHandle(m.workflowId);
    for (const p of m.status.pending_approvals) {
      await h.executeUpdate(WIRE.approve, { args: [{ call_id: p.call_id, by: 'compat-guard' }] }).catch(() => undefined);
      n++;
    }
    if (m.status.state === 'paused') {
      await h.signal(WIRE.resume);
      n++;
    }
    if (m.status.state === 'waiting_for_human' && m.status.escalation) {
      await h.executeUpdate(WIRE.respond, { args: [{ queue: m.status.escalation.queue, output: 'operator answer', by: 'compat-guard' }] }).catch(() => undefined);
      n++;
    }
  }
  return n;
}

/** Answer decisions until the root closes; return the root's result or failure message. */
export async function driveToEnd(client: Client, rootId: string, ms = 90_000): Promise<{ ok: true; output: unknown } | { ok: false; error: string }> {
  const root = client.workflow.getHandle(rootId);
  let tree: Member[] = [];
  const stop = await until(
    async (): Promise<{ ok: false; error: string } | 'closed' | undefined> => {
      tree = await runTree(client, rootId);
      const failed = tree.map((m) => workflowTaskFailure(m.history)).find(Boolean);
      if (failed) return { ok: false, error: `workflow task failed on the new code: ${failed}` };
      if (!tree[0]?.open) return 'closed';
      await answerAll(client, tree);
      return undefined;
    },
    'the root to close',
    ms,
    150,
  ).catch((e: Error) => {
    if (!e.message.startsWith('timed out')) throw e; // a failed look at the tree, not the time running out
    return { ok: false as const, error: `root still open after ${ms} ms: ${tree.map((m) => `${m.workflowId}=${m.status?.state ?? (m.open ? 'open' : 'closed')}`).join(', ')}` };
  });
  if (stop !== 'closed') return stop;
  try {
    const r = (await root.result()) as { output?: unknown };
    return { ok: true, output: r?.output };
  } catch (e) {
    const cause = (e as { cause?: { message?: string } }).cause?.message;
    return { ok: false, error: cause ?? (e as Error).message };
  }
}
