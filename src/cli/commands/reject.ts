/** `loom reject ID CALL_ID|PATH:CALL_ID --reason TEXT`: reject a pending tool call or route (anywhere in ID's tree) through AgentloomClient.reject; the model sees the reason. */
import { defineCommand, flagString } from '../args';
import { UsageError } from '../../operator/errors';
import { withClient } from '../client-session';

export const run = defineCommand(
  'reject',
  { usage: 'loom reject ID CALL_ID --reason TEXT', options: { reason: { type: 'string', value: 'TEXT', help: 'why the call is rejected (the model reads it).' } }, positionals: { min: 2, max: 2, names: ['ID', 'CALL_ID'] } },
  async (args) => {
    const [id, callId] = args.positionals;
    const reason = flagString(args, 'reason');
    if (!reason) throw new UsageError('--reason is required: the model sees it');
    return withClient(args, id, { command: 'reject', action: 'reject' }, async (loom) => {
      const t = await loom.reject(id, callId, reason);
      const { heldBy } = await import('../../operator/decisions');
      process.stdout.write(`rejected ${t.callId}${heldBy(t, id)}\n`);
      return 0;
    });
  },
);
