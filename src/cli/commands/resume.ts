/** `loom resume ID`: signal `resume` to a paused run through AgentloomClient.resume. */
import { defineCommand } from '../args';
import { withClient } from '../client-session';

export const run = defineCommand(
  'resume',
  { usage: 'loom resume ID', options: {}, positionals: { min: 1, max: 1, names: ['ID'] } },
  async (args) => {
    const id = args.positionals[0];
    return withClient(args, id, { command: 'resume', action: 'resume' }, async (loom) => {
      await loom.resume(id);
      process.stdout.write(`resume signal sent to ${id}\n`);
      return 0;
    });
  },
);
