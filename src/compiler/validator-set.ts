/**
 * The front-matter validators the compiler runs, as one list: a validator per registry kind and per
 * orchestration pattern, plus the JSON Schema draft-07 meta-schema (is a user's schema a schema?),
 * with the Ajv options they are built with. The build-time code generator (validator-code.ts) writes
 * standalone code for this list, and the run-time side (validate.ts) uses that code only when its
 * fingerprint still matches this list: an edited schema or another Ajv falls back to compiling the
 * schemas at run time, slower but never stale.
 */
import { sha256 } from '../compiled/canonical';
import { KIND_SCHEMAS, PATTERN_SCHEMAS } from './schemas';

/** The Ajv options of the compiler's validators (on top of createAjv's): every error in full, schemas checked. */
export const VALIDATOR_OPTIONS = { validateSchema: true, verbose: true } as const;

/** Ajv's id of the draft-07 meta-schema (its default meta-schema). */
export const DRAFT_07_ID = 'http://json-schema.org/draft-07/schema';

/** The generated module's export that checks a schema against the draft-07 meta-schema. */
export const META_SCHEMA_EXPORT = 'json_schema_draft_07';

/** The name validatorFor() uses (`agent`, `pattern:graph`) → the generated module's export (`agent`, `pattern_graph`). */
export function exportName(kind: string): string {
  return kind.replace(/[^A-Za-z0-9_]/g, '_');
}

/** Every validator by the name validatorFor() uses, each schema without `$id`/`$schema` (as compiled). */
export function validatorSchemas(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const add = (kind: string, schema: Record<string, unknown>) => {
    const copy = { ...schema };
    delete copy.$id;
    delete copy.$schema;
    out[kind] = copy;
  };
  for (const [kind, schema] of Object.entries(KIND_SCHEMAS)) add(kind, schema);
  for (const [p, schema] of Object.entries(PATTERN_SCHEMAS)) add(`pattern:${p}`, schema);
  return out;
}

function versionOf(pkg: string): string {
  return (require(`${pkg}/package.json`) as { version: string }).version;
}

/**
 * What the generated code was built from: the schemas, the options and the versions of Ajv and
 * ajv-formats (the generated code requires their run-time helpers). A few milliseconds; no Ajv loaded.
 */
export function validatorFingerprint(): string {
  return sha256(JSON.stringify({ ajv: versionOf('ajv'), formats: versionOf('ajv-formats'), options: VALIDATOR_OPTIONS, schemas: validatorSchemas() }));
}
