/**
 * `loom escalations [--queue Q] [--json]`: runs waiting on a human queue (escalation target
 * `human_queue`), through AgentloomClient.escalations (visibility: AgentStatus = 'waiting_for_human'
 * and EscalationQueue).
 */
import { defineCommand, flagString } from '../args';
import { openClient } from '../client-session';

export const run = defineCommand(
  'escalations',
  { usage: 'loom escalations [--queue Q] [--json]', options: { queue: { type: 'string', value: 'Q', help: 'only the runs waiting on human queue Q.' }, json: { type: 'boolean', help: 'print JSON instead of text.' } }, positionals: { min: 0, max: 0 } },
  async (args) => {
    const queue = flagString(args, 'queue');
    const loom = await openClient(args);
    try {
      const rows = await loom.escalations({ queue });
      if (args.flags.json === true) {
        process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
        return 0;
      }
      if (!rows.length) {
        process.stdout.write(`no runs waiting on ${queue ? `queue '${queue}'` : 'a human queue'}\n`);
        return 0;
      }
      for (const r of rows) {
        process.stdout.write(`${r.workflow_id}  queue=${r.queue}  agent=${r.agent_id}${r.since ? `  since ${r.since}` : ''}\n`);
        if (r.reason) process.stdout.write(`    ${r.reason}\n`);
      }
      process.stdout.write(`\nanswer with: loom respond ID --queue QUEUE --output JSON   (or --close [--reason TEXT])\n`);
      return 0;
    } finally {
      await loom.close();
    }
  },
);
