/** `loom status ID [--json]`: the run's state from the `status` query (and its Temporal close status), through AgentloomClient.statusDetail. */
import { defineCommand } from '../args';
import { withClient } from '../client-session';

export const run = defineCommand(
  'status',
  { usage: 'loom status ID [--json]', options: { json: { type: 'boolean', help: 'print JSON instead of text.' } }, positionals: { min: 1, max: 1, names: ['ID'] } },
  async (args) => {
    const id = args.positionals[0];
    return withClient(args, id, { command: 'status' }, async (loom) => {
      const { report, status, queryError, waiting } = await loom.statusDetail(id);
      if (args.flags.json === true) { process.stdout.write(JSON.stringify(report, null, 2) + '\n'); return 0; }
      const { decisionRef, describeDecision, waited } = await import('../../runtime/decisions');
      const { strategyStatusLines } = await import('../../strategies/status');
      const lines = [`${id}  ${report.type}  ${report.temporal_status}`];
      if (status) {
        lines.push(`state: ${status.state}  pattern: ${status.pattern}  step ${status.step}  turn ${status.turn}`);
        lines.push(`tool calls: ${status.tool_calls_made}  tokens: ${status.token_usage?.total_tokens ?? 0}`);
        for (const p of status.pending_approvals ?? []) lines.push(`pending approval ${p.call_id}: ${p.tool} ${JSON.stringify(p.arguments)} (${p.reason})`);
        // Decisions waiting in members below this run (its own are the lines above); answer them with `loom approve ID REF`.
        const below = (status.pending_decisions ?? []).filter((d) => d.path.length > 0);
        if (below.length) lines.push(`pending in members (${below.length}):`);
        for (const d of below) lines.push(`  ${decisionRef(d)}  waited ${waited(d.requested_at, Date.now())}  ${describeDecision(d)}`);
        for (const w of status.waiting_for ?? []) lines.push(w);
        if (status.escalation) lines.push(`waiting on human queue '${status.escalation.queue}': ${status.escalation.reason}`);
        for (const w of status.warnings ?? []) lines.push(`warning: ${w}`);
        // Strategies runs: strategy, phase, round and participants in words (src/strategies/status.ts), then the raw progress.
        lines.push(...strategyStatusLines(status.progress));
        if (status.progress) lines.push(`progress: ${JSON.stringify(status.progress)}`);
        if (status.error) lines.push(`error: ${status.error}`);
      } else if (queryError) lines.push(`(no run status yet: ${queryError})`);
      if (!status) lines.push(...waiting);
      process.stdout.write(lines.join('\n') + '\n');
      return 0;
    });
  },
);
