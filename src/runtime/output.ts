/**
 * Output checks: parse a final reply for `interface.output.schema` and report a readable error.
 * The validator itself (ajv) is injected by the activity; this module stays pure.
 */
import type { JsonSchema, JsonValue } from '../compiled/types';

export type OutputCheck = { ok: true; value: JsonValue } | { ok: false; error: string };

/** True when the schema asks for plain text (or nothing at all). */
export function wantsText(schema: JsonSchema | undefined): boolean {
  if (!schema || Object.keys(schema).length === 0) return true;
  return schema.type === 'string';
}

/** Strip a ```json fence the model may wrap its answer in. */
export function stripFence(text: string): string {
  const m = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return m ? m[1] : text;
}

export function checkOutput(
  schema: JsonSchema | undefined,
  text: string,
  validate: (schema: JsonSchema, value: unknown) => string | undefined,
): OutputCheck {
  if (!schema || Object.keys(schema).length === 0) return { ok: true, value: text };
  let value: JsonValue;
  if (wantsText(schema)) value = text;
  else {
    try {
      value = JSON.parse(stripFence(text)) as JsonValue;
    } catch (e) {
      return { ok: false, error: `the reply is not valid JSON (${(e as Error).message}); the output must be JSON matching interface.output.schema` };
    }
  }
  const err = validate(schema, value);
  return err ? { ok: false, error: `the reply does not match interface.output.schema: ${err}` } : { ok: true, value };
}

/** The correction message sent to the model after a failing reply (one correction turn). */
export function correctionMessage(error: string, schema: JsonSchema | undefined): string {
  return `Your previous reply was not accepted: ${error}. Reply again with only the final answer as JSON matching this schema: ${JSON.stringify(schema ?? {})}`;
}
