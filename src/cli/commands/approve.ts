/** `loom approve ID CALL_ID [--args JSON]`: approve a pending tool call, optionally with corrected arguments. */
import { parseArgs, flagString } from '../args';
import { withRun, parseJsonFlag } from '../run-control';
import { UPDATES, ApproveArgs } from '../../shared/contract';

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const [id, callId] = args.positionals;
  return withRun(id, 'loom approve ID CALL_ID [--args JSON]', async (s, wid) => {
    if (!callId) { process.stderr.write('usage: loom approve ID CALL_ID [--args JSON]\n'); return 2; }
    const payload: ApproveArgs = { call_id: callId, args: parseJsonFlag(flagString(args, 'args'), 'args'), by: process.env.USER };
    const res = await s.client.workflow.getHandle(wid).executeUpdate(UPDATES.approve, { args: [payload] });
    process.stdout.write(`approved ${callId}${payload.args ? ' with corrected arguments' : ''}\n`);
    return 0;
  });
}
