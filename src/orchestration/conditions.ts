/**
 * ConditionGroup evaluation (the Agent Format's "ConditionGroup"): `args_match` maps a path expression of
 * the execution context to a literal (deep equality) or an operator object such as
 * `{ gte: 0.8 }` / `{ in: ["zh","ja"] }`. Fields of one group are ANDed; an array of groups is
 * OR-of-ANDs. Pure.
 */
import type { Condition, ConditionGroup, JsonObject, JsonValue } from '../compiled/types';
import { ExecutionContext, resolvePath } from './paths';
import { jsonEqual } from '../shared/json';
import { CONDITION_OPERATORS, ConditionOperator } from '../shared/condition-operators';

/** An operator object is a non-empty plain object whose keys are all operator names. */
export function isOperatorObject(v: JsonValue): v is JsonObject {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => (CONDITION_OPERATORS as readonly string[]).includes(k));
}

function compare(a: JsonValue | undefined, b: JsonValue): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return undefined;
}

/** Apply one operator to an actual value (undefined = the path did not resolve). */
export function applyOperator(op: ConditionOperator, actual: JsonValue | undefined, expected: JsonValue): boolean {
  switch (op) {
    case 'eq':
      return jsonEqual(actual, expected);
    case 'ne':
      return !jsonEqual(actual, expected);
    case 'gt': { const c = compare(actual, expected); return c !== undefined && c > 0; }
    case 'gte': { const c = compare(actual, expected); return c !== undefined && c >= 0; }
    case 'lt': { const c = compare(actual, expected); return c !== undefined && c < 0; }
    case 'lte': { const c = compare(actual, expected); return c !== undefined && c <= 0; }
    case 'in':
      return Array.isArray(expected) && actual !== undefined && expected.some((e) => jsonEqual(actual, e));
    case 'not_in':
      return Array.isArray(expected) && !expected.some((e) => jsonEqual(actual, e));
    case 'contains':
      if (typeof actual === 'string') return typeof expected === 'string' && actual.includes(expected);
      if (Array.isArray(actual)) return actual.some((e) => jsonEqual(e, expected));
      if (actual && typeof actual === 'object' && typeof expected === 'string') return Object.prototype.hasOwnProperty.call(actual, expected);
      return false;
    case 'exists':
      return (actual !== undefined) === (expected !== false);
    case 'matches': {
      if (typeof actual !== 'string' || typeof expected !== 'string') return false;
      try {
        return new RegExp(expected).test(actual);
      } catch {
        return false;
      }
    }
  }
}

/** Validate a condition's shape; returns readable problems (empty = valid). */
export function checkCondition(cond: Condition): string[] {
  const groups = Array.isArray(cond) ? cond : [cond];
  const problems: string[] = [];
  if (Array.isArray(cond) && cond.length === 0) problems.push('an empty array of condition groups never matches');
  for (const g of groups) {
    if (!g || typeof g !== 'object' || !g.args_match || typeof g.args_match !== 'object') {
      problems.push('a condition group needs an args_match object');
      continue;
    }
    for (const [path, v] of Object.entries(g.args_match)) {
      if (v && typeof v === 'object' && !Array.isArray(v) && !isOperatorObject(v)) {
        const bad = Object.keys(v).filter((k) => !(CONDITION_OPERATORS as readonly string[]).includes(k));
        if (bad.length && Object.keys(v).some((k) => (CONDITION_OPERATORS as readonly string[]).includes(k))) {
          problems.push(`${path}: unknown operator(s) ${bad.join(', ')} (known: ${CONDITION_OPERATORS.join(', ')})`);
        }
      }
      if (isOperatorObject(v)) {
        if ('matches' in v && typeof v.matches === 'string') {
          try { new RegExp(v.matches); } catch (e) { problems.push(`${path}: matches is not a valid regular expression (${(e as Error).message})`); }
        }
        for (const op of ['in', 'not_in'] as const) {
          if (op in v && !Array.isArray(v[op])) problems.push(`${path}: '${op}' needs an array`);
        }
      }
    }
  }
  return problems;
}

/** One group: every field must match (AND). */
export function evaluateGroup(group: ConditionGroup, ctx: ExecutionContext): boolean {
  for (const [path, expected] of Object.entries(group.args_match ?? {})) {
    let actual: JsonValue | undefined;
    try {
      actual = resolvePath(ctx, path);
    } catch {
      return false;
    }
    if (isOperatorObject(expected)) {
      for (const [op, arg] of Object.entries(expected)) {
        if (!applyOperator(op as ConditionOperator, actual, arg)) return false;
      }
    } else if (!jsonEqual(actual, expected)) {
      return false;
    }
  }
  return true;
}

/** A single group is AND; an array of groups is OR-of-ANDs. */
export function evaluateCondition(cond: Condition | undefined, ctx: ExecutionContext): boolean {
  if (cond === undefined) return false;
  if (Array.isArray(cond)) return cond.some((g) => evaluateGroup(g, ctx));
  return evaluateGroup(cond, ctx);
}
