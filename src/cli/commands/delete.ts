/**
 * `loom delete ID [--force]`: remove a run and its state: every run of the workflow id (a chain of
 * continue-as-new runs, earlier executions reusing the id) and every run of its member workflows
 * (`<id>/…`), each deleted by run id. A running run is refused unless --force (which terminates it first).
 * Prints "deleted" once the run no longer resolves (Temporal deletes asynchronously).
 */
import { defineCommand } from '../args';

interface Execution { workflowId: string; runId?: string }

export const run = defineCommand(
  'delete',
  { usage: 'loom delete ID [--force]', options: { force: { type: 'boolean', help: 'delete even a run that is still open (it is terminated first).' } }, positionals: { min: 1, max: 1, names: ['ID'] } },
  async (args) => {
    const id = args.positionals[0];
    const { WorkflowNotFoundError } = await import('@temporalio/client');
    const { connect } = await import('../../operator/connect');
    const { quote } = await import('../../client/agentloom-client');
    const s = await connect();
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
      const namespace = s.namespace;
      const list = async (query: string): Promise<Execution[]> => {
        const out: Execution[] = [];
        try {
          for await (const wf of s.client.workflow.list({ query })) out.push({ workflowId: wf.workflowId, runId: wf.runId });
        } catch {
          // Visibility stores without STARTS_WITH: what was found is still deleted.
        }
        return out;
      };
      // Every run of the id (visibility lists each execution), the latest described one included even
      // if visibility has not caught up yet.
      const own = await list(`WorkflowId = ${quote(id)}`);
      if (!own.some((e) => e.runId === desc.runId)) own.push({ workflowId: id, runId: desc.runId });
      // Member runs: child workflow ids are `<parent>/<role>` (src/workflows/child.ts), every run of each.
      const members = await list(`WorkflowId STARTS_WITH ${quote(id + '/')}`);
      for (const e of [...members, ...own.reverse()]) {
        try {
          await s.client.workflowService.deleteWorkflowExecution({ namespace, workflowExecution: { workflowId: e.workflowId, runId: e.runId } });
        } catch (err) {
          // A run already gone is fine; failing to delete the described run is not.
          if (e.workflowId === id && e.runId === desc.runId) throw err;
        }
      }
      // Temporal deletes asynchronously (a busy server takes tens of seconds): say "deleted" once
      // the run no longer resolves, or say honestly that it is still pending.
      const deadline = Date.now() + 120_000;
      for (;;) {
        try {
          await handle.describe();
        } catch (err) {
          if (err instanceof WorkflowNotFoundError) break;
          throw err;
        }
        if (Date.now() > deadline) {
          process.stdout.write(`deletion of ${id} requested; Temporal has not removed it yet (check with loom status ${id})\n`);
          return 0;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      const earlier = own.length - 1;
      process.stdout.write(`deleted ${id}${earlier ? ` (${own.length} runs)` : ''}${members.length ? ` and ${members.length} member run(s)` : ''}\n`);
      return 0;
    } finally {
      await s.close();
    }
  },
);
