/**
 * `loom approve ID CALL_ID [--args JSON]`: approve a pending tool call or route, optionally with
 * corrected arguments; `--tool TOOL [--args JSON]` replaces the call with another tool of the agent
 * (the Execution Loop specification's "Correction"; refused by the run with the reason when TOOL or the arguments do not fit). ID may be the root of a tree: the call is found in its pending decisions and
 * answered in the member holding it (CALL_ID or PATH:CALL_ID, see ../decisions.ts).
 */
import { defineCommand, flagString } from '../args';
import { UsageError } from '../../operator/errors';
import { withRun, parseJsonFlag } from '../../operator/run-control';
import { callTarget, heldBy } from '../../operator/decisions';
import { ApproveArgsSchema, PAYLOAD_SHAPES, type ApproveArgs } from '../../shared/contract';
import { payloadToSend } from '../../operator/payloads';

export const run = defineCommand(
  'approve',
  { usage: 'loom approve ID CALL_ID [--args JSON] [--tool TOOL]', options: { args: { type: 'string', value: 'JSON', help: 'corrected arguments of the call, a JSON object that replaces the ones the model gave.' }, tool: { type: 'string', value: 'TOOL', help: 'replace the call with another of the agent\'s tools (with --args as its arguments).' } }, positionals: { min: 2, max: 2, names: ['ID', 'CALL_ID'] } },
  async (args) => {
    const [id, callId] = args.positionals;
    const corrected = parseJsonFlag(flagString(args, 'args'), 'args');
    const tool = flagString(args, 'tool');
    if (tool !== undefined && !tool.trim()) throw new UsageError(`--tool needs the id of one of the agent's tools, e.g. --tool echo --args '{"text":"hi"}'`);
    if (corrected !== undefined && (corrected === null || typeof corrected !== 'object' || Array.isArray(corrected))) {
      throw new UsageError(`--args must be a JSON object of the tool's arguments, e.g. --args '{"path":"a.md"}'`);
    }
    const fields = { ...(corrected ? { args: corrected } : {}), ...(tool ? { tool } : {}), by: process.env.USER };
    // The run checks the payload with the same schema: a misfit is said here, before anything is sent.
    payloadToSend(ApproveArgsSchema, { call_id: callId, ...fields }, PAYLOAD_SHAPES.approve, 'approveCall');
    return withRun(id, { command: 'approve', action: 'approve' }, async (s, wid) => {
      const { approveUpdate } = await import('../../shared/definitions');
      const t = await callTarget(s, wid, callId);
      const payload: ApproveArgs = payloadToSend(ApproveArgsSchema, { call_id: t.callId, ...fields }, PAYLOAD_SHAPES.approve, 'approveCall');
      await s.client.workflow.getHandle(t.workflowId).executeUpdate(approveUpdate, { args: [payload] });
      process.stdout.write(`approved ${t.callId}${heldBy(t, wid)}${tool ? ` replaced by ${tool}` : payload.args ? ' with corrected arguments' : ''}\n`);
      return 0;
    });
  },
);
