/**
 * Live progress for `loom run` and the demo: polls the `status` query (one query at a time) and
 * prints what changed. `stop()` resolves once the poll in flight has settled, so the caller may
 * close the connection right after without leaving a gRPC retry timer behind.
 */
import { isDeepStrictEqual } from 'util';
import type { WorkflowHandle, WorkflowFailedError } from '@temporalio/client';
import type { RunStatus } from '../shared/contract';
import { statusQuery } from '../shared/definitions';
import { waitingFor } from './waiting';
import { answerCommands } from './inbox';
import { decisionRef, describeDecision } from '../runtime/decisions';
import { storedArgsRef } from '../runtime/ephemeral-args';
import type { BlobStore } from '../store/types';
import { parseStreamRecord, STREAM_RECORD_KIND, StreamTextRecord } from '../activities/stream-text';

export interface RunWatcher {
  /** Stop polling; resolves when the query in flight has settled (rejects if onStatus threw). */
  stop(): Promise<void>;
  /** Rejects when onStatus throws (polling stops); never resolves otherwise. */
  failure: Promise<never>;
}

export function watchRun(
  handle: WorkflowHandle,
  say: (line: string, status: RunStatus) => void,
  opts: { intervalMs?: number; onStatus?: (s: RunStatus) => Promise<void> | void; hints?: boolean } = {},
): RunWatcher {
  const intervalMs = opts.intervalMs ?? 400;
  let last = '';
  const announced = new Set<string>();
  let stopped = false;
  let wake: (() => void) | undefined;
  let lastWaiting = '';
  const show = (s: RunStatus) => {
    const line = progressLine(s);
    if (line !== last) { say(line, s); last = line; }
    // A dependency the run waits on (store, model endpoint), said again when it changes (a new attempt).
    const waiting = (s.waiting_for ?? []).join('\n');
    if (waiting !== lastWaiting) {
      for (const w of s.waiting_for ?? []) say(`  ${w}`, s);
      if (!waiting && lastWaiting) say('  no longer waiting on a dependency', s);
      lastWaiting = waiting;
    }
    for (const p of s.pending_approvals ?? []) {
      if (announced.has(p.call_id)) continue;
      announced.add(p.call_id);
      // An ephemeral run's arguments are in the store: `loom status` reads them there.
      const args = storedArgsRef(p.arguments) ? `(arguments in the store: loom status ${handle.workflowId} shows them)` : JSON.stringify(p.arguments);
      say(`  awaiting approval: ${p.tool} ${args} (${p.reason})`, s);
      if (opts.hints !== false) say(`    loom approve ${handle.workflowId} ${p.call_id}   |   loom reject ${handle.workflowId} ${p.call_id} --reason "…"`, s);
    }
    for (const line of treeDecisionLines(s, handle.workflowId, announced, opts.hints !== false)) say(line, s);
    if (s.escalation) {
      const key = `esc:${s.escalation.queue}:${s.escalation.since}`;
      if (!announced.has(key)) {
        announced.add(key);
        say(`  escalated to human queue '${s.escalation.queue}': ${s.escalation.reason}`, s);
        if (opts.hints !== false) say(`    loom respond ${handle.workflowId} --queue ${s.escalation.queue} --output '{…}'   |   --close`, s);
      }
    }
  };
  let describedAt = 0;
  let waiting: string[] = [];
  const loop = async () => {
    while (!stopped) {
      let status: RunStatus | undefined;
      try {
        status = await handle.query(statusQuery);
        // What the run waits on (a describe() call): at most every 2 s, the last answer in between.
        if (Date.now() - describedAt >= 2000) {
          describedAt = Date.now();
          waiting = await waitingFor(handle);
        }
        if (waiting.length) status = { ...status, waiting_for: waiting };
      } catch {
        // Not an error of the run: it may not have taken its first workflow task yet, or has just
        // closed. The run's own outcome is reported by whoever awaits its result.
      }
      if (status && !stopped) {
        show(status);
        await opts.onStatus?.(status);
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, intervalMs);
        wake = () => { clearTimeout(t); resolve(); };
      });
    }
  };
  const done = loop();
  const failure = new Promise<never>((_, reject) => { done.catch(reject); });
  failure.catch(() => undefined); // observed by whoever awaits it or stop()
  return {
    failure,
    async stop() {
      stopped = true;
      wake?.();
      await done;
    },
  };
}

/**
 * Decisions pending anywhere in the run's tree that the lines above do not name: a member of a
 * pipeline, fan-out or pattern waiting for approval or on a human queue, and route approvals. Each
 * is said once (keyed in `announced`), with the commands that answer it from the root.
 */
export function treeDecisionLines(s: RunStatus, root: string, announced: Set<string>, hints: boolean): string[] {
  const lines: string[] = [];
  for (const d of s.pending_decisions ?? []) {
    // The run's own approvals and escalation are said from pending_approvals and escalation.
    if (!d.path.length && d.kind !== 'route_approval') continue;
    const key = `tree:${decisionRef(d)}:${d.requested_at}`;
    if (announced.has(key)) continue;
    announced.add(key);
    lines.push(`  waiting on a decision: ${describeDecision(d)}`);
    if (hints) lines.push(`    ${answerCommands(root, d).join('   |   ')}`);
  }
  return lines;
}

/**
 * One progress line. Strategies runs (fuseraft) also name who speaks, where (state or node) and the
 * route that led there: the keyword or signal, else the router's reason.
 */
export function progressLine(s: RunStatus): string {
  const base = `[${s.state}] ${s.pattern} step ${s.step}, turn ${s.turn}, tool calls ${s.tool_calls_made}, tokens ${s.token_usage?.total_tokens ?? 0}`;
  const p = s.progress as { speaker?: string; position?: string; last_signal?: string; routes?: { reason?: string }[] } | undefined;
  if (!p?.speaker) return base;
  const route = p.last_signal ? `"${p.last_signal}"` : p.routes?.[p.routes.length - 1]?.reason;
  return `${base}, speaker ${p.speaker}${p.position ? ` at ${p.position}` : ''}${route ? ` (route: ${route})` : ''}`;
}

/** The innermost failure message: what an operator can act on. */
export function describeFailure(err: WorkflowFailedError): string {
  let cause: any = err.cause;
  const parts: string[] = [];
  while (cause) {
    if (cause.message) parts.push(cause.message);
    cause = cause.cause;
  }
  return parts.length ? parts[parts.length - 1] + (parts.length > 1 ? ` (via ${parts.slice(0, -1).join(' → ')})` : '') : err.message;
}

/**
 * `loom run --stream`: prints the model's text as it arrives, from the store record the model
 * activity writes (src/activities/stream-text.ts; the same store on a real cluster, never history).
 * Polls the record; `stop()` prints what is left once the run has ended.
 */
export function watchStreamText(store: BlobStore, workflowId: string, write: (text: string) => void, intervalMs = 150, seen?: (r: StreamTextRecord) => void): { stop(): Promise<void> } {
  const printer = streamPrinter(write);
  let stopped = false;
  let wake: (() => void) | undefined;
  const poll = async () => {
    try {
      const r = parseStreamRecord(await store.getRecord(STREAM_RECORD_KIND, workflowId));
      if (r) { printer(r); seen?.(r); }
    } catch {
      // the side channel is best effort: the run's result is printed anyway
    }
  };
  const done = (async () => {
    while (!stopped) {
      await poll();
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, intervalMs);
        wake = () => { clearTimeout(t); resolve(); };
      });
    }
    await poll();
    printer(undefined);
  })();
  return {
    async stop() {
      stopped = true;
      wake?.();
      await done;
    },
  };
}

/**
 * Whether the text streamed last (the final turn's reply) already is the run's output: the same
 * string, or JSON equal to it. `loom run` then does not print the output a second time.
 */
export function streamedIsOutput(text: string, output: unknown): boolean {
  if (typeof output === 'string') return text.trim() === output.trim();
  try {
    return isDeepStrictEqual(JSON.parse(text), output);
  } catch {
    return false;
  }
}

/** Prints each new piece of a turn's text once; a new turn (or a retried model call) starts a new line. `undefined` ends the output. */
export function streamPrinter(write: (text: string) => void): (r: StreamTextRecord | undefined) => void {
  let turn = -1;
  let attempt = 0;
  let printed = 0;
  let lineOpen = false;
  return (r) => {
    if (!r) {
      if (lineOpen) write('\n');
      lineOpen = false;
      return;
    }
    if (r.turn !== turn || r.attempt !== attempt) {
      if (lineOpen) write('\n');
      if (r.turn === turn) write(`(model call retried, attempt ${r.attempt})\n`);
      turn = r.turn;
      attempt = r.attempt;
      printed = 0;
      lineOpen = false;
    }
    if (r.text.length > printed) {
      write(r.text.slice(printed));
      printed = r.text.length;
      lineOpen = true;
    }
    if (r.done && lineOpen) {
      write('\n');
      lineOpen = false;
    }
  };
}
