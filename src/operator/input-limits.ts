/**
 * What a run input must be for the engine to carry it, checked before anything starts (`loom run`,
 * `loom start`, `loom dispatch`, MCP's start_run): nesting at most MAX_INPUT_DEPTH levels deep
 * (measured without recursion, so a hostile input cannot overflow the stack that checks it), and a
 * size Temporal's payload limit allows. An agf.react input too large for history is handed to the
 * run by claim check (stored, the history holds its reference); any other input over the limit is
 * refused naming the limit and what to do instead. Pure: no I/O, no Temporal import.
 */
import type { CompiledAgent, JsonValue } from '../compiled/types';
import { memoryUse } from '../runtime/memory';

/** Deepest nesting of arrays/objects an input may have (a scalar is depth 0, `{"a":1}` depth 1). */
export const MAX_INPUT_DEPTH = 100;
/** Temporal's default payload limit (the server's `limit.blobSize.error`): a larger payload fails the call. */
export const TEMPORAL_PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024;
/**
 * The largest input carried in history. Half the payload limit: the workflow hands its input again
 * to activities and child runs beside other fields, and a codec adds its envelope.
 */
export const MAX_INLINE_INPUT_BYTES = TEMPORAL_PAYLOAD_LIMIT_BYTES / 2;

/** True when `v` nests deeper than `max`; an explicit stack, never recursion. */
export function nestsDeeperThan(v: unknown, max: number): boolean {
  const stack: Array<{ v: unknown; d: number }> = [{ v, d: 0 }];
  while (stack.length) {
    const { v: x, d } = stack.pop()!;
    if (x === null || typeof x !== 'object') continue;
    if (d + 1 > max) return true;
    for (const child of Array.isArray(x) ? x : Object.values(x as object)) {
      if (child !== null && typeof child === 'object') stack.push({ v: child, d: d + 1 });
    }
  }
  return false;
}

export function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MB` : `${(n / 1024).toFixed(1)} KB`;
}

/** Why `input` cannot be nested this way (undefined: fine). Call before anything serialises the input. */
export function depthRefusal(input: unknown): string | undefined {
  if (!nestsDeeperThan(input, MAX_INPUT_DEPTH)) return undefined;
  return `input nests deeper than ${MAX_INPUT_DEPTH} levels of arrays/objects, the most a run input may have: flatten it, or pass the data as a file (a field with widget: file)`;
}

/** Size of the input as the payload converter writes it (JSON, UTF-8). Only after depthRefusal passed. */
export function inputBytes(input: JsonValue): number {
  return Buffer.byteLength(JSON.stringify(input ?? null), 'utf8');
}

/**
 * Can the run take an input over MAX_INLINE_INPUT_BYTES by claim check? Only a root agf.react run
 * reads its input just once, as its first message (RunOptions.input_ref); memory (which searches
 * with the input) and an escalation agent (which is given the input) need the value itself.
 */
export function claimCheckable(root: CompiledAgent, workflowType: string): boolean {
  if (workflowType !== 'agfReactWorkflow') return false;
  const mem = memoryUse(root.memory);
  if (mem.reads || mem.writes) return false;
  return !root.orchestration.escalation.some((r) => r.target.type === 'agent');
}

/** The refusal of an input over MAX_INLINE_INPUT_BYTES that cannot be claim-checked. */
export function sizeRefusal(root: CompiledAgent, bytes: number): string {
  return `input is ${formatBytes(bytes)} as JSON, more than the ${formatBytes(MAX_INLINE_INPUT_BYTES)} a run input may carry (Temporal refuses payloads over ${formatBytes(TEMPORAL_PAYLOAD_LIMIT_BYTES)}; only an agf.react agent without memory or escalation agents takes a larger input by reference): pass large content as a file (a field with widget: file) instead of inline JSON (${root.agent_id})`;
}
