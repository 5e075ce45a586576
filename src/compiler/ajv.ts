/**
 * The one Ajv setup of the project (JSON Schema draft-07): every error reported, unknown keywords
 * tolerated (registry schemas carry `description`, `examples`, vendor keys), ajv-formats added.
 * Each caller keeps its own instance, so user schemas with the same `$id` never collide across them.
 */
import Ajv, { type Options } from 'ajv';
import addFormats from 'ajv-formats';

export function createAjv(extra: Options = {}): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, ...extra });
  addFormats(ajv);
  return ajv;
}
