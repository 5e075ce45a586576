/**
 * Sensitive tool fields (the Agent Definition Specification: `sensitive: true` in a tool's input schema; the compiler lists
 * their paths in CompiledTool.sensitive_fields). The one redaction every display uses: `loom
 * status`, pending-approval lists (`loom inbox`, pending_decisions), Current Details, activity
 * summaries and logs, and telemetry spans. Pure: no Temporal import; unit tested.
 */
import type { JsonObject, JsonValue } from '../compiled/types';

/** What replaces a sensitive value (kept lower-case, over the specification's `[REDACTED]`: the wire value since the inbox shipped). */
export const REDACTED = '[redacted]';

/** tool_id -> its sensitive field paths. */
export type SensitiveFields = Readonly<Record<string, readonly string[]>>;

/**
 * `args` with every `sensitive_fields` path replaced by "[redacted]". Paths are dotted, `[]` marks
 * array items (`cards[].number`), as the compiler lists them. Returns `args` itself when there is
 * nothing to redact; never mutates it.
 */
export function redactArgs(args: JsonObject, fields: readonly string[]): JsonObject {
  if (!fields.length) return args;
  let out: JsonValue = args;
  for (const f of fields) out = redactPath(out, f.split('.'));
  return out as JsonObject;
}

/** A call's arguments redacted with its tool's sensitive fields (unknown tool: unchanged). */
export function redactToolArgs(tool: string, args: JsonObject, sensitive: SensitiveFields): JsonObject {
  return redactArgs(args, sensitive[tool] ?? []);
}

/** The sensitive-field table of a compiled agent's tools (tools without sensitive fields left out). */
export function sensitiveFieldsOf(tools: readonly { tool_id: string; sensitive_fields?: readonly string[] }[]): SensitiveFields {
  return Object.fromEntries(tools.filter((t) => t.sensitive_fields?.length).map((t) => [t.tool_id, t.sensitive_fields ?? []]));
}

function redactPath(v: JsonValue, parts: string[]): JsonValue {
  if (!parts.length || v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  const [head, ...rest] = parts;
  const arrayItems = head.endsWith('[]');
  const key = arrayItems ? head.slice(0, -2) : head;
  if (!(key in v)) return v;
  const cur = v[key];
  let next: JsonValue;
  if (arrayItems && Array.isArray(cur)) next = rest.length ? cur.map((x) => redactPath(x, rest)) : cur.map(() => REDACTED);
  else next = rest.length ? redactPath(cur, rest) : REDACTED;
  return { ...v, [key]: next };
}
