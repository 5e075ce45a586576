/** `loom result ID [--json]`: wait for a run and print its output (AgentloomClient.result; exit 1 with the reason on failure). */
import { defineCommand } from '../args';
import { withClient } from '../client-session';

export const run = defineCommand(
  'result',
  { usage: 'loom result ID [--json]', options: { json: { type: 'boolean', help: 'print JSON instead of text.' } }, positionals: { min: 1, max: 1, names: ['ID'] } },
  async (args) => {
    const id = args.positionals[0];
    return withClient(args, id, { command: 'result' }, async (loom) => {
      const { RunError } = await import('../../operator/runs');
      try {
        // An ephemeral run's output waits in the store until collected once; the client collects it.
        const output = await loom.result(id);
        process.stdout.write(JSON.stringify(output, null, args.flags.json === true ? 0 : 2) + '\n');
        return 0;
      } catch (err) {
        if (err instanceof RunError) { process.stderr.write(`loom result: ${err.message}\n`); return 1; }
        throw err;
      }
    });
  },
);
