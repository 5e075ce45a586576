/**
 * What `loom status ID` (and an application's AgentloomClient.status) reads of a run: Temporal's
 * description, the run's `status` query with an ephemeral run's stored call arguments filled in,
 * and what it waits on besides a human (src/operator/waiting.ts).
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { RunStatus } from '../shared/contract';
import { statusWithStoredArgs } from './stored-args';
import { waitingFromDescription } from './waiting';

export interface RunStatusView {
  desc: WorkflowExecutionDescription;
  /** Undefined when the query could not be answered (see queryError). */
  status?: RunStatus;
  /** e.g. the run has not taken its first workflow task yet, or no worker serves its task queue. */
  queryError?: string;
  waiting: string[];
  /** The JSON `loom status --json` prints. */
  out: Record<string, unknown>;
}

export async function readRunStatus(client: Client, id: string): Promise<RunStatusView> {
  const { statusQuery } = await import('../shared/definitions');
  const handle = client.workflow.getHandle(id);
  // The description and the status query are independent reads: both go out at once, so the query's
  // wait on a worker overlaps the description's round trip and decoding. A run that does not exist
  // (or a namespace that does not) fails the description; the query, failing too, is awaited first so
  // no call is left open when the caller closes the connection.
  const queried = handle.query(statusQuery).then((s): { status: RunStatus } => ({ status: s }), (err: unknown) => ({ queryError: (err as Error).message }));
  let desc: WorkflowExecutionDescription;
  try {
    desc = await handle.describe();
  } catch (err) {
    await queried;
    throw err;
  }
  const answer = await queried;
  let status = 'status' in answer ? answer.status : undefined;
  const queryError = 'queryError' in answer ? answer.queryError : undefined;
  // An ephemeral run's pending calls hold a reference: their arguments are read from the store.
  if (status) status = await statusWithStoredArgs(status);
  // A dependency the run waits on (store, model endpoint): from its pending activities.
  const waiting = waitingFromDescription(desc as Parameters<typeof waitingFromDescription>[0]);
  if (status && waiting.length) status = { ...status, waiting_for: waiting };
  const out = { workflow_id: id, temporal_status: desc.status.name, type: desc.type, started: desc.startTime, closed: desc.closeTime, ...(waiting.length ? { waiting_for: waiting } : {}), ...(status ?? {}) };
  return { desc, ...(status ? { status } : {}), ...(queryError !== undefined ? { queryError } : {}), waiting, out };
}
