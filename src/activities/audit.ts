/**
 * The audit log writer (the Agent Definition Specification's "audit_level"): `appendAudit` appends one hash-chained JSON line
 * per run to `<LOOM_HOME|.loom>/audit/<agent_id>.jsonl` (src/governance/audit.ts holds the entry
 * shape and the chain). `standard`: run start/end, outcome and the names of the tools called;
 * `full`: also the tool calls with arguments and results, the warnings (guardrail decisions,
 * fallbacks, refusals), the reason of a failure and the final output — read from the run's
 * conversation in the message store, so they never pass through workflow history. With
 * pii_redaction every text is redacted before it is written. A retried activity does not append
 * twice (the run's entry is looked up first); appends from concurrent runs are serialised by a
 * lock folder next to the log.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { JsonValue } from '../compiled/types';
import type { BlobRef } from '../shared/contract';
import { AuditEntry, AuditEvent, AuditOutcome, AuditRecord, eventsAtLevel, sealEntry } from '../governance/audit';
import { redactJson } from '../governance/pii';
import { BundleCache } from './agent-loader';
import { MessageStore } from './message-store';
import { openBlobStore } from './blob-store';
import { loomEnv } from '../platform/env';

export interface AppendAuditInput {
  bundle: BlobRef;
  agent_id: string;
  workflow_id: string;
  run_id: string;
  started_at: string;
  outcome: AuditOutcome;
  reason?: string;
  /** The run's conversation head (tools called, their arguments and results, the final answer). */
  head: BlobRef | null;
  warnings: string[];
  /** Approvals, guardrail decisions and escalations the workflow recorded (src/workflows/react/governance.ts noteAudit). */
  events?: AuditEvent[];
  /** Earlier events the workflow moved to the store in chunks (storeAuditEvents), oldest first; they come before `events`. */
  event_refs?: BlobRef[];
}

/** A chunk of a run's audit events in the store (src/workflows/react/governance.ts flushAudit). */
interface StoredAuditEvents { format: 'agentloom.audit-events/v1'; events: AuditEvent[] }

/** Where audit logs are written: `<LOOM_HOME|./.loom>/audit`. */
export function auditDir(): string {
  return path.join(path.resolve(loomEnv('LOOM_HOME') ?? path.join(process.cwd(), '.loom')), 'audit');
}

export function auditLogPath(agentId: string, dir = auditDir()): string {
  return path.join(dir, `${agentId}.jsonl`);
}

async function withLock<T>(file: string, fn: () => T): Promise<T> {
  const lock = `${file}.lock`;
  for (let i = 0; ; i++) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // A lock older than 30 s belongs to a worker that died mid-append.
      if (i > 0 && Date.now() - fs.statSync(lock).mtimeMs > 30_000) fs.rmdirSync(lock);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  try {
    return fn();
  } finally {
    fs.rmdirSync(lock);
  }
}

export function createAuditActivities(opts: { bundles?: BundleCache; messages?: MessageStore; dir?: () => string } = {}) {
  const blobs = opts.bundles?.blobs ?? opts.messages?.blobs ?? openBlobStore();
  const bundles = opts.bundles ?? new BundleCache(blobs);
  const messages = opts.messages ?? new MessageStore(blobs);
  return {
    /** Move a chunk of a run's audit events to the store, so the workflow carries a reference instead of the list. */
    async storeAuditEvents(inp: { events: AuditEvent[] }): Promise<BlobRef> {
      return blobs.putJson({ format: 'agentloom.audit-events/v1', events: inp.events } satisfies StoredAuditEvents);
    },
    async appendAudit(inp: AppendAuditInput): Promise<{ written: boolean; seq?: number; file?: string }> {
      const { agent } = await bundles.agent(inp.bundle, inp.agent_id);
      const level = agent.policies.audit_level;
      if (level === 'none') return { written: false };
      const stored: AuditEvent[] = [];
      for (const ref of inp.event_refs ?? []) {
        const chunk = await blobs.getJson<StoredAuditEvents>(ref);
        if (chunk?.format !== 'agentloom.audit-events/v1') throw new Error(`blob ${ref.hash} is not a chunk of audit events`);
        stored.push(...chunk.events);
      }
      const events = [...stored, ...(inp.events ?? [])];
      const conv = await messages.conversation(inp.head);
      const calls = conv.flatMap((m) => m.tool_calls ?? []);
      let rec: AuditRecord = {
        event: 'run',
        level,
        agent_id: agent.agent_id,
        agent_version: agent.version,
        workflow_id: inp.workflow_id,
        run_id: inp.run_id,
        started_at: inp.started_at,
        ended_at: new Date().toISOString(),
        outcome: inp.outcome,
        tools: [...new Set(calls.map((c) => c.name))],
        ...(events.length ? { events: eventsAtLevel(events, level) } : {}),
      };
      if (level === 'full') {
        const last = [...conv].reverse().find((m) => m.role === 'assistant' && !m.tool_calls?.length);
        rec = {
          ...rec,
          ...(inp.reason ? { reason: inp.reason } : {}),
          tool_calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: (c.arguments ?? {}) as JsonValue })),
          tool_results: conv.filter((m) => m.role === 'tool').map((m) => ({ ...(m.tool_call_id ? { call_id: m.tool_call_id } : {}), ...(m.name ? { name: m.name } : {}), content: m.content })),
          warnings: inp.warnings,
          ...(inp.outcome === 'success' && last ? { output: last.content } : {}),
        };
      }
      // The Agent Definition Specification: with pii_redaction, raw PII is never written to the audit log.
      if (agent.policies.pii_redaction) {
        const { reason, tool_calls, tool_results, warnings, output, events } = rec;
        const content = redactJson({ reason, tool_calls, tool_results, warnings, output, events } as unknown as JsonValue).value as unknown as Partial<AuditRecord>;
        for (const k of ['reason', 'tool_calls', 'tool_results', 'warnings', 'output', 'events'] as const) if (content[k] !== undefined) (rec as unknown as Record<string, unknown>)[k] = content[k];
      }
      const dir = (opts.dir ?? auditDir)();
      fs.mkdirSync(dir, { recursive: true });
      const file = auditLogPath(agent.agent_id, dir);
      return withLock(file, () => {
        const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()) : [];
        const entries = lines.map((l) => JSON.parse(l) as AuditEntry);
        const mine = entries.find((e) => e.workflow_id === rec.workflow_id && e.run_id === rec.run_id);
        if (mine) return { written: false, seq: mine.seq, file };
        const entry = sealEntry(entries[entries.length - 1], rec);
        fs.appendFileSync(file, `${JSON.stringify(entry)}\n`);
        return { written: true, seq: entry.seq, file };
      });
    },
  };
}
