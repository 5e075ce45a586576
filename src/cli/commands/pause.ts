/** `loom pause ID`: signal `pause` to a run. */
import { parseArgs } from '../args';
import { withRun } from '../run-control';
import { SIGNALS } from '../../shared/contract';

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  return withRun(args.positionals[0], 'loom pause ID', async (s, id) => {
    await s.client.workflow.getHandle(id).signal(SIGNALS.pause);
    process.stdout.write(`pause signal sent to ${id}\n`);
    return 0;
  });
}
