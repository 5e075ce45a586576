/** `loom reject ID CALL_ID --reason TEXT`: reject a pending tool call; the model sees the reason. */
import { parseArgs, flagString } from '../args';
import { withRun } from '../run-control';
import { UPDATES, RejectArgs } from '../../shared/contract';

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const [id, callId] = args.positionals;
  const reason = flagString(args, 'reason');
  return withRun(id, 'loom reject ID CALL_ID --reason TEXT', async (s, wid) => {
    if (!callId || !reason) { process.stderr.write('usage: loom reject ID CALL_ID --reason TEXT\n'); return 2; }
    const payload: RejectArgs = { call_id: callId, reason, by: process.env.USER };
    await s.client.workflow.getHandle(wid).executeUpdate(UPDATES.reject, { args: [payload] });
    process.stdout.write(`rejected ${callId}\n`);
    return 0;
  });
}
