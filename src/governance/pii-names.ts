/**
 * Person names without a cue phrase, for the PII engine (src/governance/pii.ts): compromise's
 * part-of-speech tagger (`nlp(text).people()`) finds names mid-sentence, in all-caps text and in
 * JSON tool results; a few rules around it fix what it gets wrong on platform text:
 *  - JSON punctuation (quotes, braces, brackets, backslashes) is turned into line breaks of the
 *    same length before tagging (offsets stay those of the input): the tagger reads `"name":"Maria
 *    Garcia"` as one token run and misses the name otherwise;
 *  - a span is trimmed to its letters, loses a leading honorific ("Dr." stays as written) and a
 *    possessive "'s", and must start with a capital letter (a lower-case word the tagger calls a
 *    name — "will", "may" — is too often not one);
 *  - a company named after people ("Morgan Stanley", "Wells Fargo") or a span followed by a
 *    company, street or place word ("Jackson Hewitt Inc", "Victoria Street") is not a person.
 * Pure and deterministic (no model file, no I/O), but it loads ~2 MB of lexicon and costs
 * milliseconds per text: it runs in activities only (no workflow code imports the engine), and
 * compromise is loaded on first use.
 */
import type Nlp from 'compromise';

let tagger: typeof Nlp | undefined;
let lexicon: Record<string, unknown> | undefined;
/**
 * compromise, loaded on the first text that may hold a name: its lexicon takes from a few hundred
 * ms to seconds to load, which a process that never redacts (the CLI, a worker without
 * pii_redaction or a pii-regex guardrail) should not pay.
 */
function nlp(text: string): ReturnType<typeof Nlp> {
  tagger ??= require('compromise') as typeof Nlp;
  return tagger(text);
}
function inLexicon(word: string): boolean {
  lexicon ??= (tagger as unknown as { model(): { one: { lexicon: Record<string, unknown> } } }).model().one.lexicon;
  return lexicon[word] !== undefined;
}

const HONORIFIC = /^(?:(?:Mr|Mrs|Ms|Mx|Miss|Dr|Prof|Sir|Dame|Lord|Lady|Herr|Frau|Mme|Mlle|Sr|Sra|Srta)(?:\.?\s+|\.?$))+/i;

/**
 * Companies and products named after people, which the tagger calls persons. A small list kept
 * here on purpose: add a name when a deployment's text shows it redacted.
 */
const ORG_NAMES = [
  'Morgan Stanley', 'Goldman Sachs', 'Wells Fargo', 'Johnson & Johnson', 'Charles Schwab', 'Merrill Lynch', 'Dow Jones',
  'Ernst & Young', 'Marks & Spencer', 'Procter & Gamble', 'Rolls Royce', 'Rolls-Royce', 'Aston Martin', 'Alfa Romeo',
  'Mercedes Benz', 'Mercedes-Benz', 'Jackson Hewitt', 'Lincoln Financial', 'Hugo Boss', 'Calvin Klein', 'Ralph Lauren',
  'Tommy Hilfiger', 'Louis Vuitton', 'Dolce & Gabbana', 'Harley Davidson', 'Harley-Davidson', 'Ben & Jerry', 'Dr Pepper',
  'John Deere', 'Johnnie Walker', 'Jack Daniels', 'Estee Lauder', 'Bang & Olufsen', 'Lloyds', 'Barclays', 'Sainsbury',
  'Alexa', 'Siri', 'Cortana',
];
const ORG_RE = new RegExp(`(?<![\\p{L}])(?:${ORG_NAMES.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+')).join('|')})(?:'s)?(?![\\p{L}])`, 'giu');

/** A word after the span that makes it an organisation or a place, not a person. */
const ORG_OR_PLACE_NEXT = /^[\s,]*(?:&\s*(?:Co|Sons|Partners)\b|(?:Inc|Ltd|LLC|LLP|GmbH|AG|SA|SAS|BV|NV|plc|Corp|Corporation|Company|Co|Group|Holdings|Bank|Capital|Financial|Foundation|University|College|School|Institute|Hospital|Clinic|Hotel|Street|St|Road|Rd|Avenue|Ave|Lane|Boulevard|Square|Park|Station|Airport|Bridge)\b)/;

const JSON_PUNCT = /["{}[\]\\]/g;

/**
 * Cities that are also first names: alone, right after a place word ("offices in Paris, Austin
 * and Victoria", "flew to Florence"), they are places.
 */
const PLACE_NAMES = new Set(['Austin', 'Victoria', 'Florence', 'Charlotte', 'Chelsea', 'Jackson', 'Madison', 'Savannah', 'Phoenix', 'Orlando', 'Houston', 'Eugene', 'Sydney', 'Adelaide', 'Regina', 'Lincoln', 'Columbus', 'Sofia', 'Santiago', 'Georgia', 'Paris', 'Lyon', 'Jordan', 'Chad', 'Kingston', 'Hamilton', 'Wellington', 'Darwin', 'Beverly', 'Aurora', 'Alexandria', 'Valencia', 'Florida', 'Virginia', 'Carolina', 'Luzern', 'Lourdes']);
const PLACE_BEFORE = /\b(?:in|to|from|near|at|via|visit(?:ed|ing)?|offices?|branch(?:es)?|city(?: of)?|town|destination|origin|location|based|flew|moved|travel(?:led|ed)?)\b[^.!?;\n]{0,40}$/i;

/** JSON keys whose value is a place: a city that is also a first name there is the city. */
const PLACE_KEY = /(?:^|_)(?:city|town|country|state|region|location|place|destination|origin|county|province)$/i;

/** Whether a JSON string under `key` is one of the cities that are also first names ({"city": "Austin"}). */
export function isPlaceValue(key: string, value: string): boolean {
  return PLACE_KEY.test(key) && PLACE_NAMES.has(value.trim());
}

interface TaggedPerson {
  /** The match's own offset counts punctuation before the first term in its length: the terms' offsets are exact. */
  terms: Array<{ offset: { start: number; length: number } }>;
}
interface TaggedTerm {
  text: string;
  tags: string[];
  offset: { start: number; length: number };
}

/** Words before a name that the tagger does not know ("signed by Oluwaseun Adeyemi", "to Priya Raman"). */
const NAME_BEFORE = new Set(['by', 'to', 'with', 'from', 'for', 'and', 'ask', 'asked', 'contact', 'contacted', 'call', 'called', 'cc', 'thank', 'thanks', 'met', 'meet', 'told', 'tell', 'email', 'emailed', 'told', 'named', 'dear', 'hi', 'hello', 'mr', 'mrs', 'ms', 'dr']);

/**
 * Two or three capitalised words the tagger's lexicon does not know (so not a dictionary word, a
 * place or a brand it has), tagged as a proper noun, right after a word that introduces a person:
 * names the lexicon lacks, which the tagger leaves as plain proper nouns.
 */
function unknownNameRuns(sentences: Array<{ terms: TaggedTerm[] }>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const { terms } of sentences) {
    for (let i = 1; i < terms.length; i++) {
      if (!NAME_BEFORE.has(terms[i - 1].text.toLowerCase().replace(/[^\p{L}]/gu, ''))) continue;
      let j = i;
      while (j < terms.length && j - i < 3) {
        const t = terms[j];
        const word = t.text.replace(/[^\p{L}'’-]/gu, '');
        if (!/^\p{Lu}\p{Ll}/u.test(word) || !t.tags.includes('ProperNoun') || t.tags.some((g) => g === 'Place' || g === 'Organization' || g === 'Plural' || g === 'Acronym')) break;
        if (inLexicon(word.toLowerCase())) break;
        j++;
        if (/[^\p{L}'’-]$/u.test(t.text)) break; // a comma or period ends the name
      }
      if (j - i >= 2) out.push([terms[i].offset.start, terms[j - 1].offset.start + terms[j - 1].offset.length]);
      i = Math.max(i, j);
    }
  }
  return out;
}

/** [start, end) spans of person names in `text` (offsets into `text`). */
export function personSpans(text: string): Array<[number, number]> {
  // no capitalised word of two letters or more: no name the rules below would keep
  if (!/\p{Lu}[\p{L}'’-]*\p{L}/u.test(text)) return [];
  const doc = nlp(text.replace(JSON_PUNCT, '\n'));
  const tagged = (doc.people().json({ offset: true }) as TaggedPerson[])
    .filter((p) => p.terms.length)
    .map(({ terms }) => ({ start: terms[0].offset.start, length: terms[terms.length - 1].offset.start + terms[terms.length - 1].offset.length - terms[0].offset.start }));
  tagged.push(...unknownNameRuns(doc.json({ offset: true }) as Array<{ terms: TaggedTerm[] }>).map(([a, b]) => ({ start: a, length: b - a })));
  if (!tagged.length) return [];
  const orgs: Array<[number, number]> = [];
  for (const m of text.matchAll(ORG_RE)) orgs.push([m.index ?? 0, (m.index ?? 0) + m[0].length]);
  const out: Array<[number, number]> = [];
  for (const offset of tagged) {
    let start = offset.start;
    let end = offset.start + offset.length;
    const trim = (): string => {
      const s0 = text.slice(start, end);
      const lead = /^[^\p{L}]*/u.exec(s0)?.[0].length ?? 0;
      const trail = /[^\p{L}]*$/u.exec(s0.slice(lead))?.[0].length ?? 0;
      start += lead;
      end -= trail;
      return text.slice(start, end);
    };
    let s = trim();
    start += HONORIFIC.exec(s)?.[0].length ?? 0;
    s = trim();
    const possessive = /['’]s$/i.exec(s);
    if (possessive) {
      end -= possessive[0].length;
      s = trim();
    }
    if (!s || !/^\p{Lu}/u.test(s)) continue;
    if (orgs.some(([a, b]) => start < b && end > a)) continue;
    if (ORG_OR_PLACE_NEXT.test(text.slice(end, end + 40))) continue;
    if (PLACE_NAMES.has(s) && PLACE_BEFORE.test(text.slice(Math.max(0, start - 60), start))) continue;
    out.push([start, end]);
  }
  return out;
}
