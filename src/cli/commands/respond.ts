/**
 * `loom respond ID --queue Q --output JSON|@file | --close [--reason TEXT]`: answer an escalation waiting on a human
 * queue (update `respondEscalation`; the run validates the queue and resumes).
 */
import * as fs from 'fs';
import { defineCommand, flagString, UsageError } from '../args';
import { withRun } from '../run-control';
import type { RespondArgs } from '../../shared/contract';

export const run = defineCommand(
  'respond',
  {
    usage: 'loom respond ID --queue QUEUE (--output JSON|@file | --close [--reason TEXT])',
    options: { queue: { type: 'string' }, output: { type: 'string' }, close: { type: 'boolean' }, reason: { type: 'string' } },
    positionals: { min: 1, max: 1, names: ['ID'] },
  },
  async (args) => {
    const id = args.positionals[0];
    const queue = flagString(args, 'queue');
    const rawOutput = flagString(args, 'output');
    const close = args.flags.close === true;
    const reason = flagString(args, 'reason');
    if (!queue) throw new UsageError('--queue is required');
    if ((rawOutput === undefined) === !close) throw new UsageError('give exactly one of --output JSON and --close');
    if (reason !== undefined && !close) throw new UsageError('--reason goes with --close');
    let output: RespondArgs['output'];
    if (rawOutput !== undefined) {
      let text = rawOutput;
      if (rawOutput.startsWith('@')) {
        try { text = fs.readFileSync(rawOutput.slice(1), 'utf8'); } catch (e) {
          throw new UsageError(`--output ${rawOutput}: cannot read ${rawOutput.slice(1)} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        }
      }
      try { output = JSON.parse(text); } catch (e) { throw new UsageError(`--output is not valid JSON (${(e as Error).message})`); }
    }
    const payload: RespondArgs = { queue, ...(close ? { close: true, ...(reason ? { reason } : {}) } : { output }), by: process.env.USER };
    return withRun(id, { command: 'respond', action: 'respond to' }, async (s, wid) => {
      const { respondEscalationUpdate } = await import('../../shared/handlers');
      await s.client.workflow.getHandle(wid).executeUpdate(respondEscalationUpdate, { args: [payload] });
      process.stdout.write(close ? `escalation on '${queue}' closed for ${wid}\n` : `response delivered to ${wid} on '${queue}'\n`);
      return 0;
    });
  },
);
