/**
 * Start a prepared run and follow it to its end, saying its progress as typed events: what
 * AgentloomClient's `run` and `runDetail` (`onProgress`) and `dispatch` do, and through them
 * `loom run` and `loom dispatch`.
 */
import type { Client } from '@temporalio/client';
import type { JsonValue } from '../compiled/types';
import type { RunStatus } from '../shared/contract';
import { startPrepared, type PreparedRun } from './runs';

export type RunEnd = { ok: true; workflowId: string; output: JsonValue } | { ok: false; workflowId: string; reason: string };

/**
 * One step of a run as it is followed. Each event carries `line`, the sentence `loom run` prints
 * for it on stderr (progress lines start with two spaces, the commands that answer a decision
 * with four), beside the same facts as fields.
 */
export type RunProgress =
  /** No input was given: the agent's first interface example is the input. */
  | { kind: 'input'; line: string; input: JsonValue }
  /** The run continues a chat session: its earlier runs and the messages the model is given. */
  | { kind: 'session'; line: string; session: string; runs: number; kept: number; dropped: number }
  /** A dev server and worker were started for this client (an embedded starter), at `address`. */
  | { kind: 'server'; line: string; address: string; uiUrl?: string }
  /** The run started; `link` is its page in the Web UI when the UI's address is known. */
  | { kind: 'started'; line: string; workflowId: string; link?: string }
  /**
   * What the run's status query says changed: the state, turn and token line, a dependency waited
   * on, a tool call awaiting approval, a decision awaited anywhere in the tree, an escalation;
   * followed by the commands that answer it.
   */
  | { kind: 'status'; line: string; workflowId: string; status: RunStatus }
  /** A warning the run ended with. */
  | { kind: 'warning'; line: string; workflowId: string; message: string }
  /** The run has ended (or failed): its history in the Web UI. */
  | { kind: 'history'; line: string; workflowId: string; link: string };

export interface FollowOptions {
  /** The task queue the run starts on (else LOOM_TASK_QUEUE, else the default). */
  taskQueue?: string;
  uiUrl?: string;
  namespace: string;
  /** The server lives only as long as this process (an embedded one): the started line says so. */
  embedded?: boolean;
  /** Progress events; without it the run is not watched (`loom run --json`). */
  onProgress?: (e: RunProgress) => void;
  /** Follows the run's streamed text from its start (`loom run --stream`); stopped when the run ends. */
  follow?: (workflowId: string) => { stop(): Promise<void> };
}

export async function runToEnd(client: Client, prepared: PreparedRun, opts: FollowOptions): Promise<RunEnd> {
  const { webUiLink } = await import('./connect');
  const { watchRun, describeFailure } = await import('./progress');
  const { WorkflowFailedError } = await import('@temporalio/client');
  const handle = await startPrepared(client, prepared, opts.taskQueue);
  const workflowId = handle.workflowId;
  const emit = opts.onProgress ?? (() => undefined);
  const link = webUiLink(opts.uiUrl, opts.namespace, workflowId);
  // A link into an embedded server lives only as long as this command: say so, and what keeps one.
  const lasts = link && opts.embedded ? '\n  (this server stops when the command ends; `loom dev` in this folder keeps one running, and the run with it)' : '';
  emit({ kind: 'started', line: `started ${workflowId}${link ? `\n  ${link}` : ''}${lasts}`, workflowId, ...(link ? { link } : {}) });
  const history = () => { if (link) emit({ kind: 'history', line: `history: ${link}`, workflowId, link }); };
  const watcher = opts.onProgress ? watchRun(handle, (line, status) => emit({ kind: 'status', line, workflowId, status })) : undefined;
  // `loom run --stream`: the model's text as it arrives (src/operator/progress.ts watchStreamText).
  const follower = opts.follow?.(workflowId);
  let result;
  try {
    result = await handle.result();
  } catch (err) {
    if (err instanceof WorkflowFailedError) {
      history();
      return { ok: false, workflowId, reason: describeFailure(err) };
    }
    throw err;
  } finally {
    await watcher?.stop();
    await follower?.stop();
  }
  for (const w of result?.warnings ?? []) emit({ kind: 'warning', line: `warning: ${w}`, workflowId, message: w });
  history();
  const output = (result?.output ?? result) as JsonValue;
  // An ephemeral run's output waits in the store: collected (read, then deleted) here.
  const { ephemeralOutputRef } = await import('../activities/ephemeral');
  if (ephemeralOutputRef(output)) {
    const kept = await collectOutput(workflowId);
    if (!kept) return { ok: false, workflowId, reason: `the output of ephemeral run ${workflowId} is no longer in the store (already collected, or swept after LOOM_EPHEMERAL_PICKUP_HOURS)` };
    return { ok: true, workflowId, output: kept.output as JsonValue };
  }
  return { ok: true, workflowId, output };
}

/** Read and delete an ephemeral run's kept output (null: already collected or swept). */
export async function collectOutput(workflowId: string): Promise<{ output: unknown } | null> {
  const { collectEphemeralOutput } = await import('../activities/ephemeral');
  const { openBlobStore } = await import('../activities/blob-store');
  return collectEphemeralOutput(openBlobStore(), workflowId);
}
