/**
 * The platform's PII pass for `policies.pii_redaction` (seed 001 "pii_redaction"): detects names,
 * e-mail addresses, phone numbers, account/card numbers and national identifiers in text and
 * replaces each with the seed's typed placeholder ([PERSON], [EMAIL], [PHONE], ...). Pure and
 * deterministic (rules, no model), so the same text always redacts the same way.
 *
 * Names are found only next to a cue ("my name is", "Mr.", "Dear", "Regards,"...): a capitalised
 * word alone is not a name (sentence starts, products, places), so recall on bare names is traded
 * for no false positives on ordinary prose (docs/spec-decisions.md 140).
 */
import type { JsonValue } from '../compiler/types';

export type PiiKind = 'PERSON' | 'EMAIL' | 'PHONE' | 'ACCOUNT_NUMBER' | 'CARD_NUMBER' | 'NATIONAL_ID' | 'IP_ADDRESS';

interface Rule {
  kind: PiiKind;
  re: RegExp;
  /** Keep the match only when this holds (e.g. a Luhn check). */
  accept?: (m: string) => boolean;
  /** Capture group holding the PII (the rest of the match is a cue kept as written). */
  group?: number;
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

const NAME = "[A-Z][a-zà-ÿ'’-]+(?:[ \\t]+(?:[A-Z][a-zà-ÿ'’-]+|[A-Z]\\.)){0,2}";
const NAME_CUES = [
  "(?:my|his|her|their|the customer's|customer) name is",
  'name\\s*:',
  "I am|I'm|this is|signed|regards,|thanks,|thank you,|sincerely,|cheers,|dear|hi|hello",
  '(?:Mr|Mrs|Ms|Miss|Dr|Prof)\\.?',
];

/** Order matters: a span replaced by an earlier rule is not seen by later ones. */
const RULES: Rule[] = [
  { kind: 'EMAIL', re: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g },
  // IBAN (country code, check digits, 11–30 alphanumerics, optionally grouped by four).
  { kind: 'ACCOUNT_NUMBER', re: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g, accept: (m) => m.replace(/ /g, '').length >= 15 },
  // "account 12345678", "acct no. 0012-3456-78", "account number: 998877"
  { kind: 'ACCOUNT_NUMBER', re: /\b(?:account|acct|a\/c)(?:\s*(?:number|no\.?|#))?\s*[:#]?\s*((?:\d[ -]?){5,19}\d)\b/gi, group: 1 },
  {
    kind: 'CARD_NUMBER',
    re: /(?<![\w-])(?:\d[ -]?){12,18}\d(?![\w-])/g,
    accept: (m) => {
      const d = digitsOf(m);
      return d.length >= 13 && d.length <= 19 && luhn(d);
    },
  },
  // US SSN, UK National Insurance number, "passport/ID/SSN ... <id>".
  { kind: 'NATIONAL_ID', re: /\b\d{3}-\d{2}-\d{4}\b/g },
  { kind: 'NATIONAL_ID', re: /\b[A-CEGHJ-PR-TW-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/g },
  { kind: 'NATIONAL_ID', re: /\b(?:passport|national id|id card|ssn|social security|tax id|nino)(?:\s*(?:number|no\.?|#))?\s*[:#]?\s*([A-Z0-9][A-Z0-9-]{5,17})\b/gi, group: 1 },
  { kind: 'IP_ADDRESS', re: /\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b/g },
  {
    kind: 'PHONE',
    re: /(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]?\d{2,4}){1,4}(?![\w])/g,
    // 9–15 digits with a leading + / (area) or separators; a bare digit run is an account number below.
    accept: (m) => {
      const d = digitsOf(m);
      return d.length >= 9 && d.length <= 15 && (/^[+(]/.test(m) || /[ .-]/.test(m.trim()));
    },
  },
  { kind: 'ACCOUNT_NUMBER', re: /(?<![\w.-])\d{8,17}(?![\w.-])/g },
  ...NAME_CUES.map((cue): Rule => ({ kind: 'PERSON', re: new RegExp(`\\b(?:${cue})[ \\t]+(${NAME})`, cue.startsWith('(?:Mr') ? 'g' : 'gi'), group: 1 })),
];

export interface Redaction {
  text: string;
  /** Placeholder kind -> how many were replaced. */
  found: Partial<Record<PiiKind, number>>;
}

/** Words that follow a cue but are not names ("I am Happy to help" is still not a name). */
const NOT_NAMES = new Set(['I', 'The', 'This', 'That', 'It', 'We', 'You', 'Here', 'There', 'Not', 'Sorry', 'Happy', 'Glad', 'Writing', 'Calling', 'Looking', 'Trying', 'Team', 'Support', 'Customer', 'Sir', 'Madam', 'All', 'Everyone']);

/** Replace every detected entity in `text` by its typed placeholder. */
export function redactText(text: string): Redaction {
  const found: Partial<Record<PiiKind, number>> = {};
  let out = text;
  for (const rule of RULES) {
    out = out.replace(rule.re, (...args: unknown[]) => {
      const m = args[0] as string;
      const part = rule.group ? (args[rule.group] as string | undefined) : m;
      if (!part) return m;
      if (rule.accept && !rule.accept(part)) return m;
      const at = m.lastIndexOf(part);
      let name = part;
      if (rule.kind === 'PERSON') {
        // Case-insensitive cues make NAME case-insensitive too: the name is the leading run of capitalised words.
        const words = part.split(/([ \t]+)/);
        let n = 0;
        while (n < words.length && /^[A-Z]/.test(words[n]) && !NOT_NAMES.has(words[n].replace(/[.,]$/, ''))) n += 2;
        if (n === 0) return m;
        name = words.slice(0, n - 1).join('');
      }
      found[rule.kind] = (found[rule.kind] ?? 0) + 1;
      return m.slice(0, at) + `[${rule.kind}]` + part.slice(name.length);
    });
  }
  return { text: out, found };
}

/** Redact every string of a JSON value (keys untouched; JSON text inside a string is redacted as text). */
export function redactJson(v: JsonValue, found: Partial<Record<PiiKind, number>> = {}): { value: JsonValue; found: Partial<Record<PiiKind, number>> } {
  const walk = (x: JsonValue): JsonValue => {
    if (typeof x === 'string') {
      const r = redactText(x);
      for (const [k, n] of Object.entries(r.found)) found[k as PiiKind] = (found[k as PiiKind] ?? 0) + (n ?? 0);
      return r.text;
    }
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, walk(y)]));
    return x;
  };
  return { value: walk(v), found };
}

/**
 * Redact a model reply: a JSON document keeps its shape (strings redacted inside it, so an
 * output schema still validates), any other text is redacted as text.
 */
export function redactReply(content: string): Redaction {
  const trimmed = content.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed = JSON.parse(trimmed) as JsonValue;
      const r = redactJson(parsed);
      return { text: Object.keys(r.found).length ? JSON.stringify(r.value) : content, found: r.found };
    } catch {
      // not JSON: redact as text
    }
  }
  return redactText(content);
}

/** "2 EMAIL, 1 PHONE" — what a pass replaced (counts only, never values). */
export function describeFound(found: Partial<Record<PiiKind, number>>): string {
  return Object.entries(found).map(([k, n]) => `${n} ${k}`).join(', ');
}
