/** `loom cancel ID`: request Temporal cancellation (activities heartbeat and stop); refused for a run that has ended. */
import { defineCommand } from '../args';
import { withRun } from '../../operator/run-control';

export const run = defineCommand(
  'cancel',
  { usage: 'loom cancel ID', options: {}, positionals: { min: 1, max: 1, names: ['ID'] } },
  async (args) =>
    withRun(args.positionals[0], { command: 'cancel', action: 'cancel' }, async (s, id) => {
      await s.client.workflow.getHandle(id).cancel();
      process.stdout.write(`cancellation requested for ${id}\n`);
      return 0;
    }),
);
