/**
 * `loom inbox [--agent A] [--queue Q] [--older-than SECONDS] [--json] [--watch [--interval SECONDS]]`:
 * every decision waiting on a human in every open run tree, with the exact command that answers it
 * (issue 9). `--watch` lists them, then refreshes every interval until Ctrl-C, printing only what
 * changed (`+` a new decision, `-` one answered or gone; with --json one JSON object per change).
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
import { defineCommand, flagString, UsageError } from '../args';
import { connect, LoomSession } from '../connect';
import { PendingDecision, RunStatus, SEARCH_ATTRIBUTES } from '../../shared/contract';
import { approvalsAsDecisions, decisionRef, describeDecision, waited } from '../../runtime/decisions';
import { mapBounded } from '../../orchestration/batch';
import { envInt } from '../../platform/env';
import { withStoredArgs } from '../stored-args';
import { waitingFor } from '../waiting';

export const INBOX_QUERY = `ExecutionStatus = 'Running' AND (${SEARCH_ATTRIBUTES.status} IN ('waiting_for_approval', 'waiting_for_human') OR ${SEARCH_ATTRIBUTES.pattern} = 'strategies')`;

export interface InboxEntry extends PendingDecision {
  root_workflow_id: string;
  /** What `loom approve ROOT …` / `loom reject ROOT …` take. */
  ref: string;
  waited_seconds: number;
  /** The commands that answer it. */
  answer: string[];
  /** What the run holding it also waits on (store, model endpoint), when anything: src/cli/waiting.ts. */
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

/** Seconds a status query may take before its tree is reported unanswered. */
export function queryTimeoutMs(): number {
  return (envInt('LOOM_INBOX_QUERY_TIMEOUT_SECONDS') ?? 5) * 1000;
}

type Answer = { st: RunStatus } | { closed: true } | { unanswered: true };

async function status(s: Pick<LoomSession, 'client'>, id: string): Promise<Answer> {
  const { statusQuery } = await import('../../shared/definitions');
  try {
    return { st: await s.client.withDeadline(Date.now() + queryTimeoutMs(), () => s.client.workflow.getHandle(id).query(statusQuery)) };
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
export function unansweredNote(roots: readonly string[]): string {
  if (!roots.length) return '';
  return `loom inbox: ${roots.length} run tree(s) did not answer the status query within ${queryTimeoutMs() / 1000} s (is a worker polling their task queue?); their decisions are not listed: ${roots.join(', ')}\n`;
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

function printEntry(e: InboxEntry, now: number): string {
  const also = (e.waiting_for ?? []).map((w) => `    meanwhile: ${w}\n`).join('');
  return `${e.root_workflow_id}  ${e.ref}  waited ${waited(e.requested_at, now)}\n    ${describeDecision(e)}\n    ${e.answer.join('\n    ')}\n${also}`;
}

/** Refresh until SIGINT/SIGTERM: the listing first, then only the changes, each refresh stamped with its time. */
async function watch(rows: (now: number) => Promise<InboxEntry[]>, intervalMs: number, asJson: boolean): Promise<number> {
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => { stop = resolve; });
  let running = true;
  const onSignal = () => { running = false; stop(); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const seen = new Map<string, InboxEntry>();
  let first = true;
  try {
    while (running) {
      const now = Date.now();
      const { added, gone } = inboxChanges(seen, await rows(now));
      for (const e of gone) seen.delete(entryKey(e));
      for (const e of added) seen.set(entryKey(e), e);
      const at = new Date(now).toISOString();
      if (asJson) {
        for (const e of gone) process.stdout.write(JSON.stringify({ at, change: 'gone', entry: e }) + '\n');
        for (const e of added) process.stdout.write(JSON.stringify({ at, change: 'added', entry: e }) + '\n');
      } else if (first) {
        process.stdout.write(`${at}  ${added.length ? `${added.length} waiting on a human` : 'nothing is waiting on a human'} (watching; Ctrl-C to stop)\n`);
        for (const e of added) process.stdout.write(`+ ${printEntry(e, now)}`);
      } else if (added.length || gone.length) {
        process.stdout.write(`${at}  ${seen.size} waiting\n`);
        for (const e of gone) process.stdout.write(`- ${e.root_workflow_id}  ${e.ref}  no longer waiting\n`);
        for (const e of added) process.stdout.write(`+ ${printEntry(e, now)}`);
      }
      first = false;
      await Promise.race([stopped, new Promise((r) => setTimeout(r, intervalMs))]);
    }
    return 0;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

export const run = defineCommand(
  'inbox',
  {
    usage: 'loom inbox [--agent A] [--queue Q] [--older-than SECONDS] [--json] [--watch [--interval SECONDS]]',
    options: {
      agent: { type: 'string', value: 'A', help: 'only the decisions of runs of agent A.' }, queue: { type: 'string', value: 'Q', help: 'only the escalations waiting on human queue Q.' }, 'older-than': { type: 'string', value: 'SECONDS', help: 'only the decisions waiting longer than this.' }, json: { type: 'boolean', help: 'print JSON instead of text.' },
      watch: { type: 'boolean', help: 'print the inbox again whenever it changes, until Ctrl-C.' }, interval: { type: 'string', value: 'SECONDS', help: 'with --watch: how often to look (default 2).' },
    },
    positionals: { min: 0, max: 0 },
  },
  async (args) => {
    const agent = flagString(args, 'agent');
    const queue = flagString(args, 'queue');
    const rawAge = flagString(args, 'older-than');
    const minAge = rawAge === undefined ? 0 : Number(rawAge);
    if (!Number.isFinite(minAge) || minAge < 0) throw new UsageError(`--older-than must be a number of seconds (got '${rawAge}')`);
    const rawInterval = flagString(args, 'interval');
    const interval = rawInterval === undefined ? 2 : Number(rawInterval);
    if (!Number.isFinite(interval) || interval <= 0) throw new UsageError(`--interval must be a positive number of seconds (got '${rawInterval}')`);
    if (rawInterval !== undefined && args.flags.watch !== true) throw new UsageError('--interval goes with --watch');
    const s = await connect();
    const select = async (now: number) => {
      const unanswered: string[] = [];
      const rows = (await collectInbox(s, now, unanswered)).filter((e) => (!agent || e.agent_id === agent) && (!queue || e.queue === queue) && e.waited_seconds >= minAge);
      process.stderr.write(unansweredNote(unanswered));
      return rows;
    };
    try {
      if (args.flags.watch === true) return await watch(select, interval * 1000, args.flags.json === true);
      const now = Date.now();
      const rows = await select(now);
      if (args.flags.json === true) {
        process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
        return 0;
      }
      if (!rows.length) { process.stdout.write('nothing is waiting on a human\n'); return 0; }
      for (const e of rows) process.stdout.write(printEntry(e, now));
      return 0;
    } finally {
      await s.close();
    }
  },
);
