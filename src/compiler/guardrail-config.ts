/**
 * Compile-time check of a builtin guardrail provider's `provider.config`:
 * what the provider in src/activities/guardrails.ts would otherwise throw on every run
 * (GuardrailConfigError) is reported once, at the file and line of the guardrail definition
 * (REG011). One entry per builtin provider; an unknown builtin name is reported too. Pure.
 */
import type { PathPart } from './source';
import { isValidJsonSchema } from './validate';
import { BLOCKED_CONTENT_CATEGORIES } from '../governance/content';
import { PII_CONFIG_KINDS } from '../governance/pii-kinds';

export interface ConfigProblem {
  /** Path under `provider` (e.g. ['config', 'schema']). */
  path: PathPart[];
  message: string;
}

/** The PII kinds the pii-regex provider knows (its `kinds` subset): the engine's kinds and its former names. */
export const PII_REGEX_KINDS = PII_CONFIG_KINDS;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

function regexProblem(pattern: unknown, at: PathPart[], flags?: unknown): ConfigProblem | undefined {
  if (typeof pattern !== 'string') return { path: at, message: 'each pattern needs `pattern:` (a regular expression string)' };
  try {
    new RegExp(pattern, typeof flags === 'string' ? flags.replace(/g/g, '') : '');
    return undefined;
  } catch (e) {
    return { path: at, message: `invalid regular expression ${JSON.stringify(pattern)} (${(e as Error).message}); fix the pattern` };
  }
}

function knownList(cfg: Obj, field: string, known: readonly string[], caseInsensitive = false): ConfigProblem[] {
  const v = cfg[field];
  if (v === undefined) return [];
  if (!Array.isArray(v)) return [{ path: ['config', field], message: `config.${field} must be a list of: ${known.join(', ')}` }];
  return v.flatMap((x, i) => (typeof x === 'string' && known.includes(caseInsensitive ? x.toLowerCase() : x) ? [] : [{ path: ['config', field, i], message: `\`${String(x)}\` is not one of: ${known.join(', ')}` }]));
}

function patternList(cfg: Obj, withFlags: boolean): ConfigProblem[] {
  const v = cfg.patterns;
  if (v === undefined) return [];
  if (!Array.isArray(v)) return [{ path: ['config', 'patterns'], message: 'config.patterns must be a list of {pattern, ...}' }];
  return v.flatMap((p, i) => {
    const o = isObj(p) ? p : {};
    const bad = regexProblem(o.pattern, ['config', 'patterns', i, 'pattern'], withFlags ? o.flags : undefined);
    return bad ? [bad] : [];
  });
}

function phraseList(cfg: Obj, field: string): ConfigProblem[] {
  const v = cfg[field];
  if (v === undefined || isObj(v)) return [];
  if (!Array.isArray(v)) return [{ path: ['config', field], message: `config.${field} must be a list of phrases or {phrase, weight}, or a {phrase: weight} map` }];
  return v.flatMap((e, i) => {
    if (typeof e === 'string' && e.trim()) return [];
    const phrase = isObj(e) ? (e.phrase ?? e.keyword ?? e.text) : undefined;
    return typeof phrase === 'string' && phrase.trim() ? [] : [{ path: ['config', field, i], message: `config.${field} entries are phrases or {phrase, weight}` }];
  });
}

const CHECKS: Record<string, (cfg: Obj) => ConfigProblem[]> = {
  'pii-regex': (cfg) => [...knownList(cfg, 'kinds', PII_REGEX_KINDS, true), ...patternList(cfg, true)],
  'keyword-score': (cfg) => [
    ...phraseList(cfg, 'keywords'), ...phraseList(cfg, 'phrases'), ...patternList(cfg, false),
    ...(cfg.default_weight !== undefined && typeof cfg.default_weight !== 'number' ? [{ path: ['config', 'default_weight'], message: 'config.default_weight must be a number (0-10)' }] : []),
    ...(cfg.include_defaults !== undefined && typeof cfg.include_defaults !== 'boolean' ? [{ path: ['config', 'include_defaults'], message: 'config.include_defaults must be true or false' }] : []),
  ],
  'json-schema': (cfg) => {
    if (cfg.schema === undefined) return [{ path: ['config'], message: 'the json-schema provider needs `config.schema` (the JSON Schema the text must match), e.g. `config: {schema: {type: object, required: [answer]}}`' }];
    const r = isValidJsonSchema(cfg.schema);
    return r.ok ? [] : [{ path: ['config', 'schema'], message: `config.schema is not a valid JSON Schema: ${r.message ?? 'invalid'}` }];
  },
  'blocked-content': (cfg) => knownList(cfg, 'categories', BLOCKED_CONTENT_CATEGORIES),
};

/** The builtin provider names the runtime implements. */
export const BUILTIN_GUARDRAIL_NAMES = Object.keys(CHECKS);

/** Problems with a `provider: {type: builtin, name, config}` block (none for other provider types). */
export function builtinGuardrailConfigProblems(provider: unknown): ConfigProblem[] {
  if (!isObj(provider) || provider.type !== 'builtin') return [];
  const name = provider.name;
  const check = typeof name === 'string' ? CHECKS[name] : undefined;
  if (!check) return [{ path: ['name'], message: `\`${String(name)}\` is not a builtin guardrail provider; write one of: ${BUILTIN_GUARDRAIL_NAMES.join(', ')}` }];
  if (provider.config !== undefined && !isObj(provider.config)) return [{ path: ['config'], message: 'provider.config must be a mapping' }];
  return check(isObj(provider.config) ? provider.config : {});
}
