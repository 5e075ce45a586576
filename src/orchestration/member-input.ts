/**
 * A member's input against that member's `interface.input.schema`, checked by the orchestrator
 * before the member's run starts (the requirement: "every member's input is validated against
 * that member's input schema ... with a failure that names the member and the field"). Pure and
 * deterministic, so the workflow checks without an activity (no command for a valid input).
 *
 * The keywords checked are the ones agent interfaces use: type (incl. integer and type lists),
 * required, properties, additionalProperties (false or a schema), enum, const, items,
 * minLength/maxLength, minimum/maximum, minItems/maxItems, anyOf/oneOf (some branch holds).
 * Other keywords (format, pattern, $ref, ...) are not checked here (the compiler validated the
 * schema itself); a member's own runtime still reads its input as before.
 */
import type { JsonSchema, JsonValue } from '../compiled/types';

type S = JsonSchema & Record<string, unknown>;

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function hasType(v: unknown, t: string): boolean {
  const actual = typeOf(v);
  return actual === t || (t === 'number' && actual === 'integer');
}

function where(path: string): string {
  return path ? `field '${path}'` : 'the input';
}

function join(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;
}

/** Every problem of `value` against `schema`, each naming the field (dotted path) and what it must be. */
export function inputProblems(schema: JsonSchema | undefined, value: unknown, path = ''): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as S;
  const out: string[] = [];
  if (s.type !== undefined) {
    const types = (Array.isArray(s.type) ? s.type : [s.type]) as string[];
    if (!types.some((t) => hasType(value, t))) return [`${where(path)} must be ${types.join(' or ')}, got ${typeOf(value)}`];
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) out.push(`${where(path)} must be one of ${s.enum.map((e) => JSON.stringify(e)).join(', ')}, got ${JSON.stringify(value)}`);
  if (s.const !== undefined && JSON.stringify(s.const) !== JSON.stringify(value)) out.push(`${where(path)} must be ${JSON.stringify(s.const)}`);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (Array.isArray(branches) && branches.length && !branches.some((b) => inputProblems(b as JsonSchema, value, path).length === 0)) out.push(`${where(path)} matches none of the ${key} alternatives`);
  }
  if (typeof value === 'string') {
    if (typeof s.minLength === 'number' && value.length < s.minLength) out.push(`${where(path)} must have at least ${s.minLength} characters`);
    if (typeof s.maxLength === 'number' && value.length > s.maxLength) out.push(`${where(path)} must have at most ${s.maxLength} characters`);
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) out.push(`${where(path)} must be >= ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum) out.push(`${where(path)} must be <= ${s.maximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) out.push(`${where(path)} must have at least ${s.minItems} items`);
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) out.push(`${where(path)} must have at most ${s.maxItems} items`);
    if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) value.forEach((v, i) => out.push(...inputProblems(s.items as JsonSchema, v, join(path, i))));
  }
  if (typeOf(value) === 'object') {
    const obj = value as Record<string, JsonValue>;
    const props = (s.properties ?? {}) as Record<string, JsonSchema>;
    for (const r of Array.isArray(s.required) ? (s.required as string[]) : []) if (!(r in obj)) out.push(`required ${where(join(path, r))} is missing`);
    for (const [k, v] of Object.entries(obj)) {
      if (props[k]) out.push(...inputProblems(props[k], v, join(path, k)));
      else if (s.additionalProperties === false) out.push(`${where(join(path, k))} is not allowed (additionalProperties: false; allowed: ${Object.keys(props).join(', ') || 'none'})`);
      else if (s.additionalProperties && typeof s.additionalProperties === 'object') out.push(...inputProblems(s.additionalProperties as JsonSchema, v, join(path, k)));
    }
  }
  return out;
}

/** The refusal of a member's input, naming the member, its role and every field at fault; undefined when valid. */
export function memberInputRefusal(member: { agent_id: string; interface?: { input?: { schema?: JsonSchema } } }, role: string, input: unknown): string | undefined {
  const problems = inputProblems(member.interface?.input?.schema, input);
  if (!problems.length) return undefined;
  return `member '${member.agent_id}' (${role}) refused its input before its run started: ${problems.join('; ')} (its interface.input.schema)`;
}
