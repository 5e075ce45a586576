/**
 * Structured routing's JSON handling (fuseraft's "structured"), pure: extract the JSON object of an
 * agent's reply (raw JSON, a ```json fence, or the first `{` … last `}` substring — whichever parses
 * first, in that order), read a dot-notation field, and evaluate one `Condition`.
 */
import { STRUCTURED_OPERATORS, StructuredCondition } from './types';
import { valueAt } from '../shared/json';

export type JsonObj = { [k: string]: unknown };

function asObject(s: string): JsonObj | undefined {
  try {
    const v: unknown = JSON.parse(s);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObj) : undefined;
  } catch {
    return undefined;
  }
}

/** The JSON object carried by `text`, or undefined when none of the three forms parses. */
export function extractJsonObject(text: string): JsonObj | undefined {
  const raw = asObject(text.trim());
  if (raw) return raw;
  const fence = /```json[^\S\n]*\n?([\s\S]*?)```/i.exec(text);
  if (fence) {
    const fenced = asObject(fence[1].trim());
    if (fenced) return fenced;
  }
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first >= 0 && last > first) return asObject(text.slice(first, last + 1));
  return undefined;
}

/** `Field: data.status` navigates `{"data": {"status": "ok"}}`; undefined when a step is missing. */
export function resolveField(obj: unknown, field: string): unknown {
  return valueAt(obj, field.split('.'), { arrays: false });
}

/** "The field's string value": strings as they are, numbers and booleans as their JSON text. */
function stringValue(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** The operator a condition uses: the first set, in fuseraft's order Is, IsNot, Contains, Exists. */
export function conditionOperator(c: StructuredCondition): (typeof STRUCTURED_OPERATORS)[number] | undefined {
  return STRUCTURED_OPERATORS.find((op) => c[op] !== undefined);
}

/** Evaluate a condition against a parsed object (case-insensitive string comparisons). */
export function evaluateCondition(c: StructuredCondition, obj: JsonObj): boolean {
  const v = resolveField(obj, c.Field);
  const sv = stringValue(v);
  switch (conditionOperator(c)) {
    case 'Is':
      return sv !== undefined && sv.toLowerCase() === String(c.Is).toLowerCase();
    case 'IsNot':
      return !(sv !== undefined && sv.toLowerCase() === String(c.IsNot).toLowerCase());
    case 'Contains':
      return sv !== undefined && sv.toLowerCase().includes(String(c.Contains).toLowerCase());
    case 'Exists':
      return (v !== undefined && v !== null) === (c.Exists === true);
    default:
      return false;
  }
}
