/** `loom result ID [--json]`: wait for a run and print its output (exit 1 with the reason on failure). */
import { defineCommand } from '../args';
import { withRun } from '../../operator/run-control';

export const run = defineCommand(
  'result',
  { usage: 'loom result ID [--json]', options: { json: { type: 'boolean', help: 'print JSON instead of text.' } }, positionals: { min: 1, max: 1, names: ['ID'] } },
  async (args) =>
    withRun(args.positionals[0], { command: 'result' }, async (s, id) => {
      const { WorkflowFailedError } = await import('@temporalio/client');
      const { describeFailure } = await import('../../operator/progress');
      try {
        const result: any = await s.client.workflow.getHandle(id).result();
        let output = result?.output ?? result;
        // An ephemeral run's output waits in the store until collected once; reading it deletes it.
        const { ephemeralOutputRef } = await import('../../activities/ephemeral');
        if (ephemeralOutputRef(output)) {
          const { collectOutput } = await import('../../operator/run-flow');
          const kept = await collectOutput(id);
          if (!kept) { process.stderr.write(`loom result: ${id} is an ephemeral run and its output is no longer in the store: it was already collected (by loom run or loom result), or not collected within LOOM_EPHEMERAL_PICKUP_HOURS and purged\n`); return 1; }
          output = kept.output;
        }
        process.stdout.write(JSON.stringify(output, null, args.flags.json === true ? 0 : 2) + '\n');
        return 0;
      } catch (err) {
        if (err instanceof WorkflowFailedError) { process.stderr.write(`loom result: ${id} failed: ${describeFailure(err)}\n`); return 1; }
        throw err;
      }
    }),
);
