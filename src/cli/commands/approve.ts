/** `loom approve ID CALL_ID [--args JSON]`: approve a pending tool call, optionally with corrected arguments. */
import { defineCommand, flagString, UsageError } from '../args';
import { withRun, parseJsonFlag } from '../run-control';
import type { ApproveArgs } from '../../shared/contract';

export const run = defineCommand(
  'approve',
  { usage: 'loom approve ID CALL_ID [--args JSON]', options: { args: { type: 'string' } }, positionals: { min: 2, max: 2, names: ['ID', 'CALL_ID'] } },
  async (args) => {
    const [id, callId] = args.positionals;
    const corrected = parseJsonFlag(flagString(args, 'args'), 'args');
    if (corrected !== undefined && (corrected === null || typeof corrected !== 'object' || Array.isArray(corrected))) {
      throw new UsageError(`--args must be a JSON object of the tool's arguments, e.g. --args '{"path":"a.md"}'`);
    }
    const payload: ApproveArgs = { call_id: callId, ...(corrected ? { args: corrected } : {}), by: process.env.USER };
    return withRun(id, { command: 'approve', action: 'approve' }, async (s, wid) => {
      const { approveUpdate } = await import('../../shared/handlers');
      await s.client.workflow.getHandle(wid).executeUpdate(approveUpdate, { args: [payload] });
      process.stdout.write(`approved ${callId}${payload.args ? ' with corrected arguments' : ''}\n`);
      return 0;
    });
  },
);
