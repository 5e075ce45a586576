/**
 * The CLI's AgentloomClient: every run-facing command (run, start, status, approve, chat, dispatch,
 * list, inbox…) builds one and calls its public methods, so nothing the CLI does is out of an
 * application's reach. The client is lazy (the connection opens on its first call, so a refused
 * input never needs a server), takes the command line's connection options, and goes to the `loom
 * dev` server of this folder when no cluster is configured (`run`, `chat` and `dispatch` pass the
 * embedded starter instead: a dev server and worker of their own when there is none). `withClient` turns what the client throws into the CLI's
 * one-line answers and exit codes: 0 done, 1 refused / no such run / run already ended.
 */
import type { AgentloomClient, EmbeddedStarter } from '../client/agentloom-client';
import { connectionOverrides, registryDir, type ParsedArgs } from './args';

/** An AgentloomClient for this command: the command line's connection options, its --registry, LOOM_TASK_QUEUE. */
export async function openClient(args: ParsedArgs, opts: { local?: 'loom-dev' | EmbeddedStarter; verbose?: boolean } = {}): Promise<AgentloomClient> {
  // Each protobuf message function compiled at its first call (src/cli/lazy-codecs.ts): the CLI's process only.
  (await import('./lazy-codecs')).makeCodecsLazily();
  const { AgentloomClient } = await import('../client/agentloom-client');
  return AgentloomClient.connect({
    connection: connectionOverrides(), local: opts.local ?? 'loom-dev', lazy: true, verbose: opts.verbose,
    registry: registryDir(args), ...(process.env.LOOM_TASK_QUEUE ? { taskQueue: process.env.LOOM_TASK_QUEUE } : {}),
  });
}

/**
 * Runs `fn` with a client for the command acting on run `id` (`action`: the verb of a command that
 * changes the run, for "nothing to approve"), and closes it. A run that has ended
 * ("run X is completed: nothing to approve"), a run that does not exist, and a decision the run
 * refuses are said on stderr as `loom COMMAND: …` with exit 1; anything else propagates.
 */
export async function withClient(args: ParsedArgs, id: string, opts: { command: string; action?: string }, fn: (loom: AgentloomClient) => Promise<number>): Promise<number> {
  const { WorkflowNotFoundError, WorkflowUpdateFailedError } = await import('@temporalio/client');
  const { RunEndedError } = await import('../operator/run-control');
  const { RefusedError } = await import('../operator/decisions');
  const loom = await openClient(args);
  const say = (m: string) => { process.stderr.write(`loom ${opts.command}: ${m}\n`); };
  try {
    return await fn(loom);
  } catch (err) {
    if (err instanceof RunEndedError) { say(err.message); return 1; }
    if (err instanceof WorkflowNotFoundError) {
      // Temporal answers "not found" to a signal or update sent to a run that has just closed.
      const ended = await endedNow(loom, id);
      say(ended ? `run ${id} is ${ended}${opts.action ? `: nothing to ${opts.action}` : ''}` : `no run with id ${id}`);
      return 1;
    }
    if (err instanceof RefusedError) { say(`refused: ${err.message}`); return 1; }
    if (err instanceof WorkflowUpdateFailedError) {
      const cause = err.cause as Error | undefined;
      say(`refused: ${cause?.message ?? err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await loom.close();
  }
}

/** How run `id` ended, if it exists and has ended. */
async function endedNow(loom: AgentloomClient, id: string): Promise<string | undefined> {
  const { WorkflowNotFoundError } = await import('@temporalio/client');
  const { endedAs } = await import('../operator/run-control');
  try {
    return endedAs(await (await loom.temporalClient()).workflow.getHandle(id).describe());
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}
