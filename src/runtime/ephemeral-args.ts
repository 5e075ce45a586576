/**
 * An ephemeral run's tool call arguments stay out of its history: the model activity
 * stores each registry tool call's arguments (salted with the run, listed for deletion) and the call
 * the workflow sees carries a reference instead, `{ __agentloom_args_ref: BlobRef }`, beside the
 * reserved keys the workflow itself reads (`_dependsOn`, `_outputPath`, the invalid-arguments
 * marker without its raw text). Activities (argument check, guardrails, the tool) and the CLI
 * (`loom status`, `loom inbox`) resolve the reference; the workflow never does. Pure: no I/O.
 */
import type { JsonObject, JsonValue } from '../compiled/types';
import type { BlobRef } from '../shared/contract';
import { DEPENDS_ON_KEY, OUTPUT_PATH_KEY } from './execution-loop';

export const ARGS_REF_KEY = '__agentloom_args_ref';
/** As the openai provider marks arguments that were not a JSON object (src/activities/openai.ts). */
const INVALID_ARGUMENTS_KEY = '__agentloom_invalid_arguments';
const RESERVED = [DEPENDS_ON_KEY, OUTPUT_PATH_KEY];

/** The stored form of a call's arguments (the salt keeps another run's identical arguments a different blob). */
export interface StoredArgs {
  format: 'agentloom.args/v1';
  args: JsonObject;
  salt: string;
  /** The tool's sensitive_fields: `loom status`/`loom inbox` redact them when they show the arguments. */
  sensitive_fields?: string[];
}

/** The reference in `args`, when they are a stored-arguments reference. */
export function storedArgsRef(args: JsonValue | undefined): BlobRef | undefined {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return undefined;
  const r = (args as JsonObject)[ARGS_REF_KEY] as { hash?: unknown } | undefined;
  return r && typeof r === 'object' && typeof r.hash === 'string' ? { hash: r.hash } : undefined;
}

/**
 * Split a call's arguments into what is stored (everything but the reserved keys) and what the
 * workflow keeps beside the reference (the reserved keys; an invalid-arguments marker keeps only
 * that it was invalid, not the raw text nor the parser's message, which may quote it).
 */
export function splitArgs(args: JsonObject): { stored: JsonObject; kept: JsonObject } {
  const stored: JsonObject = { ...args };
  const kept: JsonObject = {};
  for (const k of RESERVED) {
    if (k in stored) {
      kept[k] = stored[k];
      delete stored[k];
    }
  }
  if (INVALID_ARGUMENTS_KEY in stored) kept[INVALID_ARGUMENTS_KEY] = { error: 'not valid JSON (the text is in the store)' };
  return { stored, kept };
}

/** The arguments the workflow sees: the reference and the kept keys. */
export function argsWithRef(ref: BlobRef, kept: JsonObject = {}): JsonObject {
  return { ...kept, [ARGS_REF_KEY]: { hash: ref.hash } };
}

/**
 * What an ephemeral run's workflow writes to State for a call's `_outputPath`: the
 * result's shape without its values — objects keep their keys, every other value is null. The
 * dependencies loop reads State only to know which paths are written, and a path below a non-object
 * value reads as unwritten either way, so scheduling is unchanged.
 */
export function stateShape(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stateShape(v)]));
}
