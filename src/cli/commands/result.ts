/** `loom result ID [--json]`: wait for a run and print its output (exit 1 with the reason on failure). */
import { WorkflowFailedError } from '@temporalio/client';
import { parseArgs } from '../args';
import { withRun } from '../run-control';
import { describeFailure } from '../progress';

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv, ['json']);
  return withRun(args.positionals[0], 'loom result ID [--json]', async (s, id) => {
    try {
      const result: any = await s.client.workflow.getHandle(id).result();
      process.stdout.write(JSON.stringify(result?.output ?? result, null, args.flags.json === true ? 0 : 2) + '\n');
      return 0;
    } catch (err) {
      if (err instanceof WorkflowFailedError) { process.stderr.write(`loom result: ${id} failed: ${describeFailure(err)}\n`); return 1; }
      throw err;
    }
  });
}
