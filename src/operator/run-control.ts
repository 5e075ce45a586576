/**
 * Shared plumbing of the commands that act on one existing run (status, approve, pause…): connect,
 * refuse to act on a run that has already ended (saying how it ended), and turn Temporal's errors
 * into one-line answers. Exit codes: 0 done, 1 refused / no such run / run already ended.
 */
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { connect, LoomSession } from './connect';
import { UsageError } from './errors';
import { RefusedError } from './decisions';

/** How a closed run ended, in words: `completed`, `failed`, `cancelled`, `terminated`, `timed out`. */
export function endedAs(desc: WorkflowExecutionDescription): string | undefined {
  const s = desc.status.name;
  if (s === 'RUNNING') return undefined;
  return s === 'TIMED_OUT' ? 'timed out' : s === 'CONTINUED_AS_NEW' ? 'continued as new' : s.toLowerCase();
}

export class RunEndedError extends Error {}

async function describeOrUndefined(s: LoomSession, id: string): Promise<WorkflowExecutionDescription | undefined> {
  const { WorkflowNotFoundError } = await import('@temporalio/client');
  try {
    return await s.client.workflow.getHandle(id).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

export interface RunControlOptions {
  /** The command's name for messages (`approve`). */
  command: string;
  /** Set for commands that change a run: refused with the final state when the run has ended. */
  action?: string;
}

/**
 * Runs `fn` on run `id`. With `action`, a run that has already ended is refused first
 * ("run X is completed: nothing to approve", exit 1), and again if it ends while the command acts.
 */
export async function withRun(id: string, opts: RunControlOptions, fn: (s: LoomSession, id: string) => Promise<number>): Promise<number> {
  const { WorkflowNotFoundError, WorkflowUpdateFailedError } = await import('@temporalio/client');
  const session = await connect({ embedded: 'never' });
  const say = (m: string) => process.stderr.write(`loom ${opts.command}: ${m}\n`);
  const ended = (desc: WorkflowExecutionDescription) => `run ${id} is ${endedAs(desc)}${opts.action ? `: nothing to ${opts.action}` : ''}`;
  try {
    if (opts.action) {
      const desc = await describeOrUndefined(session, id);
      if (!desc) { say(`no run with id ${id}`); return 1; }
      if (endedAs(desc)) { say(ended(desc)); return 1; }
    }
    return await fn(session, id);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      // Temporal answers "not found" to a signal or update sent to a run that has just closed.
      const desc = await describeOrUndefined(session, id);
      say(desc && endedAs(desc) ? ended(desc) : `no run with id ${id}`);
      return 1;
    }
    if (err instanceof RefusedError) {
      say(`refused: ${err.message}`);
      return 1;
    }
    if (err instanceof WorkflowUpdateFailedError) {
      const cause = err.cause as Error | undefined;
      say(`refused: ${cause?.message ?? err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await session.close();
  }
}

/** `--NAME JSON` parsed (a UsageError, exit 2, when it is not JSON). */
export function parseJsonFlag(raw: string | undefined, name: string): any {
  if (raw === undefined) return undefined;
  try { return JSON.parse(raw); } catch (e) { throw new UsageError(`--${name} is not valid JSON (${(e as Error).message})`); }
}
