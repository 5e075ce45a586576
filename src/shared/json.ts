/** JSON value helpers shared by the payload languages (conditions, edge expressions) and their checks. Pure. */
import type { JsonObject, JsonValue } from '../compiled/types';

/** Deep structural equality of JSON values (object key order ignored). */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a !== typeof b) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (typeof a === 'object') {
    if (Array.isArray(b) || typeof b !== 'object') return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b as JsonObject);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual((a as JsonObject)[k], (b as JsonObject)[k]));
  }
  return false;
}

/**
 * The one path walker of the payload languages: the value at `fields` under `value`, own properties
 * only, array items by decimal index; undefined when a step is missing. Used by execution-policy
 * input mappings and conditions (src/orchestration/paths.ts), `{{var.path}}` templates
 * (src/runtime/template.ts) and fuseraft's dot-notation fields (src/strategies/json.ts), which
 * never index arrays (`arrays: false`): fuseraft names object fields only.
 */
export function valueAt(value: unknown, fields: readonly string[], opts: { arrays?: boolean } = {}): unknown {
  let cur: unknown = value;
  for (const f of fields) {
    if (cur === null || cur === undefined || typeof cur !== 'object') return undefined;
    if (Array.isArray(cur)) {
      if (opts.arrays === false || !/^\d+$/.test(f)) return undefined;
      cur = cur[Number(f)];
    } else {
      cur = Object.prototype.hasOwnProperty.call(cur, f) ? (cur as Record<string, unknown>)[f] : undefined;
    }
  }
  return cur;
}
