/** `loom cancel ID`: request Temporal cancellation through AgentloomClient.cancel (activities heartbeat and stop); refused for a run that has ended. */
import { defineCommand } from '../args';
import { withClient } from '../client-session';

export const run = defineCommand(
  'cancel',
  { usage: 'loom cancel ID', options: {}, positionals: { min: 1, max: 1, names: ['ID'] } },
  async (args) => {
    const id = args.positionals[0];
    return withClient(args, id, { command: 'cancel', action: 'cancel' }, async (loom) => {
      await loom.cancel(id);
      process.stdout.write(`cancellation requested for ${id}\n`);
      return 0;
    });
  },
);
