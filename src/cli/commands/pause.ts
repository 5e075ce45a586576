/** `loom pause ID`: signal `pause` to a run (no new model or tool call starts until `loom resume`). */
import { defineCommand } from '../args';
import { withRun } from '../../operator/run-control';

export const run = defineCommand(
  'pause',
  { usage: 'loom pause ID', options: {}, positionals: { min: 1, max: 1, names: ['ID'] } },
  async (args) =>
    withRun(args.positionals[0], { command: 'pause', action: 'pause' }, async (s, id) => {
      const { pauseSignal } = await import('../../shared/definitions');
      await s.client.workflow.getHandle(id).signal(pauseSignal);
      process.stdout.write(`pause signal sent to ${id}\n`);
      return 0;
    }),
);
