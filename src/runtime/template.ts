/**
 * `{{input}}` / `{{input.field.sub}}` / `{{name}}` template expansion (user_prompt_template and
 * scripted model replies). Pure.
 */
import type { JsonValue } from '../compiled/types';
import { valueAt } from '../shared/json';

function asText(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** `a.b.0` under `root` (the one path walker, src/shared/json.ts). */
export function getPath(root: JsonValue | undefined, path: string): JsonValue | undefined {
  return valueAt(root, path.split('.').filter(Boolean)) as JsonValue | undefined;
}

/** Expand `{{input}}`, `{{input.a.b}}` and any other `{{var}}` / `{{var.path}}` found in `vars`. */
export function expandTemplate(template: string, vars: Record<string, JsonValue | undefined>): string {
  return template.replace(/\{\{\s*([A-Za-z_][\w-]*)((?:\.[\w-]+)*)\s*\}\}/g, (whole, name: string, rest: string) => {
    if (!(name in vars)) return whole;
    const v = rest ? getPath(vars[name], rest.slice(1)) : vars[name];
    return asText(v);
  });
}

/** Expand templates inside every string of a JSON value (scripted replies with object content/args). */
export function expandDeep(value: JsonValue, vars: Record<string, JsonValue | undefined>): JsonValue {
  if (typeof value === 'string') return expandTemplate(value, vars);
  if (Array.isArray(value)) return value.map((v) => expandDeep(v, vars));
  if (value && typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value)) out[k] = expandDeep(v, vars);
    return out;
  }
  return value;
}

/** The first user message of a run: the template applied to the input, or the input as text. */
export function renderUserPrompt(input: JsonValue, template?: string): string {
  if (template) return expandTemplate(template, { input });
  return asText(input);
}
