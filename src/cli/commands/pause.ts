/** `loom pause ID`: signal `pause` to a run through AgentloomClient.pause (no new model or tool call starts until `loom resume`). */
import { defineCommand } from '../args';
import { withClient } from '../client-session';

export const run = defineCommand(
  'pause',
  { usage: 'loom pause ID', options: {}, positionals: { min: 1, max: 1, names: ['ID'] } },
  async (args) => {
    const id = args.positionals[0];
    return withClient(args, id, { command: 'pause', action: 'pause' }, async (loom) => {
      await loom.pause(id);
      process.stdout.write(`pause signal sent to ${id}\n`);
      return 0;
    });
  },
);
