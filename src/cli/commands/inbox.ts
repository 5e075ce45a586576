/**
 * `loom inbox [--agent A] [--queue Q] [--older-than SECONDS] [--json] [--watch [--interval SECONDS]]`:
 * every decision waiting on a human in every open run tree, with the exact command that answers it
 * (AgentloomClient.inboxSnapshot). `--watch` lists them, then refreshes every interval until
 * Ctrl-C, printing only what changed (`+` a new decision, `-` one answered or gone; with --json one
 * JSON object per change).
 */
import { defineCommand, flagString } from '../args';
import { UsageError } from '../../operator/errors';
import type { InboxEntry } from '../../operator/inbox';
import { openClient } from '../client-session';

type Decisions = typeof import('../../runtime/decisions');

function printEntry({ describeDecision, waited }: Decisions, e: InboxEntry, now: number): string {
  const also = (e.waiting_for ?? []).map((w) => `    meanwhile: ${w}\n`).join('');
  return `${e.root_workflow_id}  ${e.ref}  waited ${waited(e.requested_at, now)}\n    ${describeDecision(e)}\n    ${e.answer.join('\n    ')}\n${also}`;
}

/** Refresh until SIGINT/SIGTERM: the listing first, then only the changes, each refresh stamped with its time. */
async function watch(snapshot: () => Promise<{ entries: InboxEntry[]; at: number }>, intervalMs: number, asJson: boolean): Promise<number> {
  const d = await import('../../runtime/decisions');
  const { entryKey, inboxChanges } = await import('../../operator/inbox');
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
      const { entries, at: now } = await snapshot();
      const { added, gone } = inboxChanges(seen, entries);
      for (const e of gone) seen.delete(entryKey(e));
      for (const e of added) seen.set(entryKey(e), e);
      const at = new Date(now).toISOString();
      if (asJson) {
        for (const e of gone) process.stdout.write(JSON.stringify({ at, change: 'gone', entry: e }) + '\n');
        for (const e of added) process.stdout.write(JSON.stringify({ at, change: 'added', entry: e }) + '\n');
      } else if (first) {
        process.stdout.write(`${at}  ${added.length ? `${added.length} waiting on a human` : 'nothing is waiting on a human'} (watching; Ctrl-C to stop)\n`);
        for (const e of added) process.stdout.write(`+ ${printEntry(d, e, now)}`);
      } else if (added.length || gone.length) {
        process.stdout.write(`${at}  ${seen.size} waiting\n`);
        for (const e of gone) process.stdout.write(`- ${e.root_workflow_id}  ${e.ref}  no longer waiting\n`);
        for (const e of added) process.stdout.write(`+ ${printEntry(d, e, now)}`);
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
    const loom = await openClient(args);
    const select = async () => {
      const snap = await loom.inboxSnapshot({ agent, queue, olderThanSeconds: minAge });
      const { unansweredNote } = await import('../../operator/inbox');
      process.stderr.write(await unansweredNote(snap.unanswered));
      return snap;
    };
    try {
      if (args.flags.watch === true) return await watch(select, interval * 1000, args.flags.json === true);
      const { entries: rows, at: now } = await select();
      const d = await import('../../runtime/decisions');
      if (args.flags.json === true) {
        process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
        return 0;
      }
      if (!rows.length) { process.stdout.write('nothing is waiting on a human\n'); return 0; }
      for (const e of rows) process.stdout.write(printEntry(d, e, now));
      return 0;
    } finally {
      await loom.close();
    }
  },
);
