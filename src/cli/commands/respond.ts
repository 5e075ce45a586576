/**
 * `loom respond ID --queue Q --output JSON|@file | --close [--reason TEXT]`: answer an escalation waiting on a human
 * queue (update `respondEscalation`; the run validates the queue and resumes).
 */
import * as fs from 'fs';
import { WorkflowUpdateFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { parseArgs, flagString } from '../args';
import { RespondArgs, UPDATES } from '../../shared/contract';
import { orchestrationSession } from './list';

const USAGE = 'loom respond ID --queue QUEUE (--output JSON|@file | --close [--reason TEXT])';

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv, ['close']);
  const id = args.positionals[0];
  const queue = flagString(args, 'queue');
  const rawOutput = flagString(args, 'output');
  const close = args.flags.close === true;
  const reason = flagString(args, 'reason');
  if (!id || !queue || (rawOutput === undefined) === !close) {
    process.stderr.write(`usage: ${USAGE}\n`);
    return 2;
  }
  let output: RespondArgs['output'];
  if (rawOutput !== undefined) {
    const text = rawOutput.startsWith('@') ? fs.readFileSync(rawOutput.slice(1), 'utf8') : rawOutput;
    try {
      output = JSON.parse(text);
    } catch (e) {
      process.stderr.write(`loom respond: --output is not valid JSON (${(e as Error).message})\n`);
      return 2;
    }
  }
  const payload: RespondArgs = { queue, ...(close ? { close: true, ...(reason ? { reason } : {}) } : { output }), by: process.env.USER };
  const s = await orchestrationSession();
  try {
    await s.client.workflow.getHandle(id).executeUpdate(UPDATES.respond, { args: [payload] });
    process.stdout.write(close ? `escalation on '${queue}' closed for ${id}\n` : `response delivered to ${id} on '${queue}'\n`);
    return 0;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) { process.stderr.write(`loom respond: no run with id ${id}\n`); return 1; }
    if (err instanceof WorkflowUpdateFailedError) {
      process.stderr.write(`loom respond: refused: ${(err.cause as Error | undefined)?.message ?? err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await s.close();
  }
}
