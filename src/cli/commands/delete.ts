/**
 * `loom delete ID [--force]`: remove a run and its state (its history and its member runs'
 * histories). A running run is refused unless --force (which terminates it first).
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { parseArgs } from '../args';
import { orchestrationSession, quote } from './list';

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv, ['force']);
  const id = args.positionals[0];
  if (!id) { process.stderr.write('usage: loom delete ID [--force]\n'); return 2; }
  const s = await orchestrationSession();
  try {
    const handle = s.client.workflow.getHandle(id);
    let desc;
    try { desc = await handle.describe(); } catch (err) {
      if (err instanceof WorkflowNotFoundError) { process.stderr.write(`loom delete: no run with id ${id}\n`); return 1; }
      throw err;
    }
    if (desc.status.name === 'RUNNING') {
      if (args.flags.force !== true) { process.stderr.write(`loom delete: ${id} is still running: cancel it first, or pass --force\n`); return 1; }
      await handle.terminate('deleted with loom delete --force');
    }
    const namespace = s.client.options.namespace;
    // Member runs: child workflow ids are `<parent>/<role>` (src/workflows/child.ts).
    const children: string[] = [];
    try {
      for await (const wf of s.client.workflow.list({ query: `WorkflowId STARTS_WITH ${quote(id + '/')}` })) children.push(wf.workflowId);
    } catch {
      // Visibility stores without STARTS_WITH: the run itself is still deleted.
    }
    for (const wid of [...children, id]) {
      try {
        await s.client.workflowService.deleteWorkflowExecution({ namespace, workflowExecution: { workflowId: wid } });
      } catch (err) {
        if (wid === id) throw err;
      }
    }
    process.stdout.write(`deleted ${id}${children.length ? ` and ${children.length} member run(s)` : ''}\n`);
    return 0;
  } finally {
    await s.close();
  }
}
