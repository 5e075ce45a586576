/** Shared plumbing of the commands that act on one existing run (status, approve, pause…). */
import { WorkflowUpdateFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { connect, LoomSession } from './connect';

export async function withRun(id: string | undefined, usage: string, fn: (s: LoomSession, id: string) => Promise<number>): Promise<number> {
  if (!id) { process.stderr.write(`usage: ${usage}\n`); return 2; }
  const session = await connect({ embedded: 'never' });
  try {
    return await fn(session, id);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) { process.stderr.write(`loom: no run with id ${id}\n`); return 1; }
    if (err instanceof WorkflowUpdateFailedError) {
      const cause: any = err.cause;
      process.stderr.write(`loom: refused: ${cause?.message ?? err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await session.close();
  }
}

export function parseJsonFlag(raw: string | undefined, name: string): any {
  if (raw === undefined) return undefined;
  try { return JSON.parse(raw); } catch (e) { throw new Error(`--${name} is not valid JSON: ${(e as Error).message}`); }
}
