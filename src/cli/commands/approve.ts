/**
 * `loom approve ID CALL_ID [--args JSON]`: approve a pending tool call or route, optionally with
 * corrected arguments; `--tool TOOL [--args JSON]` replaces the call with another tool of the agent
 * (the Execution Loop specification's "Correction"; refused by the run with the reason when TOOL or the arguments do not fit). ID may be the root of a tree: the call is found in its pending decisions and
 * answered in the member holding it (CALL_ID or PATH:CALL_ID). Sent by AgentloomClient.approve.
 */
import { defineCommand, flagString } from '../args';
import { UsageError } from '../../operator/errors';
import { withClient } from '../client-session';

export const run = defineCommand(
  'approve',
  { usage: 'loom approve ID CALL_ID [--args JSON] [--tool TOOL]', options: { args: { type: 'string', value: 'JSON', help: 'corrected arguments of the call, a JSON object that replaces the ones the model gave.' }, tool: { type: 'string', value: 'TOOL', help: 'replace the call with another of the agent\'s tools (with --args as its arguments).' } }, positionals: { min: 2, max: 2, names: ['ID', 'CALL_ID'] } },
  async (args) => {
    const [id, callId] = args.positionals;
    const { parseJsonFlag } = await import('../../operator/run-control');
    const corrected = parseJsonFlag(flagString(args, 'args'), 'args');
    const tool = flagString(args, 'tool');
    if (tool !== undefined && !tool.trim()) throw new UsageError(`--tool needs the id of one of the agent's tools, e.g. --tool echo --args '{"text":"hi"}'`);
    if (corrected !== undefined && (corrected === null || typeof corrected !== 'object' || Array.isArray(corrected))) {
      throw new UsageError(`--args must be a JSON object of the tool's arguments, e.g. --args '{"path":"a.md"}'`);
    }
    return withClient(args, id, { command: 'approve', action: 'approve' }, async (loom) => {
      // The client checks the payload with the run's schema before anything is sent (a UsageError, exit 2).
      const t = await loom.approve(id, callId, { ...(corrected ? { args: corrected } : {}), ...(tool ? { tool } : {}) });
      const { heldBy } = await import('../../operator/decisions');
      process.stdout.write(`approved ${t.callId}${heldBy(t, id)}${tool ? ` replaced by ${tool}` : corrected ? ' with corrected arguments' : ''}\n`);
      return 0;
    });
  },
);
