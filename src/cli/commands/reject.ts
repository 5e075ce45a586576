/** `loom reject ID CALL_ID --reason TEXT`: reject a pending tool call; the model sees the reason. */
import { defineCommand, flagString, UsageError } from '../args';
import { withRun } from '../run-control';
import type { RejectArgs } from '../../shared/contract';

export const run = defineCommand(
  'reject',
  { usage: 'loom reject ID CALL_ID --reason TEXT', options: { reason: { type: 'string' } }, positionals: { min: 2, max: 2, names: ['ID', 'CALL_ID'] } },
  async (args) => {
    const [id, callId] = args.positionals;
    const reason = flagString(args, 'reason');
    if (!reason) throw new UsageError('--reason is required: the model sees it');
    const payload: RejectArgs = { call_id: callId, reason, by: process.env.USER };
    return withRun(id, { command: 'reject', action: 'reject' }, async (s, wid) => {
      const { rejectUpdate } = await import('../../shared/handlers');
      await s.client.workflow.getHandle(wid).executeUpdate(rejectUpdate, { args: [payload] });
      process.stdout.write(`rejected ${callId}\n`);
      return 0;
    });
  },
);
