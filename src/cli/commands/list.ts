/**
 * `loom list [--status S] [--agent A] [--pattern P] [--queue Q] [--all] [--tree] [--limit N] [--json]`:
 * runs from Temporal visibility (search attributes AgentId, AgentPattern, AgentStatus, EscalationQueue).
 * Member runs (child workflows) are hidden unless --all; --tree shows each root's member runs
 * indented under it (members are `<parent>/<role>`), with their status and what each waits on.
 */
import { defineCommand, flagString } from '../args';
import { UsageError } from '../../operator/errors';
import { connect } from '../../operator/connect';
import { SEARCH_ATTRIBUTES } from '../../shared/contract';
import type { WorkflowExecutionInfo } from '@temporalio/client';

export function quote(v: string): string {
  return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export function listQuery(f: { status?: string; agent?: string; pattern?: string; queue?: string }): string {
  const parts: string[] = [];
  if (f.status) parts.push(`${SEARCH_ATTRIBUTES.status} = ${quote(f.status)}`);
  if (f.agent) parts.push(`${SEARCH_ATTRIBUTES.agentId} = ${quote(f.agent)}`);
  if (f.pattern) parts.push(`${SEARCH_ATTRIBUTES.pattern} = ${quote(f.pattern)}`);
  if (f.queue) parts.push(`${SEARCH_ATTRIBUTES.escalationQueue} = ${quote(f.queue)}`);
  return parts.join(' AND ');
}

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
    const query = listQuery({ status: flagString(args, 'status'), agent: flagString(args, 'agent'), pattern: flagString(args, 'pattern'), queue: flagString(args, 'queue') });
    const s = await connect();
    try {
      const rows: Record<string, unknown>[] = [];
      for await (const wf of s.client.workflow.list(query ? { query } : {})) {
        if (!args.flags.all && wf.parentExecution) continue;
        rows.push(row(wf));
        if (rows.length >= limit) break;
      }
      if (args.flags.tree === true) {
        for (const r of rows) {
          const members: Record<string, unknown>[] = [];
          for await (const m of s.client.workflow.list({ query: `WorkflowId STARTS_WITH ${quote(`${String(r.workflow_id)}/`)}` })) members.push(row(m));
          r.members = members.sort((a, b) => String(a.workflow_id).localeCompare(String(b.workflow_id)));
        }
      }
      if (args.flags.json === true) {
        process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
        return 0;
      }
      if (!rows.length) { process.stdout.write('no runs\n'); return 0; }
      const line = (r: Record<string, unknown>, name: string) =>
        `${name.padEnd(44)} ${String(r.type).padEnd(24)} ${String(r.temporal_status).padEnd(11)} ${r.agent_status ?? ''}${r.escalation_queue ? ` queue=${r.escalation_queue}` : ''}\n`;
      for (const r of rows) {
        process.stdout.write(line(r, String(r.workflow_id)));
        for (const m of (r.members ?? []) as Record<string, unknown>[]) {
          const rel = String(m.workflow_id).slice(String(r.workflow_id).length + 1).split('/');
          process.stdout.write(line(m, `${'  '.repeat(rel.length)}${rel[rel.length - 1]}`));
        }
      }
      return 0;
    } finally {
      await s.close();
    }
  },
);

function row(wf: WorkflowExecutionInfo): Record<string, unknown> {
  const sa = (wf.searchAttributes ?? {}) as Record<string, unknown[]>;
  return {
    workflow_id: wf.workflowId,
    type: wf.type,
    temporal_status: wf.status.name,
    agent_id: sa[SEARCH_ATTRIBUTES.agentId]?.[0] ?? null,
    pattern: sa[SEARCH_ATTRIBUTES.pattern]?.[0] ?? null,
    agent_status: sa[SEARCH_ATTRIBUTES.status]?.[0] ?? null,
    escalation_queue: sa[SEARCH_ATTRIBUTES.escalationQueue]?.[0] ?? null,
    started: wf.startTime?.toISOString(),
    closed: wf.closeTime?.toISOString() ?? null,
  };
}
