/** `loom resume ID`: signal `resume` to a paused run. */
import { defineCommand } from '../args';
import { withRun } from '../../operator/run-control';

export const run = defineCommand(
  'resume',
  { usage: 'loom resume ID', options: {}, positionals: { min: 1, max: 1, names: ['ID'] } },
  async (args) =>
    withRun(args.positionals[0], { command: 'resume', action: 'resume' }, async (s, id) => {
      const { resumeSignal } = await import('../../shared/definitions');
      await s.client.workflow.getHandle(id).signal(resumeSignal);
      process.stdout.write(`resume signal sent to ${id}\n`);
      return 0;
    }),
);
