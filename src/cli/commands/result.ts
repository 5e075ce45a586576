/** `loom result ID [--json]`: wait for a run and print its output (exit 1 with the reason on failure). */
import { defineCommand } from '../args';
import { withRun } from '../run-control';

export const run = defineCommand(
  'result',
  { usage: 'loom result ID [--json]', options: { json: { type: 'boolean' } }, positionals: { min: 1, max: 1, names: ['ID'] } },
  async (args) =>
    withRun(args.positionals[0], { command: 'result' }, async (s, id) => {
      const { WorkflowFailedError } = await import('@temporalio/client');
      const { describeFailure } = await import('../progress');
      try {
        const result: any = await s.client.workflow.getHandle(id).result();
        process.stdout.write(JSON.stringify(result?.output ?? result, null, args.flags.json === true ? 0 : 2) + '\n');
        return 0;
      } catch (err) {
        if (err instanceof WorkflowFailedError) { process.stderr.write(`loom result: ${id} failed: ${describeFailure(err)}\n`); return 1; }
        throw err;
      }
    }),
);
