/**
 * The front-matter validators and ajv-error → Diagnostic mapping. The validators are Ajv's standalone
 * code generated at build time (validators.generated.ts, from validator-set.ts), so a command that
 * validates definitions does not load Ajv nor compile the schemas at start; when the generated code
 * no longer matches the schemas or the installed Ajv (its fingerprint differs), each validator is
 * compiled at run time as before, once per process.
 */
import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Diagnostic } from '../compiled/types';
import { diag, fieldPath, posOf, type PathPart, type SourceFile } from './source';
import { editDistance } from '../shared/edit-distance';
import { META_SCHEMA_EXPORT, VALIDATOR_OPTIONS, exportName, validatorFingerprint, validatorSchemas } from './validator-set';

let ajv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();

/** The compiler's Ajv instance (loaded on first use: the generated validators need none). */
export function getAjv(): Ajv {
  if (!ajv) {
    const { createAjv } = require('./ajv') as typeof import('./ajv');
    ajv = createAjv({ ...VALIDATOR_OPTIONS });
  }
  return ajv;
}

type GeneratedValidators = Record<string, ValidateFunction | undefined>;
/** The generated module when it matches (loaded on first use), null when it does not; undefined until asked. */
let generated: GeneratedValidators | null | undefined;
let schemas: Record<string, Record<string, unknown>> | undefined;

function generatedValidators(): GeneratedValidators | null {
  if (generated === undefined) {
    const mod = require('./validators.generated') as { FINGERPRINT?: string };
    generated = mod.FINGERPRINT === validatorFingerprint() ? (mod as unknown as GeneratedValidators) : null;
  }
  return generated;
}

/**
 * Where the validators come from: `generated` (the build's standalone code, when it matches) or
 * `compiled` (Ajv at run time). Setting `compiled` is for tests that compare the two.
 */
export function validatorSource(use?: 'compiled'): 'generated' | 'compiled' {
  if (use === 'compiled') {
    generated = null;
    validators.clear();
    schemaMemo.clear();
  }
  return generatedValidators() ? 'generated' : 'compiled';
}

export function validatorFor(kind: string): ValidateFunction {
  let v = validators.get(kind);
  if (!v) {
    v = generatedValidators()?.[exportName(kind)];
    if (!v) {
      schemas ??= validatorSchemas();
      const schema = schemas[kind];
      if (!schema) throw new Error(`no front-matter validator for '${kind}'`);
      v = getAjv().compile(schema);
    }
    validators.set(kind, v);
  }
  return v;
}

/**
 * Prepare every front-matter validator now: a long-lived process (a worker, `loom dev`, the
 * benchmark) pays the first-use cost up front (loading the generated code, or compiling the schemas,
 * ≈0.3 s for the agent schema, when it is stale) instead of on its first file.
 */
export function warmUpValidators(): void {
  for (const kind of Object.keys(validatorSchemas())) validatorFor(kind);
}

/** True when `schema` is a valid JSON Schema (draft-07 meta-schema). */
const schemaMemo = new Map<string, { ok: boolean; message?: string }>();
export function isValidJsonSchema(schema: unknown): { ok: boolean; message?: string } {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return { ok: false, message: 'schema must be a mapping' };
  const key = JSON.stringify(schema);
  let r = schemaMemo.get(key);
  if (!r) {
    r = checkSchema(schema);
    if (schemaMemo.size > 5000) schemaMemo.clear();
    schemaMemo.set(key, r);
  }
  return r;
}
function checkSchema(schema: object): { ok: boolean; message?: string } {
  // A schema naming its own meta-schema (`$schema`) is Ajv's to resolve (or refuse); the rest is draft-07.
  const meta = '$schema' in schema ? undefined : generatedValidators()?.[META_SCHEMA_EXPORT];
  if (meta) return meta(schema) ? { ok: true } : { ok: false, message: errorsText(meta.errors) };
  try {
    const a = getAjv();
    const ok = a.validateSchema(schema) as boolean;
    if (!ok) return { ok: false, message: a.errorsText(a.errors, { dataVar: 'schema' }) };
    return { ok: true };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}
/** Ajv's errorsText with dataVar `schema`, for the generated meta-schema validator (no Ajv instance). */
function errorsText(errors: ErrorObject[] | null | undefined): string {
  if (!errors?.length) return 'No errors';
  return errors.map((e) => `schema${e.instancePath} ${e.message}`).join(', ');
}

/** Schema errors per call described in full (suggestions, allowed fields); later ones briefly. */
const DETAILED_ERRORS = 200;

export type CodeMapper = (path: PathPart[], keyword: string, err: ErrorObject) => string;

function splitPointer(p: string): PathPart[] {
  if (!p) return [];
  return p.slice(1).split('/').map((s) => {
    const d = s.replace(/~1/g, '/').replace(/~0/g, '~');
    return /^\d+$/.test(d) ? Number(d) : d;
  });
}

/** Readable formats for the schemas' `pattern`s (never print a raw regular expression). */
const PATTERN_HINTS: Record<string, string> = {
  '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?$':
    'not a semantic version; write a semantic version such as `1.2.0` (MAJOR.MINOR.PATCH, optionally a pre-release like `1.2.0-rc.1`)',
  '^[a-z0-9_-]{3,64}$': 'not a valid id; write 3–64 lowercase letters, digits, `-` or `_` (no spaces or capitals), e.g. `customer-support-agent`, and name the file after it',
  '^[A-Za-z0-9_.-]{1,128}$': 'not a valid id; write 1–128 letters, digits, `.`, `-` or `_` (no spaces), e.g. `gpt-4o-mini`, and name the file after it',
  '^[A-Z_][A-Z0-9_]*$': 'not an environment variable name; write the NAME of the variable (upper case letters, digits, `_`), e.g. `OPENAI_API_KEY`',
  '^https?://': 'not a URL; write an address starting with `http://` or `https://`',
  '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_.-]+$': 'not a transform name; write `<module>.<function>`, e.g. `transforms.merge_findings`',
  '^[A-Za-z_][A-Za-z0-9_]*$': 'not a variable name; write letters, digits and `_`, starting with a letter or `_`, e.g. `summary`',
  '^[A-Za-z_][A-Za-z0-9_-]*$': 'not a valid alias; write letters, digits, `_` or `-`, starting with a letter or `_`, e.g. `researcher`',
};

function describe(err: ErrorObject, brief = false): string {
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'required': return `missing required field \`${String(p.missingProperty)}\`; add it`;
    case 'additionalProperties': {
      const props = (err.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
      const allowed = props ? Object.keys(props) : [];
      const key = String(p.additionalProperty);
      if (brief) return `unknown field \`${key}\`; remove it`;
      const near = allowed.find((a) => similar(a, key));
      return `unknown field \`${key}\`; ${near ? `did you mean \`${near}\`? ` : ''}${allowed.length ? `allowed fields here: ${allowed.join(', ')}` : 'remove it'}`;
    }
    case 'enum': return `invalid value; write one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const': return `invalid value; write ${JSON.stringify(p.allowedValue)}`;
    case 'type': return `wrong type; write a${/^[aeiou]/.test(String(p.type)) ? 'n' : ''} ${String(p.type)} here`;
    case 'pattern': return `value is ${PATTERN_HINTS[String(p.pattern)] ?? `not in the required format (${String(p.pattern)})`}`;
    case 'minimum': case 'maximum': case 'exclusiveMinimum': case 'exclusiveMaximum':
      return `value ${err.message ?? 'out of range'}; use a value in the allowed range`;
    case 'minItems': return `list ${err.message}; add at least ${String(p.limit)} entr${p.limit === 1 ? 'y' : 'ies'}`;
    case 'maxItems': return `list ${err.message}`;
    case 'minLength': return 'value must not be empty';
    case 'minProperties': return `mapping ${err.message}`;
    case 'oneOf': case 'anyOf': return 'value does not match any of the accepted shapes; see docs/registry.md for the allowed forms';
    default: return err.message ?? 'invalid value';
  }
}

function similar(a: string, b: string): boolean {
  if (a === b) return false;
  const x = a.toLowerCase().replace(/[-_]/g, '');
  const y = b.toLowerCase().replace(/[-_]/g, '');
  if (x === y) return true;
  if (Math.abs(x.length - y.length) > 2) return false;
  return editDistance(x, y) <= 2;
}

/**
 * Validates `data` with the validator of `kind`, pushing one diagnostic per problem at the YAML
 * position of the offending node. `base` prefixes paths (when validating a sub-object).
 */
export function schemaDiagnostics(
  kind: string, data: unknown, src: SourceFile, diags: Diagnostic[], mapCode: CodeMapper, base: PathPart[] = [],
  skip?: (path: PathPart[], err: ErrorObject) => boolean,
): boolean {
  const v = validatorFor(kind);
  if (v(data)) return true;
  const seen = new Set<string>();
  for (const err of v.errors ?? []) {
    if (err.keyword === 'if') continue;
    if (/\/(oneOf|anyOf)\/\d+\//.test(err.schemaPath)) continue;
    let path = [...base, ...splitPointer(err.instancePath)];
    let keyPos = false;
    if (err.keyword === 'additionalProperties') { path = [...path, String((err.params as { additionalProperty: string }).additionalProperty)]; keyPos = true; }
    const target = err.keyword === 'required' ? [...path, String((err.params as { missingProperty: string }).missingProperty)] : path;
    if (skip?.(target, err)) continue;
    const k = `${fieldPath(target)}|${err.keyword}`;
    if (seen.has(k)) continue;
    seen.add(k);
    const pos = posOf(src, path, keyPos);
    // past the per-file display cap the details are never shown: keep huge files cheap
    diags.push(diag(src.file, pos.line, pos.column, 'error', mapCode(target, err.keyword, err), fieldPath(target), describe(err, seen.size > DETAILED_ERRORS)));
  }
  return false;
}
