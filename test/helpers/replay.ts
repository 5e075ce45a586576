/**
 * Replay recorded histories against the current workflow bundle and check that every one of them
 * was replayed: a test that uses this cannot pass on zero files, on an empty or truncated-at-start
 * history, or on a replay iterator that stops early.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Worker } from '@temporalio/worker';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { NO_TELEMETRY_SINKS, workflowBundlePath } from './temporal';

export interface ReplayOutcome {
  workflowId: string;
  error?: string;
}

/**
 * Replay `files` (names in `dir`) under the workflow id of the file name (child ids derive from
 * it), and return one outcome per file, in file order. Fails when `files` is empty, when a file
 * holds no history that starts a workflow, or when the replayer does not answer for every file.
 */
export async function replayFiles(dir: string, files: string[]): Promise<ReplayOutcome[]> {
  if (files.length === 0) throw new Error(`no recorded history to replay in ${dir}`);
  return replayHistories(
    files.map((f) => ({ workflowId: f.replace(/\.json$/, ''), history: historyFromJSON(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))) })),
  );
}

type History = ReturnType<typeof historyFromJSON>;

/** The same for histories in memory (e.g. fetched from the server): one outcome per history, in order. */
export async function replayHistories(histories: { workflowId: string; history: History }[]): Promise<ReplayOutcome[]> {
  if (histories.length === 0) throw new Error('no history to replay');
  for (const { workflowId, history } of histories) {
    const events = history.events ?? [];
    const type = events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
    if (!type) throw new Error(`${workflowId}: the history does not start with WorkflowExecutionStarted (${events.length} events)`);
    if (events.length < 3) throw new Error(`${workflowId}: ${events.length} events, not a recorded run`);
  }
  const byId = new Map<string, ReplayOutcome>();
  for await (const r of Worker.runReplayHistories({ workflowBundle: { codePath: workflowBundlePath() }, sinks: NO_TELEMETRY_SINKS }, histories)) {
    if (byId.has(r.workflowId)) throw new Error(`replayed ${r.workflowId} twice`);
    byId.set(r.workflowId, { workflowId: r.workflowId, ...(r.error ? { error: String(r.error) } : {}) });
  }
  const missing = histories.map((h) => h.workflowId).filter((id) => !byId.has(id));
  if (missing.length) throw new Error(`the replayer ended before replaying: ${missing.join(', ')}`);
  return histories.map((h) => byId.get(h.workflowId)!);
}
