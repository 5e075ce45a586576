/** `loom reject ID CALL_ID|PATH:CALL_ID --reason TEXT`: reject a pending tool call or route (anywhere in ID's tree); the model sees the reason. */
import { defineCommand, flagString } from '../args';
import { UsageError } from '../../operator/errors';
import { withRun } from '../../operator/run-control';
import { callTarget, heldBy } from '../../operator/decisions';
import { PAYLOAD_SHAPES, RejectArgsSchema, type RejectArgs } from '../../shared/contract';
import { payloadToSend } from '../../operator/payloads';

export const run = defineCommand(
  'reject',
  { usage: 'loom reject ID CALL_ID --reason TEXT', options: { reason: { type: 'string', value: 'TEXT', help: 'why the call is rejected (the model reads it).' } }, positionals: { min: 2, max: 2, names: ['ID', 'CALL_ID'] } },
  async (args) => {
    const [id, callId] = args.positionals;
    const reason = flagString(args, 'reason');
    if (!reason) throw new UsageError('--reason is required: the model sees it');
    // The run checks the payload with the same schema: a misfit is said here, before anything is sent.
    payloadToSend(RejectArgsSchema, { call_id: callId, reason, by: process.env.USER }, PAYLOAD_SHAPES.reject, 'rejectCall');
    return withRun(id, { command: 'reject', action: 'reject' }, async (s, wid) => {
      const { rejectUpdate } = await import('../../shared/definitions');
      const t = await callTarget(s, wid, callId);
      const payload: RejectArgs = payloadToSend(RejectArgsSchema, { call_id: t.callId, reason, by: process.env.USER }, PAYLOAD_SHAPES.reject, 'rejectCall');
      await s.client.workflow.getHandle(t.workflowId).executeUpdate(rejectUpdate, { args: [payload] });
      process.stdout.write(`rejected ${t.callId}${heldBy(t, wid)}\n`);
      return 0;
    });
  },
);
