/**
 * Compile-time check of a guardrail definition's `provider` block: its `type` is one the runtime
 * implements (`builtin`, `llm`, `http`; anything else would fail every run that reaches it), and
 * its `config` is what that provider reads. What src/activities/guardrails.ts would otherwise
 * throw on every run (GuardrailConfigError) is reported once, at the file and line of the
 * guardrail definition (REG011). One entry per builtin provider; an unknown builtin name is
 * reported too. Pure.
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

/** The guardrail provider types the runtime implements. */
export const GUARDRAIL_PROVIDER_TYPES = ['builtin', 'llm', 'http'] as const;

/**
 * What an `llm` guardrail asks its judge model (the Agent Definition Specification's common
 * guardrails: jailbreak-check, language-check, hallucination-check, and a topic check for
 * non-goals); `hallucination` is another name for `grounding`.
 */
export const LLM_GUARDRAIL_CHECKS = ['jailbreak', 'language', 'grounding', 'hallucination', 'topic'] as const;

/** The response shapes an `http` guardrail reads: a Presidio analyzer's `/analyze`, or a moderation endpoint. */
export const HTTP_GUARDRAIL_FORMATS = ['presidio', 'moderation'] as const;

const stringList = (cfg: Obj, field: string, required: string | undefined): ConfigProblem[] => {
  const v = cfg[field];
  if (v === undefined) return required ? [{ path: ['config'], message: required }] : [];
  return Array.isArray(v) && v.length && v.every((x) => typeof x === 'string' && x.trim()) ? [] : [{ path: ['config', field], message: `config.${field} must be a non-empty list of strings` }];
};

function llmProblems(cfg: Obj): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  if (typeof cfg.model !== 'string' || !cfg.model.trim()) out.push({ path: cfg.model === undefined ? ['config'] : ['config', 'model'], message: 'an llm guardrail needs `config.model`: the model_id of a registered model (models/<model_id>.model.md) that judges the text' });
  const checks: readonly string[] = LLM_GUARDRAIL_CHECKS;
  if (typeof cfg.check !== 'string' || !checks.includes(cfg.check)) {
    out.push({ path: cfg.check === undefined ? ['config'] : ['config', 'check'], message: `an llm guardrail needs \`config.check\`, one of: ${checks.join(', ')}` });
  }
  if (cfg.check === 'language') out.push(...stringList(cfg, 'languages', 'the language check needs `config.languages`: the expected languages, e.g. `[en, fr]`'));
  if (cfg.check === 'topic') out.push(...stringList(cfg, 'topics', 'the topic check needs `config.topics`: the topics the text may be about'));
  if (cfg.instructions !== undefined && typeof cfg.instructions !== 'string') out.push({ path: ['config', 'instructions'], message: 'config.instructions must be a string' });
  return out;
}

function httpProblems(cfg: Obj): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  let url: URL | undefined;
  try {
    url = typeof cfg.url === 'string' ? new URL(cfg.url) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) out.push({ path: cfg.url === undefined ? ['config'] : ['config', 'url'], message: 'an http guardrail needs `config.url`: the service endpoint, e.g. `https://presidio.internal/analyze`' });
  else if (url.username || url.password) out.push({ path: ['config', 'url'], message: 'config.url must not hold credentials; name them with `provider.credentials_ref`' });
  const formats: readonly string[] = HTTP_GUARDRAIL_FORMATS;
  if (cfg.format !== undefined && (typeof cfg.format !== 'string' || !formats.includes(cfg.format))) out.push({ path: ['config', 'format'], message: `config.format must be one of: ${formats.join(', ')}` });
  out.push(...stringList(cfg, 'allowed_hosts', undefined), ...stringList(cfg, 'entities', undefined));
  if (cfg.allow_private_network !== undefined && typeof cfg.allow_private_network !== 'boolean') out.push({ path: ['config', 'allow_private_network'], message: 'config.allow_private_network must be true or false' });
  if (cfg.score_threshold !== undefined && (typeof cfg.score_threshold !== 'number' || cfg.score_threshold < 0 || cfg.score_threshold > 1)) out.push({ path: ['config', 'score_threshold'], message: 'config.score_threshold must be a number from 0 to 1' });
  if (cfg.timeout_seconds !== undefined && (typeof cfg.timeout_seconds !== 'number' || cfg.timeout_seconds <= 0)) out.push({ path: ['config', 'timeout_seconds'], message: 'config.timeout_seconds must be a positive number' });
  if (cfg.language !== undefined && typeof cfg.language !== 'string') out.push({ path: ['config', 'language'], message: 'config.language must be a language code, e.g. `en`' });
  return out;
}

/** Problems with a guardrail definition's `provider` block: its type, and the config that type reads. */
export function guardrailProviderProblems(provider: unknown): ConfigProblem[] {
  if (!isObj(provider)) return [];
  const types: readonly string[] = GUARDRAIL_PROVIDER_TYPES;
  if (typeof provider.type !== 'string' || !types.includes(provider.type)) {
    return [{ path: ['type'], message: `guardrail provider type \`${String(provider.type)}\` is not supported; write one of: ${types.join(', ')}` }];
  }
  if (provider.config !== undefined && !isObj(provider.config)) return [{ path: ['config'], message: 'provider.config must be a mapping' }];
  const cfg = isObj(provider.config) ? provider.config : {};
  if (provider.type === 'llm') return llmProblems(cfg);
  if (provider.type === 'http') return httpProblems(cfg);
  return builtinProblems(provider);
}

/** The registry's check of a guardrail file (every provider type since the llm and http providers). */
export const builtinGuardrailConfigProblems = guardrailProviderProblems;

/** Problems with a `provider: {type: builtin, name, config}` block. */
function builtinProblems(provider: Obj): ConfigProblem[] {
  const name = provider.name;
  const check = typeof name === 'string' ? CHECKS[name] : undefined;
  if (!check) return [{ path: ['name'], message: `\`${String(name)}\` is not a builtin guardrail provider; write one of: ${BUILTIN_GUARDRAIL_NAMES.join(', ')}` }];
  if (provider.config !== undefined && !isObj(provider.config)) return [{ path: ['config'], message: 'provider.config must be a mapping' }];
  return check(isObj(provider.config) ? provider.config : {});
}
