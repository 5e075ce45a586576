/**
 * Guardrails as an activity (the Agent Definition Specification's "guardrails — runtime validation"): `runGuardrails` evaluates
 * every guardrail bound at one position of an agent (`input`, `tool_input`, `tool_output`,
 * `output`) in declaration order, each seeing the text as transformed by the ones before it, and
 * stops at the first one whose on_fail ends the chain (block / escalate / retry / reject /
 * fail_closed). Texts stay out of workflow history where practical: input and tool results are
 * passed and returned as message-store refs; only a short preview is returned besides.
 *
 * Builtin providers (`provider: {type: builtin, name}`), all deterministic:
 *  - `pii-regex`: the platform PII engine (src/governance/pii.ts: names, e-mail addresses, phone
 *    numbers, street addresses, account/card numbers, national identifiers, IP addresses);
 *    transform → the engine's placeholders (`[PERSON]`, `[EMAIL]`, ...); as a score guardrail any
 *    finding scores 10. config: `kinds?: string[]` (subset: kinds, or the former names email /
 *    iban / card / ssn / phone), `patterns?: {kind, pattern, flags?}[]` (extra regexes → `[KIND]`).
 *  - `keyword-score`: weighted phrases/regexes → score 0–10 (sum of the weights of distinct
 *    matches, capped). Defaults to a list of prompt-injection phrases; config `keywords` /
 *    `phrases` (string[] | {phrase|keyword, weight}[] | {phrase: weight}), `patterns`
 *    ({pattern, weight}[]), `default_weight` (5), `include_defaults` (false when keywords given).
 *  - `json-schema`: `config.schema` (required); a violation (or text that is not JSON when the
 *    schema wants an object/array) fails with the validator's message and scores 10.
 *  - `blocked-content`: the policies.blocked_content classifier (src/governance/content.ts) as a score
 *    guardrail: a match scores 10 with its category; config `categories` (default: all six).
 *
 * Remote providers (src/activities/guardrail-remote.ts): `llm` (a registry model judges: jailbreak,
 * language, grounding / hallucination, topic) and `http` (a Presidio-like analyzer or a moderation
 * endpoint, behind the network policy).
 *
 * on_fail per result_type: score → block | warn | log | escalate | retry (output only; elsewhere
 * as block); transform → apply | redact (replace the text; a provider that cannot transform but
 * fails blocks) | reject (content the guardrail would have to change is refused); annotate /
 * enrich → skip (a provider error becomes a warning) | fail_closed (a provider error blocks).
 */
import { ApplicationFailure, log } from '@temporalio/activity';
import type { CompiledGuardrail, GuardrailPosition, JsonObject, JsonSchema, JsonValue } from '../compiled/types';
import type { BlobRef } from '../shared/contract';
import type { AppendItem, Message } from '../runtime/messages';
import { stripFence, wantsText } from '../runtime/output';
import { BundleCache, schemaError } from './agent-loader';
import { MessageStore } from './message-store';
import { storeCallArgs, resolveArgs } from './ephemeral';
import { openBlobStore } from './blob-store';
import { blockedContentProvider } from '../governance/content';
import { PII_RULES, redactJsonWith, redactWith, selectRules, type PiiRule } from '../governance/pii';
import { isPiiConfigKind, PII_CONFIG_KINDS } from '../governance/pii-kinds';
import { httpGuard, llmJudge } from './guardrail-remote';
import type { Provider } from './provider';

// ---------------------------------------------------------------------------------------------
// Providers (pure)
// ---------------------------------------------------------------------------------------------

export interface ProviderEval {
  /** Severity 0–10. */
  score: number;
  /** The check failed (for providers that have a pass/fail notion, e.g. json-schema, or any finding). */
  failed: boolean;
  /** Readable reasons (what matched). */
  findings: string[];
  /** The subject with the provider's transformation applied (transform-capable providers only). */
  transformed?: JsonValue;
}

export type GuardrailProvider = (subject: JsonValue, config: JsonObject) => ProviderEval;

/** A configuration error of a guardrail: the run cannot go on (non-retryable). */
export class GuardrailConfigError extends Error {}

/** Apply `fn` to every string in a JSON value (keys untouched). */
export function mapStrings(v: JsonValue, fn: (s: string) => string): JsonValue {
  if (typeof v === 'string') return fn(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, fn));
  if (v && typeof v === 'object') {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) out[k] = mapStrings(x, fn);
    return out;
  }
  return v;
}

/** The text form of a subject (what score providers look at). */
export function subjectText(v: JsonValue): string {
  return typeof v === 'string' ? v : JSON.stringify(v ?? null);
}

/**
 * The `pii-regex` provider's rules: the platform PII engine's (src/governance/pii.ts), narrowed by
 * `config.kinds` (a kind such as `PERSON`, any case, or a former name `email`/`iban`/`card`/
 * `ssn`/`phone`), plus `config.patterns` (custom kinds, replaced by `[KIND]` like the others).
 */
function piiRules(config: JsonObject): PiiRule[] {
  const kinds = Array.isArray(config.kinds) ? (config.kinds as JsonValue[]).map(String) : undefined;
  const unknown = kinds?.find((k) => !isPiiConfigKind(k));
  if (unknown !== undefined) throw new GuardrailConfigError(`config.kinds: \`${unknown}\` is not one of: ${PII_CONFIG_KINDS.join(', ')}`);
  const rules = selectRules(kinds);
  if (config.patterns !== undefined) {
    if (!Array.isArray(config.patterns)) throw new GuardrailConfigError('config.patterns must be a list of {kind, pattern}');
    for (const p of config.patterns as JsonValue[]) {
      const o = (p ?? {}) as JsonObject;
      if (typeof o.pattern !== 'string') throw new GuardrailConfigError('config.patterns entries need a `pattern` (regular expression)');
      let re: RegExp;
      try {
        re = new RegExp(o.pattern, `${typeof o.flags === 'string' ? o.flags.replace(/g/g, '') : ''}g`);
      } catch (e) {
        throw new GuardrailConfigError(`config.patterns: invalid regular expression ${JSON.stringify(o.pattern)} (${(e as Error).message})`);
      }
      const kind = typeof o.kind === 'string' ? o.kind : 'custom';
      rules.push({ id: kind, kind, re });
    }
  }
  return rules;
}

/** Redact PII in one string with the engine's rules (or a `config.kinds` selection); the new text and the kinds found (with counts). */
export function redactPii(text: string, rules: readonly PiiRule[] = PII_RULES): { text: string; found: Record<string, number> } {
  return redactWith(text, rules);
}

export const piiRegexProvider: GuardrailProvider = (subject, config) => {
  const rules = piiRules(config);
  const r = redactJsonWith(subject, (s) => redactWith(s, rules), {}, rules.some((x) => x.kind === 'PERSON'));
  const kinds = Object.keys(r.found);
  const count = kinds.reduce((n, k) => n + r.found[k], 0);
  return {
    score: count ? 10 : 0,
    failed: count > 0,
    findings: kinds.map((k) => `${k}${r.found[k] > 1 ? ` ×${r.found[k]}` : ''}`),
    transformed: r.value,
  };
};

interface WeightedPattern {
  label: string;
  re: RegExp;
  weight: number;
}

const W = (label: string, re: RegExp, weight: number): WeightedPattern => ({ label, re, weight });

/** Default keyword-score list: prompt-injection / jailbreak phrases. */
export const DEFAULT_INJECTION_PATTERNS: WeightedPattern[] = [
  W(
    'ignore previous instructions',
    /\b(?:ignore|disregard|forget|override|skip)\b(?:\s+\w+){0,3}?\s+(?:previous|prior|above|earlier|preceding|all|your|the|any)\b(?:\s+\w+){0,2}?\s+(?:instructions?|prompts?|rules|directions|guidelines|context)\b/i,
    9,
  ),
  W('reveal the system prompt', /\b(?:reveal|show|print|repeat|output|leak|tell me)\b(?:\s+\w+){0,4}?\s+(?:system prompt|hidden prompt|initial prompt|your instructions)\b/i, 7),
  W('system prompt', /\bsystem prompt\b/i, 3),
  W('new instructions', /\bnew instructions\b/i, 5),
  W('you are now', /\byou are now\b/i, 4),
  W('developer mode', /\bdeveloper mode\b/i, 6),
  W('jailbreak', /\bjailbreak/i, 6),
  W('do anything now', /\bdo anything now\b/i, 7),
  W('bypass safety', /\b(?:bypass|disable|turn off)\b(?:\s+\w+){0,2}?\s+(?:safety|filters?|restrictions|guardrails|content policy)\b/i, 7),
  W('without restrictions', /\bwithout (?:any )?(?:restrictions|limits|filters)\b/i, 4),
  W('pretend to be', /\bpretend (?:you are|to be)\b/i, 3),
  W('fake system/role marker', /<\/?\s*system\s*>|\[\s*system\s*\]|^\s*#+\s*system\b|\bsystem\s*:\s/im, 6),
];

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function phrasePattern(phrase: string, weight: number): WeightedPattern {
  const words = phrase.trim().split(/\s+/).map(escapeRe).join('\\s+');
  const start = /^\w/.test(phrase.trim()) ? '\\b' : '';
  const end = /\w$/.test(phrase.trim()) ? '\\b' : '';
  return { label: phrase.trim(), re: new RegExp(`${start}${words}${end}`, 'i'), weight };
}

function keywordPatterns(config: JsonObject): WeightedPattern[] {
  const dw = typeof config.default_weight === 'number' ? config.default_weight : 5;
  const out: WeightedPattern[] = [];
  const addList = (v: JsonValue | undefined, field: string): void => {
    if (v === undefined) return;
    if (Array.isArray(v)) {
      for (const e of v) {
        if (typeof e === 'string') out.push(phrasePattern(e, dw));
        else if (e && typeof e === 'object' && !Array.isArray(e)) {
          const phrase = (e as JsonObject).phrase ?? (e as JsonObject).keyword ?? (e as JsonObject).text;
          if (typeof phrase !== 'string' || !phrase.trim()) throw new GuardrailConfigError(`config.${field} entries need a \`phrase\``);
          const w = (e as JsonObject).weight;
          out.push(phrasePattern(phrase, typeof w === 'number' ? w : dw));
        } else throw new GuardrailConfigError(`config.${field} entries must be strings or {phrase, weight}`);
      }
    } else if (v && typeof v === 'object') {
      for (const [phrase, w] of Object.entries(v)) out.push(phrasePattern(phrase, typeof w === 'number' ? w : dw));
    } else throw new GuardrailConfigError(`config.${field} must be a list or a {phrase: weight} map`);
  };
  addList(config.keywords, 'keywords');
  addList(config.phrases, 'phrases');
  if (config.patterns !== undefined) {
    if (!Array.isArray(config.patterns)) throw new GuardrailConfigError('config.patterns must be a list of {pattern, weight}');
    for (const p of config.patterns as JsonValue[]) {
      const o = (p ?? {}) as JsonObject;
      if (typeof o.pattern !== 'string') throw new GuardrailConfigError('config.patterns entries need a `pattern` (regular expression)');
      try {
        out.push({ label: typeof o.label === 'string' ? o.label : o.pattern, re: new RegExp(o.pattern, 'i'), weight: typeof o.weight === 'number' ? o.weight : dw });
      } catch (e) {
        throw new GuardrailConfigError(`config.patterns: invalid regular expression ${JSON.stringify(o.pattern)} (${(e as Error).message})`);
      }
    }
  }
  const includeDefaults = typeof config.include_defaults === 'boolean' ? config.include_defaults : out.length === 0;
  return includeDefaults ? [...DEFAULT_INJECTION_PATTERNS, ...out] : out;
}

export const keywordScoreProvider: GuardrailProvider = (subject, config) => {
  const text = subjectText(subject);
  let score = 0;
  const findings: string[] = [];
  for (const p of keywordPatterns(config)) {
    if (!p.re.test(text)) continue;
    score += p.weight;
    findings.push(`"${p.label}" (+${p.weight})`);
  }
  score = Math.max(0, Math.min(10, score));
  return { score, failed: score > 0, findings };
};

export const jsonSchemaProvider: GuardrailProvider = (subject, config) => {
  const schema = config.schema;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new GuardrailConfigError('the json-schema provider needs config.schema (a JSON Schema object)');
  let value: JsonValue = subject;
  if (typeof subject === 'string' && !wantsText(schema as JsonSchema)) {
    try {
      value = JSON.parse(stripFence(subject)) as JsonValue;
    } catch (e) {
      return { score: 10, failed: true, findings: [`not valid JSON (${(e as Error).message})`] };
    }
  }
  const err = schemaError(schema as JsonSchema, value);
  return err ? { score: 10, failed: true, findings: [`does not match config.schema: ${err}`] } : { score: 0, failed: false, findings: [] };
};

export const BUILTIN_GUARDRAIL_PROVIDERS: Record<string, GuardrailProvider> = {
  'pii-regex': piiRegexProvider,
  'keyword-score': keywordScoreProvider,
  'json-schema': jsonSchemaProvider,
  'blocked-content': blockedContentProvider,
};

// ---------------------------------------------------------------------------------------------
// Evaluation of a chain (pure, apart from provider lookup)
// ---------------------------------------------------------------------------------------------

export type GuardrailAction =
  | 'passed'
  | 'blocked'
  | 'warned'
  | 'logged'
  | 'escalated'
  | 'retry'
  | 'applied'
  | 'redacted'
  | 'rejected'
  | 'skipped'
  | 'annotated';

export interface GuardrailResult {
  ref: string;
  /** False when the guardrail triggered (whatever its on_fail did). */
  passed: boolean;
  score?: number;
  action: GuardrailAction;
  reason?: string;
  /** First 200 characters of the transformed text (the full text is returned once, in the verdict). */
  transformed_text?: string;
}

export type VerdictKind = 'pass' | 'warn' | 'transformed' | 'blocked' | 'escalate' | 'retry';

export interface ChainOutcome {
  kind: VerdictKind;
  /** The guardrail that blocked / escalated / asked for a retry. */
  guardrail?: string;
  reason?: string;
  /** The subject after every applied transformation. */
  subject: JsonValue;
  changed: boolean;
  results: GuardrailResult[];
  warnings: string[];
  /** Some guardrail triggered (block_tools_on_input_fail). */
  triggered: boolean;
  /** The first guardrail that triggered. */
  first_triggered?: string;
}

export const DEFAULT_SEVERITY_THRESHOLD = 5;

function providerOf(g: CompiledGuardrail, providers: Record<string, GuardrailProvider>): GuardrailProvider {
  const name = g.provider.name ?? '';
  const p = g.provider.type === 'builtin' ? providers[name] : undefined;
  if (p) return p;
  const what = g.provider.type === 'builtin' ? `builtin provider '${name || '(no name)'}'` : `provider type '${g.provider.type}'${name ? ` (${name})` : ''}`;
  throw ApplicationFailure.nonRetryable(
    `guardrail '${g.ref}': ${what} is not available in this worker (builtin providers: ${Object.keys(providers).join(', ')})`,
    'UnknownGuardrailProvider',
  );
}

const preview = (v: JsonValue): string => subjectText(v).slice(0, 200);

/** One provider call the chain asks its driver for: this guardrail on this (possibly transformed) subject. */
interface ChainStep {
  g: CompiledGuardrail;
  subject: JsonValue;
}
/** What the driver answers: the provider's evaluation, or what it threw. */
type StepAnswer = { ev: ProviderEval } | { error: unknown };

/**
 * The chain itself, without its provider calls: it yields each guardrail with the subject it sees
 * and applies the answer, so one rule set serves builtin (synchronous) and remote (llm, http)
 * providers. A retryable failure of a remote provider (a service down) goes up unchanged, so the
 * activity is retried; any other provider error is a GuardrailConfigError, or a warning / block
 * for annotate and enrich guardrails as their on_fail says.
 */
function* chainSteps(guardrails: CompiledGuardrail[], subject: JsonValue, position: GuardrailPosition): Generator<ChainStep, ChainOutcome, StepAnswer> {
  let cur = subject;
  let changed = false;
  const results: GuardrailResult[] = [];
  const warnings: string[] = [];
  let firstTriggered: string | undefined;
  const end = (kind: VerdictKind, g: CompiledGuardrail, reason: string): ChainOutcome => ({
    kind,
    guardrail: g.ref,
    reason,
    subject: cur,
    changed,
    results,
    warnings,
    triggered: true,
    first_triggered: firstTriggered ?? g.ref,
  });
  for (const g of guardrails) {
    const label = `${position} guardrail '${g.ref}'`;
    const answer = yield { g, subject: cur };
    let ev: ProviderEval | undefined;
    let providerError: string | undefined;
    if ('ev' in answer) ev = answer.ev;
    else {
      const e = answer.error;
      if (g.result_type === 'annotate' || g.result_type === 'enrich') providerError = (e as Error)?.message ?? String(e);
      else if (e instanceof ApplicationFailure && (!e.nonRetryable || e.type === 'UnknownGuardrailProvider')) throw e;
      else throw ApplicationFailure.nonRetryable(`guardrail '${g.ref}' (${g.provider.name ?? g.provider.type}): ${(e as Error)?.message ?? String(e)}`, 'GuardrailConfigError');
    }
    if (g.result_type === 'annotate' || g.result_type === 'enrich') {
      if (providerError !== undefined) {
        firstTriggered ??= g.ref;
        if (g.on_fail === 'fail_closed') {
          results.push({ ref: g.ref, passed: false, action: 'blocked', reason: providerError });
          return end('blocked', g, `provider failed (on_fail fail_closed): ${providerError}`);
        }
        results.push({ ref: g.ref, passed: false, action: 'skipped', reason: providerError });
        warnings.push(`${label} skipped: ${providerError}`);
        continue;
      }
      results.push({ ref: g.ref, passed: true, score: ev!.score, action: 'annotated', ...(ev!.findings.length ? { reason: ev!.findings.join(', ') } : {}) });
      continue;
    }
    const e = ev!;
    if (g.result_type === 'transform') {
      const transformable = e.transformed !== undefined;
      const differs = transformable && JSON.stringify(e.transformed) !== JSON.stringify(cur);
      const fired = differs || (!transformable && e.failed);
      if (!fired) {
        results.push({ ref: g.ref, passed: true, score: e.score, action: 'passed' });
        continue;
      }
      firstTriggered ??= g.ref;
      const why = e.findings.length ? `found ${e.findings.join(', ')}` : 'content needs transforming';
      if (g.on_fail === 'reject' || !transformable) {
        results.push({ ref: g.ref, passed: false, score: e.score, action: 'rejected', reason: why });
        return end('blocked', g, transformable ? `${why} (on_fail reject)` : `${why}; the provider cannot transform it`);
      }
      cur = e.transformed!;
      changed = true;
      results.push({ ref: g.ref, passed: false, score: e.score, action: g.on_fail === 'redact' ? 'redacted' : 'applied', reason: why, transformed_text: preview(cur) });
      continue;
    }
    // score
    const threshold = g.severity_threshold ?? DEFAULT_SEVERITY_THRESHOLD;
    const fired = e.score > 0 && e.score >= threshold;
    if (!fired) {
      results.push({ ref: g.ref, passed: true, score: e.score, action: 'passed' });
      continue;
    }
    firstTriggered ??= g.ref;
    const reason = `score ${e.score} >= severity_threshold ${threshold}${e.findings.length ? ` (${e.findings.join(', ')})` : ''}`;
    switch (g.on_fail) {
      case 'warn':
        results.push({ ref: g.ref, passed: false, score: e.score, action: 'warned', reason });
        warnings.push(`${label}: ${reason}`);
        continue;
      case 'log':
        results.push({ ref: g.ref, passed: false, score: e.score, action: 'logged', reason });
        continue;
      case 'escalate':
        results.push({ ref: g.ref, passed: false, score: e.score, action: 'escalated', reason });
        return end('escalate', g, reason);
      case 'retry':
        if (position === 'output') {
          results.push({ ref: g.ref, passed: false, score: e.score, action: 'retry', reason });
          return end('retry', g, reason);
        }
        results.push({ ref: g.ref, passed: false, score: e.score, action: 'blocked', reason });
        return end('blocked', g, reason);
      default:
        results.push({ ref: g.ref, passed: false, score: e.score, action: 'blocked', reason });
        return end('blocked', g, reason);
    }
  }
  return {
    kind: changed ? 'transformed' : warnings.length ? 'warn' : 'pass',
    subject: cur,
    changed,
    results,
    warnings,
    triggered: firstTriggered !== undefined,
    ...(firstTriggered ? { first_triggered: firstTriggered } : {}),
  };
}

/**
 * Evaluate `guardrails` (declaration order) on `subject` at `position` with synchronous (builtin)
 * providers. Throws a non-retryable ApplicationFailure for an unknown provider or a configuration error.
 */
export function evaluateGuardrails(
  guardrails: CompiledGuardrail[],
  subject: JsonValue,
  position: GuardrailPosition,
  providers: Record<string, GuardrailProvider> = BUILTIN_GUARDRAIL_PROVIDERS,
): ChainOutcome {
  const it = chainSteps(guardrails, subject, position);
  let r = it.next();
  while (!r.done) {
    const { g, subject: cur } = r.value;
    const provider = providerOf(g, providers);
    let answer: StepAnswer;
    try {
      answer = { ev: provider(cur, (g.provider.config ?? {}) as JsonObject) };
    } catch (error) {
      answer = { error };
    }
    r = it.next(answer);
  }
  return r.value;
}

/** A provider call that may go out of the worker (an llm judge, an http service). */
export type AsyncGuardrailProvider = (g: CompiledGuardrail, subject: JsonValue) => Promise<ProviderEval>;

/** The same chain as evaluateGuardrails, each provider call awaited (`evaluate` picks builtin, llm or http). */
export async function evaluateGuardrailsAsync(guardrails: CompiledGuardrail[], subject: JsonValue, position: GuardrailPosition, evaluate: AsyncGuardrailProvider): Promise<ChainOutcome> {
  const it = chainSteps(guardrails, subject, position);
  let r = it.next();
  while (!r.done) {
    const { g, subject: cur } = r.value;
    let answer: StepAnswer;
    try {
      answer = { ev: await evaluate(g, cur) };
    } catch (error) {
      answer = { error };
    }
    r = it.next(answer);
  }
  return r.value;
}

// ---------------------------------------------------------------------------------------------
// The activity
// ---------------------------------------------------------------------------------------------

export interface RunGuardrailsInput {
  bundle: BlobRef;
  agent_id: string;
  position: GuardrailPosition;
  /** Subject, one of: plain text; a message (stored ref or inline); the last message of a conversation; tool arguments. */
  text?: string;
  message?: AppendItem;
  head?: BlobRef;
  args?: JsonObject;
  /** A JSON value (an orchestrator's input or final output, src/workflows/orchestrator.ts). */
  value?: JsonValue;
  /** The tool (tool_input / tool_output), for messages and logs. */
  tool?: string;
  call_id?: string;
}

export interface GuardrailVerdict {
  kind: VerdictKind;
  guardrail?: string;
  reason?: string;
  /** transformed: the new message (message subjects), text (text/head), output value (head), or args. */
  ref?: BlobRef;
  text?: string;
  value?: JsonValue;
  args?: JsonObject;
  preview?: string;
  /**
   * An ephemeral run: a transformed final answer (head subjects) is stored here
   * instead of in `value`/`text`, and transformed arguments come back by reference in `args`;
   * no `preview`.
   */
  value_ref?: BlobRef;
}

export interface RunGuardrailsOutput {
  verdict: GuardrailVerdict;
  results: GuardrailResult[];
  warnings: string[];
  triggered: boolean;
  first_triggered?: string;
  /** Inline message subjects: the (possibly transformed) message, stored, so the workflow passes a ref on. */
  stored?: BlobRef;
}

/** An ephemeral run's transformed subject goes back by reference, without a preview; true for such a run. */
async function keepVerdictOutOfHistory(messages: MessageStore, verdict: GuardrailVerdict, sensitiveFields: readonly string[]): Promise<boolean> {
  const salt = await messages.salt();
  if (salt === undefined) return false;
  delete verdict.preview;
  if (verdict.args !== undefined) verdict.args = await storeCallArgs(messages.blobs, salt, verdict.args, sensitiveFields);
  else if (verdict.value !== undefined) {
    verdict.value_ref = await messages.blobs.putJson({ format: 'agentloom.output/v1', value: verdict.value, salt });
    delete verdict.value;
    delete verdict.text;
  }
  return true;
}

function logInfo(message: string, attrs: Record<string, unknown>): void {
  try {
    log.info(message, attrs);
  } catch {
    // outside an activity (unit use)
  }
}

/** A remote provider's evaluation of a JSON subject: each string in it, the results combined (highest score, every finding). */
async function eachString(subject: JsonValue, fn: (text: string) => Promise<ProviderEval>): Promise<ProviderEval> {
  if (typeof subject === 'string') return fn(subject);
  const texts: string[] = [];
  mapStrings(subject, (t) => (texts.push(t), t));
  const evs: ProviderEval[] = [];
  for (const t of texts) evs.push(await fn(t));
  let i = 0;
  const transformable = evs.every((e) => e.transformed !== undefined);
  return {
    score: Math.max(0, ...evs.map((e) => e.score)),
    failed: evs.some((e) => e.failed),
    findings: evs.flatMap((e) => e.findings),
    ...(transformable ? { transformed: mapStrings(subject, () => evs[i++].transformed as string) } : {}),
  };
}

export function createGuardrailActivities(
  opts: { bundles?: BundleCache; messages?: MessageStore; providers?: Record<string, GuardrailProvider>; models?: Record<string, Provider>; env?: NodeJS.ProcessEnv } = {},
) {
  const blobs = opts.bundles?.blobs ?? opts.messages?.blobs ?? openBlobStore();
  const deps = { bundles: opts.bundles ?? new BundleCache(blobs), messages: opts.messages ?? new MessageStore(blobs), providers: opts.providers };
  const providers = { ...BUILTIN_GUARDRAIL_PROVIDERS, ...(deps.providers ?? {}) };
  const models = opts.models ?? {};
  return {
    async runGuardrails(inp: RunGuardrailsInput): Promise<RunGuardrailsOutput> {
      const { agent } = await deps.bundles.agent(inp.bundle, inp.agent_id);
      const list = agent.guardrails?.[inp.position] ?? [];
      let subject: JsonValue;
      let msg: Message | undefined;
      let jsonOutput = false;
      // An ephemeral run's tool call arguments arrive by reference.
      if (inp.args !== undefined) subject = await resolveArgs(deps.messages.blobs, inp.args);
      else if (inp.value !== undefined) subject = inp.value;
      else if (inp.message !== undefined) {
        msg = 'ref' in inp.message ? await deps.messages.getLoose(inp.message.ref) : inp.message.message;
        subject = msg.content;
      } else if (inp.head !== undefined) {
        const text = (await deps.messages.node(inp.head)).msg.content;
        subject = text;
        if (inp.position === 'output' && !wantsText(agent.interface.output.schema)) {
          try {
            subject = JSON.parse(stripFence(text)) as JsonValue;
            jsonOutput = true;
          } catch {
            subject = text;
          }
        }
      } else subject = inp.text ?? '';

      // The grounding check's sources: what the run retrieved (tool and knowledge results) up to the answer.
      const sources = async (): Promise<string[]> => (inp.head ? (await deps.messages.conversation(inp.head)).filter((m) => m.role === 'tool').map((m) => m.content) : []);
      const out = await evaluateGuardrailsAsync(list, subject, inp.position, async (g, cur) => {
        if (g.provider.type === 'llm') return llmJudge(g, subjectText(cur), { agent, models, sources });
        if (g.provider.type === 'http') return eachString(cur, (t) => httpGuard(g, t, { agent, env: opts.env }));
        return providerOf(g, providers)(cur, (g.provider.config ?? {}) as JsonObject);
      });
      const verdict: GuardrailVerdict = { kind: out.kind };
      if (out.guardrail) verdict.guardrail = out.guardrail;
      if (out.reason) verdict.reason = out.reason;
      let stored: BlobRef | undefined;
      if (msg && out.changed) {
        const ref = await deps.messages.putLoose({ ...msg, content: subjectText(out.subject) });
        if (out.kind === 'transformed') verdict.ref = ref;
        stored = ref;
      } else if (msg && inp.message && 'message' in inp.message) stored = await deps.messages.putLoose(msg);
      if (out.kind === 'transformed') {
        verdict.preview = preview(out.subject);
        if (inp.args !== undefined) verdict.args = out.subject as JsonObject;
        else if (inp.value !== undefined) {
          verdict.value = out.subject;
          verdict.text = subjectText(out.subject);
        } else if (inp.head !== undefined) {
          verdict.value = out.subject;
          verdict.text = jsonOutput ? JSON.stringify(out.subject) : subjectText(out.subject);
        } else if (!msg) verdict.text = subjectText(out.subject);
      }
      // An ephemeral run's history holds no transformed subject.
      const ephemeral = await keepVerdictOutOfHistory(deps.messages, verdict, agent.tools.refs.find((t) => t.tool_id === inp.tool)?.sensitive_fields ?? []);
      for (const r of out.results) {
        if (!r.passed) logInfo('guardrail triggered', { agent_id: inp.agent_id, position: inp.position, guardrail: r.ref, action: r.action, score: r.score, tool: inp.tool });
      }
      return {
        verdict,
        results: ephemeral ? out.results.map(({ transformed_text: _kept, ...r }) => r) : out.results,
        warnings: out.warnings,
        triggered: out.triggered,
        ...(out.first_triggered ? { first_triggered: out.first_triggered } : {}),
        ...(stored ? { stored } : {}),
      };
    },
  };
}
