/**
 * The Agent Definition Specification's artifacts, the pure part: which artifacts a finished run writes (`input.json`,
 * `output.json`, `intermediate.json` per save_input/save_output/save_intermediate), their content
 * (built from the stored conversation; with pii_redaction every artifact — input, output and each
 * tool call's arguments and result — goes through the audit log's PII engine and placeholders), and
 * how long each retention class keeps them. `ephemeral` writes nothing. No I/O, no Temporal import.
 */
import type { CompiledAgent } from '../compiled/types';
import type { Message } from './messages';
import type { ArtifactInfo } from '../store/types';
import type { JsonValue } from '../compiled/types';

export type RetentionClass = CompiledAgent['artifacts']['retention_class'];

/** Days each class keeps an artifact (the Agent Definition Specification: standard "30–90 days", extended "1–7 years", restricted "same as standard"). */
export const DEFAULT_RETENTION_DAYS = { standard: 90, extended: 2555 } as const;

export interface RetentionDays { standard: number; extended: number }

/** LOOM_ARTIFACT_STANDARD_DAYS / LOOM_ARTIFACT_EXTENDED_DAYS (the tenant's setting), else the defaults. */
export function retentionDaysFromEnv(env: NodeJS.ProcessEnv): RetentionDays {
  const read = (name: string, dflt: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return dflt;
    if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a whole number of days (1 or more), got '${raw}'`);
    return Number(raw);
  };
  return { standard: read('LOOM_ARTIFACT_STANDARD_DAYS', DEFAULT_RETENTION_DAYS.standard), extended: read('LOOM_ARTIFACT_EXTENDED_DAYS', DEFAULT_RETENTION_DAYS.extended) };
}

export function expiresAt(cls: Exclude<RetentionClass, 'ephemeral'>, now: Date, days: RetentionDays): Date {
  const d = cls === 'extended' ? days.extended : days.standard;
  return new Date(now.getTime() + d * 86_400_000);
}

/** True when a finished run of this agent writes any artifact (what the workflow checks before calling the activity). */
export function writesArtifacts(a: CompiledAgent['artifacts'] | undefined): boolean {
  return !!a && a.enabled && a.retention_class !== 'ephemeral' && (a.save_input || a.save_output || a.save_intermediate);
}

export interface PlannedArtifact { name: string; kind: ArtifactInfo['kind']; content: string }

/**
 * The artifacts of a run: the first user message, the final output, and every tool call with its
 * result, in order. With `redact` (the artifact activity passes the PII engine's redactJson when the
 * agent's policies.pii_redaction is on: every string, JSON text inside a tool result included, with
 * the audit log's `[EMAIL]`/`[PHONE]`/`[CARD_NUMBER]`… placeholders) each artifact is redacted as a
 * whole: the Agent Format scrubs PII from any artifact stored for the run, and tool results are kept
 * in the conversation as the tool returned them. The engine is passed in, not imported: workflow
 * code imports this module, and the engine (with its name tagger) stays out of the workflow sandbox.
 */
export function planArtifacts(a: CompiledAgent['artifacts'], conversation: readonly Message[], output: unknown, opts: { redact?: (v: JsonValue) => JsonValue } = {}): PlannedArtifact[] {
  if (!writesArtifacts(a)) return [];
  const out: PlannedArtifact[] = [];
  const json = (v: unknown) => JSON.stringify(opts.redact ? opts.redact(v as JsonValue) : v, null, 2);
  if (a.save_input) {
    const first = conversation.find((m) => m.role === 'user');
    out.push({ name: 'input.json', kind: 'input', content: json({ message: first?.content ?? null }) });
  }
  if (a.save_output) out.push({ name: 'output.json', kind: 'output', content: json({ output: output ?? null }) });
  if (a.save_intermediate) {
    const results = new Map(conversation.filter((m) => m.role === 'tool' && m.tool_call_id).map((m) => [m.tool_call_id!, m]));
    const calls = conversation.flatMap((m) => m.tool_calls ?? []).map((c) => {
      const r = results.get(c.id);
      return { id: c.id, tool: c.name, arguments: c.arguments, result: r?.content ?? null, is_error: r?.is_error === true };
    });
    out.push({ name: 'intermediate.json', kind: 'intermediate', content: json({ tool_calls: calls }) });
  }
  return out;
}

/**
 * `retention_class: ephemeral` runs: a root agf.react run of such an agent keeps its
 * content in the store only while it runs. The client stores the input under a run-scoped reference
 * and marks the run (`ephemeral-run`/<run>); every blob or record an activity of a marked run
 * creates is listed under `ephemeral-written`/<run>/…, and the run's end deletes them all. The final
 * output waits in `ephemeral-output`/<run> until `loom run`/`loom result` collects it, or the purge
 * sweeps it after the pickup window.
 */
export const EPHEMERAL_RUN_KIND = 'ephemeral-run';
export const EPHEMERAL_WRITTEN_KIND = 'ephemeral-written';
export const EPHEMERAL_OUTPUT_KIND = 'ephemeral-output';
/** Hours an uncollected ephemeral output is kept (LOOM_EPHEMERAL_PICKUP_HOURS). */
export const DEFAULT_EPHEMERAL_PICKUP_HOURS = 24;

/** An agent whose runs are ephemeral: its retention class, whether or not `artifacts.enabled`. */
export function isEphemeral(a: CompiledAgent['artifacts'] | undefined): boolean {
  return a?.retention_class === 'ephemeral';
}

/** The run's key in every ephemeral record kind: the workflow id, escaped so that no id is a prefix of another's listing. */
export function ephemeralRunKey(runId: string): string {
  return `${encodeURIComponent(runId)}/`;
}

/** What an ephemeral run created: a blob (by hash) or a record (kind and key). */
export type EphemeralWrite = { blob: string } | { record: { kind: string; key: string } };

/** The `ephemeral-written` key of one write of `runId`. */
export function ephemeralWrittenKey(runId: string, w: EphemeralWrite): string {
  return 'blob' in w ? `${ephemeralRunKey(runId)}b/${w.blob}` : `${ephemeralRunKey(runId)}r/${encodeURIComponent(w.record.kind)}/${w.record.key}`;
}

/** The write an `ephemeral-written` key names (undefined: not a key of `runId`). */
export function parseEphemeralWrittenKey(runId: string, key: string): EphemeralWrite | undefined {
  const p = ephemeralRunKey(runId);
  if (!key.startsWith(p)) return undefined;
  const rest = key.slice(p.length);
  if (rest.startsWith('b/')) return rest.length > 2 ? { blob: rest.slice(2) } : undefined;
  const m = /^r\/([^/]+)\/(.+)$/s.exec(rest);
  return m ? { record: { kind: decodeURIComponent(m[1]), key: m[2] } } : undefined;
}

/** The salt of a message chain or loose message written by `runId`: the same content in two runs makes two blobs. */
export function ephemeralSalt(runId: string): string {
  return `ephemeral:${runId}`;
}

/** LOOM_EPHEMERAL_PICKUP_HOURS, else 24. */
export function pickupHoursFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.LOOM_EPHEMERAL_PICKUP_HOURS?.trim();
  if (!raw) return DEFAULT_EPHEMERAL_PICKUP_HOURS;
  if (!/^\d+(\.\d+)?$/.test(raw) || Number(raw) <= 0) throw new Error(`LOOM_EPHEMERAL_PICKUP_HOURS must be a positive number of hours, got '${raw}'`);
  return Number(raw);
}

/** A kept output waiting for collection, as stored in `ephemeral-output`/<run>. */
export interface KeptOutput { agent_id: string; kept_at: string; output: unknown }

/** Has the pickup window of an output kept at `keptAt` passed? */
export function outputExpired(keptAt: string, now: Date, hours: number): boolean {
  const t = Date.parse(keptAt);
  return !Number.isFinite(t) || now.getTime() - t > hours * 3_600_000;
}
