/** `loom cancel ID`: request Temporal cancellation (activities heartbeat and stop). */
import { parseArgs } from '../args';
import { withRun } from '../run-control';

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  return withRun(args.positionals[0], 'loom cancel ID', async (s, id) => {
    await s.client.workflow.getHandle(id).cancel();
    process.stdout.write(`cancellation requested for ${id}\n`);
    return 0;
  });
}
