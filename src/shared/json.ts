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
