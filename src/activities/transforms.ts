/**
 * `output_from.custom_transform` (the Agent Format's "OutputFrom"): functions registered in the worker by
 * name (convention `<org>.<transform-name>`) and run as the `runTransform` activity, so a
 * transform may do I/O and is never replayed. The runtime passes all sub-agent outputs (keyed by
 * alias, with their declaration order) and uses the return value as the policy output.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { JsonValue } from '../compiled/types';

export interface TransformArgs {
  name: string;
  /** alias -> output. */
  outputs: Record<string, JsonValue>;
  /** Aliases in declaration order. */
  order: string[];
  /** The policy's own input. */
  input: JsonValue;
}

export type TransformFn = (outputs: Record<string, JsonValue>, meta: { order: string[]; input: JsonValue }) => JsonValue | Promise<JsonValue>;

const transforms = new Map<string, TransformFn>();

/** Register a transform under `name` (e.g. `myorg.summarize_outputs`). Re-registering replaces it. */
export function registerTransform(name: string, fn: TransformFn): void {
  if (!name || typeof fn !== 'function') throw new Error('registerTransform(name, fn) needs a name and a function');
  transforms.set(name, fn);
}

export function registeredTransforms(): string[] {
  return [...transforms.keys()].sort();
}

/** Built-in example transforms (always available). */
registerTransform('agentloom.concat_text', (outputs, { order }) =>
  order.filter((a) => a in outputs).map((a) => (typeof outputs[a] === 'string' ? (outputs[a] as string) : JSON.stringify(outputs[a]))).join('\n\n'),
);
registerTransform('agentloom.as_list', (outputs, { order }) => order.filter((a) => a in outputs).map((a) => ({ agent: a, output: outputs[a] })));

export function createTransformActivities(): { runTransform(args: TransformArgs): Promise<JsonValue> } {
  return {
    async runTransform(args: TransformArgs): Promise<JsonValue> {
      const fn = transforms.get(args.name);
      if (!fn) {
        throw ApplicationFailure.nonRetryable(
          `custom_transform '${args.name}' is not registered in this worker (registered: ${registeredTransforms().join(', ') || 'none'}); call registerTransform('${args.name}', fn) in the worker`,
          'UnknownTransform',
        );
      }
      const out = await fn(args.outputs, { order: args.order, input: args.input });
      return out === undefined ? null : out;
    },
  };
}
