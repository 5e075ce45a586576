/**
 * PolicyStep path expressions (the Agent Format's "PolicyStep"): `<source>.<direction>.<field>…` where
 * `<source>` is `parent` or a step alias and `<direction>` is `input` or `output`, e.g.
 * `parent.input.query`, `researcher.output.findings`, nested `writer.output.meta.title`, and
 * `parent.input.items.[].value` (batch only). Pure: no I/O, no Temporal; used by workflows.
 */
import type { JsonObject, JsonValue } from '../compiled/types';
import { valueAt } from '../shared/json';
// jsonEqual moved to src/shared/json.ts (the compiler's checks use it too); still importable from here.
export { jsonEqual } from '../shared/json';

/** The execution context paths are resolved against: `{ parent: { input }, <alias>: { output } }`. */
export interface ExecutionContext {
  parent: { input: JsonValue };
  /** alias -> latest output of that step (for loops: the latest iteration that ran it). */
  outputs: Record<string, JsonValue>;
}

export interface ParsedPath {
  source: string;
  direction: 'input' | 'output';
  /** Field segments after the direction (may be empty: the whole input/output). */
  fields: string[];
  /** Index into `fields` of the `[]` iteration segment, when present. */
  iterateAt?: number;
}

export class PathError extends Error {}

/** Parse (and syntax-check) a path expression. Throws PathError with a readable reason. */
export function parsePath(expr: string): ParsedPath {
  if (typeof expr !== 'string' || !expr.trim()) throw new PathError('a path expression must be a non-empty string');
  const segs = expr.trim().split('.');
  if (segs.length < 2) throw new PathError(`'${expr}' is not <source>.<input|output>[.<field>…]`);
  const [source, direction, ...fields] = segs;
  if (!source) throw new PathError(`'${expr}' has an empty source`);
  if (direction !== 'input' && direction !== 'output') {
    throw new PathError(`'${expr}': the second segment must be 'input' or 'output', got '${direction}'`);
  }
  let iterateAt: number | undefined;
  fields.forEach((f, i) => {
    if (f === '') throw new PathError(`'${expr}' has an empty field segment`);
    if (f === '[]') {
      if (iterateAt !== undefined) throw new PathError(`'${expr}' uses '[]' more than once`);
      iterateAt = i;
    } else if (f.includes('[') || f.includes(']')) {
      throw new PathError(`'${expr}': '[]' must be a segment of its own (e.g. items.[].value)`);
    }
  });
  return { source, direction, fields, iterateAt };
}

/**
 * Check a path against the sources visible at a step: `parent.input.*` always, `<alias>.output.*`
 * for aliases declared before the step (or any step of the loop). Returns an error message or undefined.
 */
export function checkPath(expr: string, visibleAliases: string[], allowIteration: boolean): string | undefined {
  let p: ParsedPath;
  try {
    p = parsePath(expr);
  } catch (e) {
    return (e as Error).message;
  }
  if (p.iterateAt !== undefined && !allowIteration) return `'${expr}': the '.[]' operator is valid only in agf.batch input_mapping`;
  if (p.source === 'parent') {
    if (p.direction !== 'input') return `'${expr}': use parent.input.<field>`;
    return undefined;
  }
  if (p.direction !== 'output') return `'${expr}': a step is referenced by its output (<alias>.output.<field>)`;
  if (!visibleAliases.includes(p.source)) {
    return `'${expr}' references '${p.source}', which is not a step declared before this one (known: ${['parent', ...visibleAliases].join(', ')})`;
  }
  return undefined;
}

/** Walk `fields` into `value`; undefined when any segment is missing. Numeric segments index arrays. */
export function getIn(value: JsonValue | undefined, fields: string[]): JsonValue | undefined {
  return valueAt(value, fields) as JsonValue | undefined;
}

function rootOf(ctx: ExecutionContext, p: ParsedPath): JsonValue | undefined {
  if (p.source === 'parent') return p.direction === 'input' ? ctx.parent.input : undefined;
  if (p.direction !== 'output') return undefined;
  return Object.prototype.hasOwnProperty.call(ctx.outputs, p.source) ? ctx.outputs[p.source] : undefined;
}

/** Resolve a (non-iterating) path; undefined when it does not resolve. */
export function resolvePath(ctx: ExecutionContext, expr: string): JsonValue | undefined {
  const p = parsePath(expr);
  if (p.iterateAt !== undefined) throw new PathError(`'${expr}': the '.[]' operator is valid only in agf.batch input_mapping`);
  return getIn(rootOf(ctx, p), p.fields);
}

/**
 * Build a step's input from its input_mapping. Fields whose path does not resolve are omitted.
 * Without a mapping the step receives `fallback` (the parent input, or the previous step's output).
 */
export function resolveInputMapping(ctx: ExecutionContext, mapping: Record<string, string> | undefined, fallback: JsonValue): JsonValue {
  if (!mapping || Object.keys(mapping).length === 0) return fallback;
  const out: JsonObject = {};
  for (const [field, expr] of Object.entries(mapping)) {
    const v = resolvePath(ctx, expr);
    if (v !== undefined) out[field] = v;
  }
  return out;
}

/**
 * Batch: expand an input_mapping with `.[]` into one input per item. Every iterating field must
 * point at an array (all of the same length); non-iterating fields are copied into every item.
 */
export function expandBatchInputs(ctx: ExecutionContext, mapping: Record<string, string>): JsonObject[] {
  const iterating: { field: string; items: JsonValue[]; rest: string[] }[] = [];
  const fixed: JsonObject = {};
  for (const [field, expr] of Object.entries(mapping)) {
    const p = parsePath(expr);
    if (p.iterateAt === undefined) {
      const v = getIn(rootOf(ctx, p), p.fields);
      if (v !== undefined) fixed[field] = v;
      continue;
    }
    const arr = getIn(rootOf(ctx, p), p.fields.slice(0, p.iterateAt));
    if (!Array.isArray(arr)) {
      throw new PathError(`batch input_mapping '${field}: ${expr}': '${[p.source, p.direction, ...p.fields.slice(0, p.iterateAt)].join('.')}' is not an array`);
    }
    iterating.push({ field, items: arr, rest: p.fields.slice(p.iterateAt + 1) });
  }
  if (!iterating.length) throw new PathError('batch input_mapping needs at least one field with the .[] operator');
  const n = iterating[0].items.length;
  for (const it of iterating) {
    if (it.items.length !== n) throw new PathError(`batch input_mapping: '${it.field}' iterates ${it.items.length} items but '${iterating[0].field}' iterates ${n}`);
  }
  const out: JsonObject[] = [];
  for (let i = 0; i < n; i++) {
    const item: JsonObject = { ...fixed };
    for (const it of iterating) {
      const v = getIn(it.items[i], it.rest);
      if (v !== undefined) item[it.field] = v;
    }
    out.push(item);
  }
  return out;
}

/** Number of items a batch mapping iterates (without materialising the inputs). */
export function batchItemCount(ctx: ExecutionContext, mapping: Record<string, string>): number {
  for (const expr of Object.values(mapping)) {
    const p = parsePath(expr);
    if (p.iterateAt === undefined) continue;
    const arr = getIn(rootOf(ctx, p), p.fields.slice(0, p.iterateAt));
    if (!Array.isArray(arr)) throw new PathError(`batch path '${expr}' does not point at an array`);
    return arr.length;
  }
  throw new PathError('batch input_mapping needs at least one field with the .[] operator');
}
