/**
 * Start a prepared run and follow it to its end: live progress on stderr (unless --json), the
 * output on stdout. Shared by `loom run` and `loom dispatch` (which tries fallback agents when it
 * fails).
 */
import type { Client } from '@temporalio/client';
import type { JsonValue } from '../compiled/types';
import { startPrepared, type PreparedRun } from './runs';

export type RunEnd = { ok: true; workflowId: string; output: JsonValue } | { ok: false; workflowId: string; reason: string };

export async function runToEnd(client: Client, prepared: PreparedRun, opts: { json: boolean; uiUrl?: string; namespace: string; embedded?: boolean; say: (line: string) => void; follow?: (workflowId: string) => { stop(): Promise<void> } }): Promise<RunEnd> {
  const { webUiLink } = await import('./connect');
  const { watchRun, describeFailure } = await import('./progress');
  const { WorkflowFailedError } = await import('@temporalio/client');
  const handle = await startPrepared(client, prepared);
  const link = webUiLink(opts.uiUrl, opts.namespace, handle.workflowId);
  // A link into an embedded server lives only as long as this command: say so, and what keeps one.
  const lasts = link && opts.embedded ? '\n  (this server stops when the command ends; `loom dev` in this folder keeps one running, and the run with it)' : '';
  opts.say(`started ${handle.workflowId}${link ? `\n  ${link}` : ''}${lasts}`);
  const watcher = opts.json ? undefined : watchRun(handle, opts.say);
  // `loom run --stream`: the model's text as it arrives (src/operator/progress.ts watchStreamText).
  const follower = opts.follow?.(handle.workflowId);
  let result;
  try {
    result = await handle.result();
  } catch (err) {
    if (err instanceof WorkflowFailedError) {
      if (link) opts.say(`history: ${link}`);
      return { ok: false, workflowId: handle.workflowId, reason: describeFailure(err) };
    }
    throw err;
  } finally {
    await watcher?.stop();
    await follower?.stop();
  }
  for (const w of result?.warnings ?? []) opts.say(`warning: ${w}`);
  if (link) opts.say(`history: ${link}`);
  const output = (result?.output ?? result) as JsonValue;
  // An ephemeral run's output waits in the store: collected (read, then deleted) here.
  const { ephemeralOutputRef } = await import('../activities/ephemeral');
  if (ephemeralOutputRef(output)) {
    const kept = await collectOutput(handle.workflowId);
    if (!kept) return { ok: false, workflowId: handle.workflowId, reason: `the output of ephemeral run ${handle.workflowId} is no longer in the store (already collected, or swept after LOOM_EPHEMERAL_PICKUP_HOURS)` };
    return { ok: true, workflowId: handle.workflowId, output: kept.output as JsonValue };
  }
  return { ok: true, workflowId: handle.workflowId, output };
}

/** Read and delete an ephemeral run's kept output (null: already collected or swept). */
export async function collectOutput(workflowId: string): Promise<{ output: unknown } | null> {
  const { collectEphemeralOutput } = await import('../activities/ephemeral');
  const { openBlobStore } = await import('../activities/blob-store');
  return collectEphemeralOutput(openBlobStore(), workflowId);
}
