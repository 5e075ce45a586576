/**
 * `loom list [--status S] [--agent A] [--pattern P] [--queue Q] [--all] [--tree] [--limit N] [--json]`:
 * runs from Temporal visibility (search attributes AgentId, AgentPattern, AgentStatus, EscalationQueue).
 * Member runs (child workflows) are hidden unless --all; --tree shows each root's member runs
 * indented under it (members are `<parent>/<role>`), with their status and what each waits on.
 * Read by AgentloomClient.list.
 */
import { defineCommand, flagString } from '../args';
import { UsageError } from '../../operator/errors';
import { openClient } from '../client-session';
import type { RunSummary } from '../../client/agentloom-client';

export const run = defineCommand(
  'list',
  {
    usage: 'loom list [--status S] [--agent A] [--pattern P] [--queue Q] [--all] [--tree] [--limit N] [--json]',
    options: {
      status: { type: 'string', value: 'S', help: 'only runs in status S (e.g. running, completed, failed).' },
      agent: { type: 'string', value: 'A', help: 'only runs of agent A.' },
      pattern: { type: 'string', value: 'P', help: 'only runs of pattern P.' },
      queue: { type: 'string', value: 'Q', help: 'only runs waiting on human queue Q.' },
      all: { type: 'boolean', help: 'show member runs (child workflows) too.' },
      tree: { type: 'boolean', help: 'show each root\'s member runs indented under it.' },
      limit: { type: 'string', value: 'N', help: 'show at most N runs (default 50).' },
      json: { type: 'boolean', help: 'print JSON instead of text.' },
    },
    positionals: { min: 0, max: 0 },
  },
  async (args) => {
    const rawLimit = flagString(args, 'limit');
    const limit = Number(rawLimit ?? 50);
    if (!Number.isInteger(limit) || limit <= 0) throw new UsageError(`--limit must be a positive integer (got '${rawLimit}')`);
    if (args.flags.all === true && args.flags.tree === true) throw new UsageError('--all and --tree exclude each other: --tree already shows every member under its root');
    const loom = await openClient(args);
    try {
      const rows = await loom.list({ status: flagString(args, 'status'), agent: flagString(args, 'agent'), pattern: flagString(args, 'pattern'), queue: flagString(args, 'queue'), all: args.flags.all === true, tree: args.flags.tree === true, limit });
      if (args.flags.json === true) {
        process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
        return 0;
      }
      if (!rows.length) { process.stdout.write('no runs\n'); return 0; }
      const line = (r: RunSummary, name: string) =>
        `${name.padEnd(44)} ${String(r.type).padEnd(24)} ${String(r.temporal_status).padEnd(11)} ${r.agent_status ?? ''}${r.escalation_queue ? ` queue=${r.escalation_queue}` : ''}\n`;
      for (const r of rows) {
        process.stdout.write(line(r, String(r.workflow_id)));
        for (const m of r.members ?? []) {
          const rel = String(m.workflow_id).slice(String(r.workflow_id).length + 1).split('/');
          process.stdout.write(line(m, `${'  '.repeat(rel.length)}${rel[rel.length - 1]}`));
        }
      }
      return 0;
    } finally {
      await loom.close();
    }
  },
);
