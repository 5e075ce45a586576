/**
 * The platform's one PII engine: `policies.pii_redaction` (the Agent Format's "names, email
 * addresses, phone numbers, account numbers, national identifiers"), the `pii-regex` guardrail,
 * the audit log, telemetry, memory and the strategy selector all use it. It finds
 * person names (with or without a cue phrase), e-mail addresses, phone numbers (international
 * formats too), street addresses, account numbers (IBANs with their checksum, "account ..."
 * numbers, long digit runs), Luhn-checked card numbers, national identifiers (US SSN, UK NINO,
 * Spanish DNI/NIE, Italian codice fiscale, French NIR, Aadhaar, and any number after an identity
 * cue) and IP addresses, and replaces each by its typed placeholder (`[PERSON]`, `[EMAIL]`, ...).
 *
 * Rules run in order over the text; what an earlier rule claimed is blanked for the later ones,
 * so a span has one kind. Pure and deterministic (rules and a lexicon-based tagger, no model, no
 * I/O): the same text always redacts the same way. Names come from compromise's tagger
 * (src/governance/pii-names.ts), which is too heavy for the workflow sandbox: no workflow code
 * imports this module (test/policies/pii-sandbox.unit.test.ts keeps it so).
 */
import type { JsonValue } from '../compiled/types';
import { PII_KIND_ALIASES, PII_KINDS, placeholder, type PiiKind } from './pii-kinds';
import { isPlaceValue, personSpans } from './pii-names';

export type { PiiKind } from './pii-kinds';

/** What a rule sees besides its match: the whole text and where the value starts. */
export interface RuleContext {
  text: string;
  start: number;
}

/** One detector: a regular expression (value = whole match or capture group) or a span finder. */
export interface PiiRule {
  /** Stable rule name (`email`, `iban`, `ssn`, ...); the guardrail's former kind names select rules by it. */
  id: string;
  /** Placeholder kind: a PiiKind, or a custom pattern's kind. */
  kind: string;
  re?: RegExp;
  /** Capture group holding the PII (the rest of the match is a cue kept as written). */
  group?: number;
  /** Keep the match only when this holds (a checksum, a context test). */
  accept?: (value: string, ctx: RuleContext) => boolean;
  /** Span finder for detectors that are not a regular expression. */
  find?: (text: string) => Array<[number, number]>;
}

export interface PiiSpan {
  start: number;
  end: number;
  kind: string;
  rule: string;
}

const digitsOf = (s: string): string => s.replace(/\D/g, '');

/** The Luhn checksum card numbers carry (a 16-digit run that fails it is not a card number). */
export function luhn(digits: string): boolean {
  let sum = 0;
  let dbl = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (dbl) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    dbl = !dbl;
  }
  return sum % 10 === 0;
}

/** ISO 13616 check: the IBAN, rotated by four and with letters as numbers, is 1 modulo 97. */
export function ibanValid(iban: string): boolean {
  const s = iban.replace(/ /g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(s)) return false;
  let rem = 0;
  for (const ch of s.slice(4) + s.slice(0, 4)) {
    const v = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rem = (rem * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rem === 1;
}

const VERHOEFF_D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6], [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1], [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const VERHOEFF_P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2], [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1], [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];

/** The Verhoeff checksum Aadhaar numbers carry. */
export function verhoeff(digits: string): boolean {
  let c = 0;
  const rev = [...digits].reverse();
  for (let i = 0; i < rev.length; i++) c = VERHOEFF_D[c][VERHOEFF_P[i % 8][rev[i].charCodeAt(0) - 48]];
  return c === 0;
}

/** Spanish DNI (8 digits + letter) / NIE (X|Y|Z + 7 digits + letter): the letter is the number mod 23. */
function dniValid(id: string): boolean {
  const s = id.replace(/-/g, '').toUpperCase();
  const n = Number(s.slice(0, -1).replace(/^X/, '0').replace(/^Y/, '1').replace(/^Z/, '2'));
  return 'TRWAGMYFPDXBNJZSQVHLCKE'[n % 23] === s.slice(-1);
}

/** French NIR (social security number): the last two digits are 97 − (the first 13 mod 97). */
function nirValid(id: string): boolean {
  const d = digitsOf(id);
  return d.length === 15 && 97 - Number(BigInt(d.slice(0, 13)) % 97n) === Number(d.slice(13));
}

/**
 * A number right after one of these words is a reference, not PII: "order 12345678", "invoice
 * no. 9981234567", "ticket #44001234", "version 10.0.0.1". Applies to the shape-only rules
 * (long digit runs, phones without a + prefix, IPv4).
 */
const REFERENCE_BEFORE = /(?:\b(?:order|invoice|ticket|tracking|ref|reference|case|sku|po|item|part|serial|model|version|ver|build|release|batch|lot|shipment|parcel|confirmation|booking|reservation|transaction|txn|request|job|issue|bug|pr)\b\.?\s*(?:number|no\.?|num|#|id|code)?\s*(?:is\s*)?[:#]?\s*|#|\bv)$/i;
const notReference = (_v: string, ctx: RuleContext): boolean => !REFERENCE_BEFORE.test(ctx.text.slice(Math.max(0, ctx.start - 40), ctx.start));

/** A phone cue close before a short local number ("call ... at 555 0100"). */
const PHONE_CUE_BEFORE = /\b(?:call|calling|phone|tel|telephone|mobile|cell|dial|ring|text|sms|fax|whatsapp|reach)\b[^.!?\n]{0,30}$/i;

/** JSON keys whose string value is a person's name (a tool result's `"customer_name": "..."`). */
export const PERSON_KEY = /^(?:(?:full|first|last|given|family|middle|sur|maiden|customer|contact|client|user|account_?holder|holder|patient|employee|person|sender|recipient|owner|author|assignee|reporter|passenger|guest|traveller|traveler|cardholder|beneficiary|applicant)[_ -]?name|surname|fullname|firstname|lastname|person|assignee|reporter|cardholder|beneficiary|passenger)$/i;
const looksLikeName = (v: string): boolean => /^\p{Lu}[\p{L}'’.-]*(?:\s+\p{L}[\p{L}'’.-]*){0,4}$/u.test(v.trim());

const NAME = "\\p{Lu}[\\p{Ll}'’-]+(?:[ \\t]+(?:\\p{Lu}[\\p{Ll}'’-]+|\\p{Lu}\\.)){0,2}";
const NAME_CUES = [
  "(?:my|his|her|their|the customer's|customer) name is",
  'name\\s*:',
  "I am|I'm|this is|signed|regards,|thanks,|thank you,|sincerely,|cheers,|dear|hi|hello",
  '(?:Mr|Mrs|Ms|Miss|Dr|Prof)\\.?',
];
/** Words that follow a cue but are not names ("I am Happy to help" is still not a name). */
const NOT_NAMES = new Set(['I', 'The', 'This', 'That', 'It', 'We', 'You', 'Here', 'There', 'Not', 'Sorry', 'Happy', 'Glad', 'Writing', 'Calling', 'Looking', 'Trying', 'Team', 'Support', 'Customer', 'Sir', 'Madam', 'All', 'Everyone', 'World', 'Folks', 'Again', 'Friend', 'Friends']);

/** The leading run of capitalised words of a cue's match that are not NOT_NAMES ("" when none). */
function cuedName(part: string): string {
  const words = part.split(/([ \t]+)/);
  let n = 0;
  while (n < words.length && /^\p{Lu}/u.test(words[n]) && !NOT_NAMES.has(words[n].replace(/[.,]$/, ''))) n += 2;
  return n === 0 ? '' : words.slice(0, n - 1).join('');
}

const STREET = "(?:Street|Road|Avenue|Boulevard|Lane|Drive|Court|Way|Place|Square|Terrace|Parkway|Highway|Close|Crescent|Row|Walk|Gardens|Circle|Trail|(?:St|Rd|Ave|Blvd|Ln|Ct|Pl|Sq|Pkwy|Hwy|Cir)\\.?)";
const UNIT = "(?:,?\\s(?:Apt|Apartment|Suite|Ste|Unit|Flat|Floor|Fl)\\.?\\s?#?[A-Z0-9-]+)?";
const WORD = "\\p{Lu}[\\p{L}'’.-]*";
/** A capitalised word of a city name (not an all-caps postcode, no trailing period). */
const CITY_WORD = "\\p{Lu}\\p{Ll}[\\p{L}'’-]*";
/** ", Springfield, IL 62704" / ", London NW1 6XE" / ", 75001 Paris" after a street line. */
const CITY_TAIL = `(?:,\\s(?:\\d{4,5}\\s)?${CITY_WORD}(?:\\s${CITY_WORD}){0,2}(?:,?\\s(?:[A-Z]{2}\\s\\d{5}(?:-\\d{4})?|[A-Z]{1,2}\\d[A-Z\\d]?\\s?\\d[A-Z]{2}))?)?`;
const ROMANCE_STREET = `(?:Rue|rue|Avenue|avenue|Boulevard|boulevard|Calle|calle|Avenida|avenida|Via|via|Viale|viale|Piazza|piazza|Rua|rua|Plaza|plaza|Paseo|paseo|Carrer|carrer|Place|place)\\s(?:(?:de|del|de la|des|du|di|da|do|dos|das|della|dei|la|las|los|le)\\s)*${WORD}(?:\\s${WORD}){0,3}`;
const ADDRESS_RES = [
  // 221B Baker Street, 1600 Pennsylvania Avenue NW, Apt 4
  new RegExp(`\\b\\d{1,5}[A-Za-z]?,?\\s(?:${WORD}\\s){1,3}${STREET}(?:\\s(?:NW|NE|SW|SE|N|S|E|W))?(?![\\p{L}])${UNIT}${CITY_TAIL}`, 'gu'),
  // Hauptstraße 5, Keizersgracht 123, Storgatan 12
  new RegExp(`\\b\\p{Lu}[\\p{L}-]*(?:straße|strasse|str\\.|weg|gasse|platz|allee|damm|ring|laan|straat|gracht|plein|vej|gade|gatan|gata|veien|katu)\\s\\d{1,4}[a-z]?(?![\\p{L}\\d])${CITY_TAIL}`, 'gu'),
  // 12 rue de Rivoli / Calle Mayor 10 / Via Roma 1 / Avenida da Liberdade 245 (a house number before or after)
  new RegExp(`\\b\\d{1,4},?\\s${ROMANCE_STREET}${CITY_TAIL}|\\b${ROMANCE_STREET},?\\s\\d{1,4}[a-zA-Z]?(?![\\p{L}\\d])${CITY_TAIL}`, 'gu'),
  /\bP\.?\s?O\.?\s?Box\s\d{1,6}\b/gi,
];

/** The engine's rules. Order matters: a span claimed by an earlier rule is not seen by later ones. */
export const PII_RULES: PiiRule[] = [
  { id: 'email', kind: 'EMAIL', re: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g },
  // A tool result's "customer_name": "Maria Garcia" (JSON text inside a string).
  { id: 'person_key', kind: 'PERSON', re: /"([A-Za-z_ -]{4,40})"\s*:\s*"([^"\\]{1,80})"/g, group: 2, accept: (v, ctx) => looksLikeName(v) && PERSON_KEY.test(/"([^"]+)"\s*:\s*"$/.exec(ctx.text.slice(Math.max(0, ctx.start - 50), ctx.start))?.[1] ?? '') },
  { id: 'iban', kind: 'ACCOUNT_NUMBER', re: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g, accept: ibanValid },
  // "account 12345678", "acct no. 0012-3456-78", "account number: 998877"
  { id: 'account', kind: 'ACCOUNT_NUMBER', re: /\b(?:account|acct|a\/c)(?:\s*(?:number|no\.?|#))?\s*(?:is\s*)?[:#]?\s*((?:\d[ -]?){5,19}\d)\b/gi, group: 1 },
  {
    id: 'card',
    kind: 'CARD_NUMBER',
    re: /(?<![\w-])(?:\d[ -]?){12,18}\d(?![\w-])/g,
    accept: (m) => {
      const d = digitsOf(m);
      return d.length >= 13 && d.length <= 19 && luhn(d);
    },
  },
  { id: 'ssn', kind: 'NATIONAL_ID', re: /\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b/g },
  { id: 'nino', kind: 'NATIONAL_ID', re: /\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/g },
  {
    id: 'national_id',
    kind: 'NATIONAL_ID',
    re: /\b(?:passport|national id|national identity|id card|identity card|id number|identity number|ssn|social security(?: number)?|social insurance(?: number)?|sin|tax id|tin|nino|ni number|bsn|dni|nie|nif|cpf|curp|personnummer|aadhaar|steuer-?id|codice fiscale|insee|nir)(?:\s*(?:number|no\.?|#))?\s*(?:is\s*)?[:#]?\s*((?:[A-Z]*\d[A-Z0-9]*)(?:[ .\/-](?:[A-Z]*\d[A-Z0-9]*)){0,7})\b/gi,
    group: 1,
    accept: (v) => digitsOf(v).length >= 5 && v.replace(/[ .\/-]/g, '').length <= 20,
  },
  { id: 'dni', kind: 'NATIONAL_ID', re: /\b(?:\d{8}|[XYZ]\d{7})-?[A-Z]\b/g, accept: dniValid },
  { id: 'codice_fiscale', kind: 'NATIONAL_ID', re: /\b[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z]\b/g },
  { id: 'nir', kind: 'NATIONAL_ID', re: /\b[12] ?\d{2} ?\d{2} ?\d{2} ?\d{3} ?\d{3} ?\d{2}\b/g, accept: nirValid },
  { id: 'aadhaar', kind: 'NATIONAL_ID', re: /\b[2-9]\d{3}[ -]?\d{4}[ -]?\d{4}\b/g, accept: (m) => verhoeff(digitsOf(m)) },
  { id: 'ipv4', kind: 'IP_ADDRESS', re: /\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b(?!\.\d)/g, accept: notReference },
  { id: 'ipv6', kind: 'IP_ADDRESS', re: /(?<![\w:])(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}(?![\w:])|(?<![\w:])(?:[0-9a-f]{1,4}:){1,6}:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,5})?(?![\w:])/gi, accept: (m) => m.split(':').filter(Boolean).length >= 3 },
  ...ADDRESS_RES.map((re): PiiRule => ({ id: 'address', kind: 'ADDRESS', re })),
  {
    id: 'phone',
    kind: 'PHONE',
    re: /(?<![\w+.])(?<![A-Za-z\d][-/.])(?:(?:\+|00)\d{1,3}[ .-]?)?(?:\(0\)[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,5}){1,5}(?![\w]|[-.][A-Za-z\d])/g,
    // 9–15 digits with a leading + / 00 / (area) or separators; a bare digit run is an account number below.
    accept: (m, ctx) => {
      const d = digitsOf(m);
      if (d.length < 9 || d.length > 15) return false;
      if (/^(?:\+|00|\()/.test(m)) return true;
      return /[ .-]/.test(m.trim()) && notReference(m, ctx);
    },
  },
  // A local number right after a phone cue: "call Jane at 555 0100".
  { id: 'phone_local', kind: 'PHONE', re: /(?<![\w+.-])\d{3}[ .-]\d{4}(?![\w]|[.-]\d)/g, accept: (_m, ctx) => PHONE_CUE_BEFORE.test(ctx.text.slice(Math.max(0, ctx.start - 60), ctx.start)) },
  { id: 'account_bare', kind: 'ACCOUNT_NUMBER', re: /(?<![\w.-])\d{8,17}(?![\w.-])/g, accept: notReference },
  ...NAME_CUES.map(
    (cue): PiiRule => ({
      id: 'person_cue',
      kind: 'PERSON',
      re: new RegExp(`\\b(?:${cue})[ \\t]+(${NAME})`, cue.startsWith('(?:Mr') ? 'gu' : 'giu'),
      group: 1,
      accept: (v) => cuedName(v) !== '',
    }),
  ),
  { id: 'person', kind: 'PERSON', find: personSpans },
];

/** Rules for a `config.kinds` list: kinds (any case) select all their rules, former names their one rule. */
export function selectRules(kinds?: readonly string[]): PiiRule[] {
  if (!kinds) return [...PII_RULES];
  const ids = new Set<string>();
  const kindsWanted = new Set<string>();
  for (const k of kinds) {
    if (k.toLowerCase() in PII_KIND_ALIASES) ids.add(PII_KIND_ALIASES[k.toLowerCase() as keyof typeof PII_KIND_ALIASES]);
    if ((PII_KINDS as readonly string[]).includes(k.toUpperCase())) kindsWanted.add(k.toUpperCase());
  }
  return PII_RULES.filter((r) => ids.has(r.id) || kindsWanted.has(r.kind));
}

export interface RedactOptions {
  /**
   * Words or phrases never redacted, as whole words (any case): names that are configuration, not
   * PII — a strategies team's agent names ("Alice", "Planner") the selection model must read and answer with.
   */
  keep?: readonly string[];
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every entity `rules` find in `text`, in rule order (first claim wins; spans never overlap). */
export function detectPii(text: string, rules: readonly PiiRule[] = PII_RULES, opts: RedactOptions = {}): PiiSpan[] {
  const spans: PiiSpan[] = [];
  let masked = text;
  const keep = (opts.keep ?? []).map((k) => k.trim()).filter(Boolean);
  if (keep.length) {
    const re = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${keep.map(escapeRe).join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
    masked = masked.replace(re, (m) => ' '.repeat(m.length));
  }
  for (const rule of rules) {
    const found: Array<[number, number]> = [];
    if (rule.find) found.push(...rule.find(masked));
    else if (rule.re) {
      rule.re.lastIndex = 0;
      for (const m of masked.matchAll(rule.re)) {
        const part = rule.group ? m[rule.group] : m[0];
        if (!part) continue;
        const at = (m.index ?? 0) + (rule.group ? m[0].lastIndexOf(part) : 0);
        if (rule.accept && !rule.accept(part, { text: masked, start: at })) continue;
        let end = at + part.length;
        if (rule.id === 'person_cue') end = at + cuedName(part).length;
        found.push([at, end]);
      }
    }
    for (const [start, end] of found) {
      if (end <= start || spans.some((s) => start < s.end && end > s.start)) continue;
      spans.push({ start, end, kind: rule.kind, rule: rule.id });
      masked = masked.slice(0, start) + ' '.repeat(end - start) + masked.slice(end);
    }
  }
  return spans;
}

/** Replace every span by its placeholder; counts per kind, in rule order. */
function applySpans(text: string, spans: PiiSpan[]): { text: string; found: Record<string, number> } {
  const found: Record<string, number> = {};
  for (const s of spans) found[s.kind] = (found[s.kind] ?? 0) + 1;
  let out = '';
  let at = 0;
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    out += text.slice(at, s.start) + placeholder(s.kind);
    at = s.end;
  }
  return { text: out + text.slice(at), found };
}

/** Redact `text` with a chosen rule set (the guardrail's `kinds` / `patterns`). */
export function redactWith(text: string, rules: readonly PiiRule[], opts: RedactOptions = {}): { text: string; found: Record<string, number> } {
  return applySpans(text, detectPii(text, rules, opts));
}

export interface Redaction {
  text: string;
  /** Placeholder kind -> how many were replaced. */
  found: Partial<Record<PiiKind, number>>;
}

/** Replace every detected entity in `text` by its typed placeholder. */
export function redactText(text: string, opts: RedactOptions = {}): Redaction {
  return applySpans(text, detectPii(text, PII_RULES, opts)) as Redaction;
}

function addFound(into: Record<string, number>, from: Record<string, number | undefined>): void {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + (n ?? 0);
}

/**
 * Apply `redact` to every string of a JSON value (keys untouched). A string under a person key
 * (`customer_name`, `full_name`, ...) that looks like a name is a [PERSON] as a whole.
 */
export function redactJsonWith(
  v: JsonValue,
  redact: (s: string) => { text: string; found: Record<string, number | undefined> },
  found: Record<string, number> = {},
  personKeys = true,
  keep: readonly string[] = [],
): { value: JsonValue; found: Record<string, number> } {
  const kept = new Set(keep.map((k) => k.trim().toLowerCase()));
  const walk = (x: JsonValue, key?: string): JsonValue => {
    if (typeof x === 'string') {
      if (personKeys && key !== undefined && PERSON_KEY.test(key) && looksLikeName(x) && !kept.has(x.trim().toLowerCase())) {
        addFound(found, { PERSON: 1 });
        return placeholder('PERSON');
      }
      if (key !== undefined && isPlaceValue(key, x)) return x;
      const r = redact(x);
      addFound(found, r.found);
      return r.text;
    }
    if (Array.isArray(x)) return x.map((y) => walk(y));
    if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, walk(y, k)]));
    return x;
  };
  return { value: walk(v), found };
}

/** Redact every string of a JSON value (keys untouched; JSON text inside a string is redacted as text). */
export function redactJson(v: JsonValue, found: Partial<Record<PiiKind, number>> = {}, opts: RedactOptions = {}): { value: JsonValue; found: Partial<Record<PiiKind, number>> } {
  return redactJsonWith(v, (s) => redactText(s, opts), found as Record<string, number>, true, opts.keep) as { value: JsonValue; found: Partial<Record<PiiKind, number>> };
}

/**
 * Redact a model reply: a JSON document keeps its shape (strings redacted inside it, so an
 * output schema still validates), any other text is redacted as text.
 */
export function redactReply(content: string, opts: RedactOptions = {}): Redaction {
  const trimmed = content.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed = JSON.parse(trimmed) as JsonValue;
      const r = redactJson(parsed, {}, opts);
      return { text: Object.keys(r.found).length ? JSON.stringify(r.value) : content, found: r.found };
    } catch {
      // not JSON: redact as text
    }
  }
  return redactText(content, opts);
}

/** "2 EMAIL, 1 PHONE" — what a pass replaced (counts only, never values). */
export function describeFound(found: Partial<Record<string, number>>): string {
  return Object.entries(found).map(([k, n]) => `${n} ${k}`).join(', ');
}
