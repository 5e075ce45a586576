/**
 * Handler-side payload checks (src/shared/payload-check.ts) in the form each handler kind needs.
 * An update validator refuses a payload that does not fit with an Error (Temporal rejects the
 * update with its message; validators do not run on replay). A signal cannot be refused: a payload
 * that does not fit becomes a run warning and is ignored, never an exception in workflow code.
 */
import { patched } from '@temporalio/workflow';
import type { z } from 'zod';
import { checkPayload, isUndecodable, UNDECODABLE } from '../../shared/payload-check';
import { PATCHES } from '../patches';


/** For an update validator: the checked payload, or an Error naming the update, the problem and the expected shape. */
export function validatedPayload<T>(schema: z.ZodType<T>, raw: unknown, expected: string, update: string): T {
  const c = checkPayload(schema, raw, expected);
  if (!c.ok) throw new Error(`${update}: ${c.problem}`);
  return c.value;
}

/**
 * For a signal handler: the checked payload, or undefined once `warn` has been told why it was
 * ignored. `legacyActs(raw)`: the handler before the check acted on `raw` without failing; a run
 * replayed from before patch `validated-signal-payloads` then gets it unchecked, as it did.
 */
export function signalPayload<T>(schema: z.ZodType<T>, raw: unknown, expected: string, signal: string, warn: (m: string) => void, legacyActs: (raw: unknown) => boolean): T | undefined {
  const c = checkPayload(schema, raw, expected);
  if (c.ok) return c.value;
  // Runs from before signal payloads were checked acted on some payloads the schemas now refuse (an
  // unknown field, `args` not an object, a blank reason…): their replay acts on them the old way.
  if (legacyActs(raw) && !patched(PATCHES.validatedSignalPayloads.id)) return raw as T;
  warn(`${signal} signal ignored: ${c.problem}`);
  return undefined;
}

/** A JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The approve/reject handlers before the check read `call_id` and acted when it was a string. */
export const hadCallId = (raw: unknown): boolean => isObject(raw) && typeof raw.call_id === 'string';

/**
 * A run's input the worker could not decode (the decoding guard's marker, src/codec/decode-guard.ts)
 * fails the workflow task, naming the encoding and why, as the codec's own error did before the
 * guard: the run waits for a worker that can read it (e.g. one given the missing codec key).
 */
export function refuseUndecodableInput(input: unknown): void {
  if (isUndecodable(input)) throw new Error(`the run's input could not be decoded by this worker (encoding '${input[UNDECODABLE].encoding}': ${input[UNDECODABLE].error})`);
}
