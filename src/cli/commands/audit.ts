/**
 * `loom audit ID [--json]`: the audit log of an agent (ID = agent id) or of one run (ID = a
 * workflow id, looked up in every agent's log), each entry on one line, then the hash chain
 * verified over the whole log file (src/governance/audit.ts). Exit 1 when the chain is broken (an
 * entry changed, removed or reordered) or nothing is logged under ID. No server is needed: the
 * log is `<LOOM_HOME|./.loom>/audit/<agent_id>.jsonl`, written by the workers' appendAudit activity.
 */
import * as fs from 'fs';
import * as path from 'path';
import { defineCommand } from '../args';
import type { AuditEntry, ChainCheck } from '../../governance/audit';

/** The audit chain's functions (src/governance/audit.ts), loaded by the command's body only. */
type Chain = typeof import('../../governance/audit');

interface AuditLog {
  file: string;
  entries: AuditEntry[];
  chain: ChainCheck;
}

function readLog({ verifyChain }: Chain, file: string): AuditLog {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim());
  const entries: AuditEntry[] = [];
  for (const l of lines) {
    try {
      entries.push(JSON.parse(l) as AuditEntry);
    } catch {
      // reported by verifyChain
    }
  }
  return { file, entries, chain: verifyChain(lines) };
}

/** The logs that mention ID: the agent's own log, else every log holding an entry of that workflow id. */
export function findAuditLogs(chain: Chain, id: string, dir: string): { logs: AuditLog[]; run: boolean } {
  const own = path.join(dir, `${id}.jsonl`);
  if (fs.existsSync(own)) return { logs: [readLog(chain, own)], run: false };
  if (!fs.existsSync(dir)) return { logs: [], run: true };
  const logs = fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort().map((f) => readLog(chain, path.join(dir, f)));
  return { logs: logs.filter((l) => l.entries.some((e) => e.workflow_id === id)), run: true };
}

/** The run's line, then one indented line per approval, guardrail decision and escalation. */
function line({ describeEvent }: Chain, e: AuditEntry): string {
  const tools = e.tools.length ? ` tools: ${e.tools.join(', ')}` : '';
  const head = `#${e.seq} ${e.ended_at} ${e.workflow_id} ${e.outcome}${tools}${e.reason ? ` — ${e.reason}` : ''}`;
  return [head, ...(e.events ?? []).map((ev) => `    ${describeEvent(ev)}`)].join('\n');
}

export const run = defineCommand(
  'audit',
  { usage: 'loom audit AGENT_ID|WORKFLOW_ID [--json]', options: { json: { type: 'boolean', help: 'print JSON instead of text.' } }, positionals: { min: 1, max: 1, names: ['ID'] } },
  async (args) => {
    const id = args.positionals[0];
    const { auditDir } = await import('../../activities/audit');
    const chain = await import('../../governance/audit');
    const { logs, run: byRun } = findAuditLogs(chain, id, auditDir());
    if (!logs.length) {
      process.stderr.write(`loom audit: no audit entry for '${id}' in ${auditDir()} (agents write one per run when they declare policies.audit_level standard or full)\n`);
      return 1;
    }
    const broken = logs.filter((l) => !l.chain.ok);
    if (args.flags.json === true) {
      process.stdout.write(JSON.stringify(logs.map((l) => ({ ...l, entries: byRun ? l.entries.filter((e) => e.workflow_id === id) : l.entries }))) + '\n');
      return broken.length ? 1 : 0;
    }
    for (const l of logs) {
      for (const e of byRun ? l.entries.filter((x) => x.workflow_id === id) : l.entries) process.stdout.write(`${line(chain, e)}\n`);
      const c = l.chain;
      process.stdout.write(c.ok ? `chain verified: ${c.entries} entries in ${l.file}\n` : `chain BROKEN in ${l.file} at line ${c.line}: ${c.reason}\n`);
    }
    return broken.length ? 1 : 0;
  },
);
