/**
 * `loom delete ID [--force]`: remove a run and its state through AgentloomClient.delete: every run
 * of the workflow id (a chain of continue-as-new runs, earlier executions reusing the id) and every
 * run of its member workflows (`<id>/…`). A running run is refused unless --force (which terminates
 * it first). Prints "deleted" once the run no longer resolves (Temporal deletes asynchronously).
 */
import { defineCommand } from '../args';
import { withClient } from '../client-session';

export const run = defineCommand(
  'delete',
  { usage: 'loom delete ID [--force]', options: { force: { type: 'boolean', help: 'delete even a run that is still open (it is terminated first).' } }, positionals: { min: 1, max: 1, names: ['ID'] } },
  async (args) => {
    const id = args.positionals[0];
    const { RunStillOpenError } = await import('../../client/agentloom-client');
    return withClient(args, id, { command: 'delete' }, async (loom) => {
      let r;
      try {
        r = await loom.delete(id, { force: args.flags.force === true });
      } catch (err) {
        if (!(err instanceof RunStillOpenError)) throw err;
        process.stderr.write(`loom delete: ${id} is still running: cancel it first, or pass --force\n`);
        return 1;
      }
      if (!r.removed) {
        process.stdout.write(`deletion of ${id} requested; Temporal has not removed it yet (check with loom status ${id})\n`);
        return 0;
      }
      process.stdout.write(`deleted ${id}${r.runs > 1 ? ` (${r.runs} runs)` : ''}${r.members ? ` and ${r.members} member run(s)` : ''}\n`);
      return 0;
    });
  },
);
