/**
 * `loom respond ID [REF] [--queue Q] (--output JSON|@file | --close [--reason TEXT])`: answer an
 * escalation waiting on a human queue anywhere in ID's tree (update `respondEscalation`, sent to the
 * run that waits; it validates the queue and resumes). REF is what `loom inbox` prints (QUEUE or
 * PATH:QUEUE); `--queue Q` alone names the one run of the tree waiting on Q. Sent by AgentloomClient.respond.
 */
import * as fs from 'fs';
import { defineCommand, flagString } from '../args';
import { UsageError } from '../../operator/errors';
import { withClient } from '../client-session';

export const run = defineCommand(
  'respond',
  {
    usage: 'loom respond ID [REF] [--queue QUEUE] (--output JSON|@file | --close [--reason TEXT])',
    options: { queue: { type: 'string', value: 'QUEUE', help: 'the human queue of the escalation answered.' }, output: { type: 'string', value: 'JSON|@FILE', help: 'the answer, inline JSON or @file.json.' }, close: { type: 'boolean', help: 'close the escalation without an answer.' }, reason: { type: 'string', value: 'TEXT', help: 'with --close: why it is closed.' } },
    positionals: { min: 1, max: 2, names: ['ID', 'REF'] },
  },
  async (args) => {
    const [id, ref] = args.positionals;
    const queue = flagString(args, 'queue');
    const rawOutput = flagString(args, 'output');
    const close = args.flags.close === true;
    const reason = flagString(args, 'reason');
    if (!queue && !ref) throw new UsageError('--queue is required (or name the escalation as REF: QUEUE or PATH:QUEUE, as loom inbox prints it)');
    if ((rawOutput === undefined) === !close) throw new UsageError('give exactly one of --output JSON and --close');
    if (reason !== undefined && !close) throw new UsageError('--reason goes with --close');
    let output: unknown;
    if (rawOutput !== undefined) {
      let text = rawOutput;
      if (rawOutput.startsWith('@')) {
        try { text = fs.readFileSync(rawOutput.slice(1), 'utf8'); } catch (e) {
          throw new UsageError(`--output ${rawOutput}: cannot read ${rawOutput.slice(1)} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        }
      }
      try { output = JSON.parse(text); } catch (e) { throw new UsageError(`--output is not valid JSON (${(e as Error).message})`); }
    }
    const answer = close ? { close: true as const, ...(reason ? { reason } : {}) } : { output };
    return withClient(args, id, { command: 'respond', action: 'respond to' }, async (loom) => {
      // REF (or the queue) names the run of the tree that waits; --queue with a REF must be its queue.
      const t = await loom.respond(id, ref ?? queue!, answer, ref && queue ? { queue } : {});
      const { heldBy } = await import('../../operator/decisions');
      process.stdout.write(close ? `escalation on '${t.queue}' closed for ${id}${heldBy(t, id)}\n` : `response delivered to ${id}${heldBy(t, id)} on '${t.queue}'\n`);
      return 0;
    });
  },
);
