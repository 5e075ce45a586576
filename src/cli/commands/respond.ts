/**
 * `loom respond ID [REF] [--queue Q] (--output JSON|@file | --close [--reason TEXT])`: answer an
 * escalation waiting on a human queue anywhere in ID's tree (update `respondEscalation`, sent to the
 * run that waits; it validates the queue and resumes). REF is what `loom inbox` prints (QUEUE or
 * PATH:QUEUE); `--queue Q` alone names the one run of the tree waiting on Q (see ../decisions.ts).
 */
import * as fs from 'fs';
import { defineCommand, flagString } from '../args';
import { UsageError } from '../../operator/errors';
import { withRun } from '../../operator/run-control';
import { escalationTarget, heldBy, RefusedError } from '../../operator/decisions';
import { PAYLOAD_SHAPES, RespondArgsSchema, type RespondArgs } from '../../shared/contract';
import { payloadToSend } from '../../operator/payloads';

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
    const answer = { ...(close ? { close: true, ...(reason ? { reason } : {}) } : { output }), by: process.env.USER };
    // The run checks the payload with the same schema: a misfit is said here, before anything is sent.
    payloadToSend(RespondArgsSchema, { queue: queue ?? ref ?? '', ...answer }, PAYLOAD_SHAPES.respond, 'respondEscalation');
    return withRun(id, { command: 'respond', action: 'respond to' }, async (s, wid) => {
      const { respondEscalationUpdate } = await import('../../shared/definitions');
      // REF (or the queue) names the run of the tree that waits; --queue with a REF must be its queue.
      const t = await escalationTarget(s, wid, ref ?? queue!);
      if (ref && queue && t.queue !== queue) throw new RefusedError(`${ref} waits on queue '${t.queue}', not '${queue}'`);
      const payload: RespondArgs = payloadToSend(RespondArgsSchema, { queue: t.queue, ...answer }, PAYLOAD_SHAPES.respond, 'respondEscalation');
      await s.client.workflow.getHandle(t.workflowId).executeUpdate(respondEscalationUpdate, { args: [payload] });
      process.stdout.write(close ? `escalation on '${t.queue}' closed for ${wid}${heldBy(t, wid)}\n` : `response delivered to ${wid}${heldBy(t, wid)} on '${t.queue}'\n`);
      return 0;
    });
  },
);
