/**
 * `loom escalations [--queue Q] [--json]`: runs waiting on a human queue (escalation target
 * `human_queue`), found through visibility: AgentStatus = 'waiting_for_human' (and EscalationQueue).
 */
import { defineCommand, flagString } from '../args';
import type { RunStatus } from '../../shared/contract';

export const run = defineCommand(
  'escalations',
  { usage: 'loom escalations [--queue Q] [--json]', options: { queue: { type: 'string', value: 'Q', help: 'only the runs waiting on human queue Q.' }, json: { type: 'boolean', help: 'print JSON instead of text.' } }, positionals: { min: 0, max: 0 } },
  async (args) => {
    const queue = flagString(args, 'queue');
    const { SEARCH_ATTRIBUTES } = await import('../../shared/contract');
    const { quote } = await import('../../client/agentloom-client');
    const parts = [`${SEARCH_ATTRIBUTES.status} = 'waiting_for_human'`, `ExecutionStatus = 'Running'`];
    if (queue) parts.push(`${SEARCH_ATTRIBUTES.escalationQueue} = ${quote(queue)}`);
    const query = parts.join(' AND ');
    const { statusQuery } = await import('../../shared/definitions');
    const { connect } = await import('../../operator/connect');
    const s = await connect();
    try {
      const rows: { workflow_id: string; type: string; queue: string; reason?: string; since?: string; agent_id?: string }[] = [];
      for await (const wf of s.client.workflow.list({ query })) {
        const sa = (wf.searchAttributes ?? {}) as Record<string, unknown[]>;
        let status: RunStatus | undefined;
        try { status = await s.client.workflow.getHandle(wf.workflowId, wf.runId).query(statusQuery); } catch { status = undefined; }
        rows.push({
          workflow_id: wf.workflowId,
          type: wf.type,
          queue: status?.escalation?.queue ?? String(sa[SEARCH_ATTRIBUTES.escalationQueue]?.[0] ?? ''),
          reason: status?.escalation?.reason,
          since: status?.escalation?.since,
          agent_id: String(sa[SEARCH_ATTRIBUTES.agentId]?.[0] ?? status?.agent_id ?? ''),
        });
      }
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
      await s.close();
    }
  },
);
