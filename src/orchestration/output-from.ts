/**
 * `output_from` (the Agent Format's "OutputFrom"): string shorthand or object form (exactly one of
 * `agent` / `strategy` / `custom_transform`). A string is a strategy keyword first (`last`,
 * `merge`, `first`), otherwise an alias. `merge` is an object keyed by alias in DECLARATION order,
 * never completion order. Pure.
 */
import type { JsonObject, JsonValue, OutputFrom } from '../compiled/types';

export const OUTPUT_KEYWORDS = ['last', 'merge', 'first'] as const;
export type OutputStrategy = (typeof OUTPUT_KEYWORDS)[number];

export type OutputSelection =
  | { kind: 'strategy'; strategy: OutputStrategy }
  | { kind: 'agent'; alias: string }
  | { kind: 'transform'; name: string };

/** Normalise output_from (string or object) to a selection; `dflt` when absent. */
export function parseOutputFrom(of: OutputFrom | undefined, dflt: OutputStrategy): OutputSelection {
  if (of === undefined || of === null) return { kind: 'strategy', strategy: dflt };
  if (typeof of === 'string') {
    if ((OUTPUT_KEYWORDS as readonly string[]).includes(of)) return { kind: 'strategy', strategy: of as OutputStrategy };
    return { kind: 'agent', alias: of };
  }
  const set = (['agent', 'strategy', 'custom_transform'] as const).filter((k) => of[k] !== undefined);
  if (set.length !== 1) {
    throw new Error(`output_from object form needs exactly one of agent, strategy, custom_transform (got ${set.length ? set.join(', ') : 'none'})`);
  }
  if (of.agent !== undefined) return { kind: 'agent', alias: of.agent };
  if (of.custom_transform !== undefined) return { kind: 'transform', name: of.custom_transform };
  if (!(OUTPUT_KEYWORDS as readonly string[]).includes(of.strategy as string)) throw new Error(`output_from.strategy must be one of last, merge, first (got '${of.strategy}')`);
  return { kind: 'strategy', strategy: of.strategy as OutputStrategy };
}

/** Problems with an output_from against the declared aliases (empty = valid). */
export function checkOutputFrom(of: OutputFrom | undefined, aliases: string[]): string[] {
  let sel: OutputSelection;
  try {
    sel = parseOutputFrom(of, 'last');
  } catch (e) {
    return [(e as Error).message];
  }
  if (sel.kind === 'agent' && !aliases.includes(sel.alias)) return [`output_from '${sel.alias}' is neither last/merge/first nor a declared alias (${aliases.join(', ')})`];
  return [];
}

/** Object keyed by alias in declaration order; aliases without an output are left out. */
export function mergeOutputs(declared: string[], outputs: Record<string, JsonValue>): JsonObject {
  const out: JsonObject = {};
  for (const alias of declared) {
    if (Object.prototype.hasOwnProperty.call(outputs, alias) && !(alias in out)) out[alias] = outputs[alias];
  }
  return out;
}

/**
 * Resolve a built-in selection. `completionOrder` lists aliases in the order they completed
 * (for sequential steps it equals declaration order). Transforms are resolved by the caller (an activity).
 */
export function selectOutput(
  sel: Exclude<OutputSelection, { kind: 'transform' }>,
  declared: string[],
  outputs: Record<string, JsonValue>,
  completionOrder: string[],
): JsonValue {
  if (sel.kind === 'agent') {
    if (!Object.prototype.hasOwnProperty.call(outputs, sel.alias)) {
      throw new Error(`output_from '${sel.alias}': that agent produced no output in this run`);
    }
    return outputs[sel.alias];
  }
  switch (sel.strategy) {
    case 'merge':
      return mergeOutputs(declared, outputs);
    case 'first': {
      const a = completionOrder[0];
      return a === undefined ? null : outputs[a];
    }
    case 'last': {
      const a = completionOrder[completionOrder.length - 1];
      return a === undefined ? null : outputs[a];
    }
  }
}
