/**
 * The builtin classifier for `policies.blocked_content` (the Agent Definition Specification's "blocked_content"): lexicon and
 * pattern rules per category of the Agent Definition Specification's vocabulary, run on the model's final answer. A match
 * refuses the answer with the category and the rule that matched. Pure and deterministic.
 *
 * It is also a guardrail provider (`blockedContentProvider`, the GuardrailProvider signature of
 * src/activities/guardrails.ts), so a deployment can swap in another classifier for the same
 * categories (createPolicyActivities({ classifier })) or use this one as a builtin guardrail.
 */
import type { JsonObject, JsonValue } from '../compiled/types';

/** The Agent Definition Specification's controlled vocabulary (the compiler warns, AGL014, about any other value). */
export const BLOCKED_CONTENT_CATEGORIES = ['legal_advice', 'medical_advice', 'financial_advice', 'adult_content', 'hate_speech', 'violence'] as const;
export type BlockedCategory = (typeof BLOCKED_CONTENT_CATEGORIES)[number];

interface ContentRule {
  re: RegExp;
  /** What the rule recognises, shown in the refusal. */
  what: string;
}

const GROUPS = '(?:immigrants|refugees|jews|muslims|christians|hindus|women|men|gays|lesbians|trans people|black people|white people|asians|arabs|africans|mexicans|disabled people)';

const RULES: Record<BlockedCategory, ContentRule[]> = {
  legal_advice: [
    { re: /\byou should (?:sue|file (?:a )?(?:lawsuit|suit|claim)|plead (?:guilty|not guilty)|take (?:them|him|her|it) to court)\b/i, what: 'tells the reader to take legal action' },
    { re: /\b(?:in my legal opinion|my legal advice is|as your (?:lawyer|attorney))\b/i, what: 'gives a legal opinion' },
    { re: /\byou (?:have|'ve got) a (?:strong|good|solid|winning) (?:legal )?case\b/i, what: 'assesses the reader\'s legal case' },
    { re: /\b(?:you are|you're) (?:legally )?(?:entitled to sue|liable for|not liable for)\b/i, what: 'states the reader\'s legal liability' },
    { re: /\byou can (?:legally )?(?:break|terminate|void) (?:the|your) (?:contract|lease) (?:because|under|by)\b/i, what: 'advises on voiding a contract' },
  ],
  medical_advice: [
    { re: /\b(?:take|taking|dose of|dosage of|prescribe)\s+\d+(?:[.,]\d+)?\s?(?:mg|milligrams?|mcg|ml|g|tablets?|pills?|capsules?)\b/i, what: 'gives a dosage' },
    { re: /\byou (?:probably |likely |most likely |definitely )?(?:have|are suffering from) (?:a |an )?(?:infection|diabetes|cancer|pneumonia|depression|migraine|flu|covid|strep throat|appendicitis|a heart condition|hypertension)\b/i, what: 'makes a diagnosis' },
    { re: /\b(?:stop|start) taking (?:your|the) (?:medication|meds|medicine|pills|insulin|antibiotics)\b/i, what: 'changes a treatment' },
    { re: /\bmy diagnosis is\b|\bI (?:diagnose|would diagnose)\b/i, what: 'makes a diagnosis' },
    { re: /\btreat (?:it|this|the infection|your \w+) with (?:antibiotics|ibuprofen|paracetamol|acetaminophen|aspirin|steroids|amoxicillin)\b/i, what: 'recommends a treatment' },
  ],
  financial_advice: [
    { re: /\byou should (?:buy|sell|short|invest (?:in|all)|put (?:your|all your) (?:money|savings) (?:in|into))\b/i, what: 'recommends an investment' },
    { re: /\b(?:buy|sell) (?:shares of|stock in|some|more) [A-Z]{1,5}\b/, what: 'recommends a trade' },
    { re: /\bguaranteed (?:returns?|profit|gains?)\b/i, what: 'promises returns' },
    { re: /\b(?:I recommend|I'd recommend|my recommendation is to) (?:buying|selling|investing|shorting)\b/i, what: 'recommends an investment' },
    { re: /\b(?:deduct|write off|claim) (?:it|this|that|the \w+) (?:on|from) your tax(?:es| return)?\b/i, what: 'gives tax advice' },
  ],
  adult_content: [
    { re: /\b(?:sexually explicit|explicit sex|porn(?:ography|ographic)?|xxx|nude (?:photos|pictures|images)|erotic (?:story|scene))\b/i, what: 'sexually explicit material' },
  ],
  hate_speech: [
    { re: new RegExp(`\\b(?:all |those |these )?${GROUPS} (?:are|were) (?:vermin|animals|subhuman|inferior|parasites|a disease|criminals)\\b`, 'i'), what: 'demeans a protected group' },
    { re: new RegExp(`\\b${GROUPS} should (?:be (?:killed|exterminated|deported|banned)|die|go back)\\b`, 'i'), what: 'calls for harm to a protected group' },
    { re: /\b(?:inferior race|master race|ethnic cleansing is (?:good|justified|necessary)|subhumans?)\b/i, what: 'hateful ideology' },
  ],
  violence: [
    { re: /\bhow to (?:make|build|assemble) (?:a |an )?(?:bomb|pipe bomb|explosive|molotov|nail bomb|improvised explosive)\b/i, what: 'instructions for a weapon' },
    { re: /\b(?:step \d|first,|then) .{0,60}\b(?:detonat|ignite the fuse|pack the explosive)/i, what: 'instructions for a weapon' },
    { re: /\b(?:kill|murder|stab|shoot|strangle|poison) (?:him|her|them|someone|your (?:neighbou?r|boss|wife|husband|partner))\b/i, what: 'incites violence against a person' },
    { re: /\b(?:blood (?:spurted|gushed|sprayed)|disembowel(?:ed|led)?|dismember(?:ed)?|gore everywhere)\b/i, what: 'graphic violence' },
  ],
};

export interface ContentVerdict {
  category: BlockedCategory;
  /** What the matched rule recognises, e.g. "gives a dosage". */
  what: string;
  /** The matched text (already PII-redacted when pii_redaction is on: the classifier sees the redacted answer). */
  matched: string;
}

/** The first of `categories` the text falls in, or undefined. Unknown category names are skipped (the compiler warns). */
export function classifyContent(text: string, categories: readonly string[]): ContentVerdict | undefined {
  for (const c of categories) {
    const rules = RULES[c as BlockedCategory];
    if (!rules) continue;
    for (const r of rules) {
      const m = r.re.exec(text);
      if (m) return { category: c as BlockedCategory, what: r.what, matched: m[0].slice(0, 80) };
    }
  }
  return undefined;
}

/** The refusal reason an operator and the caller read. */
export function refusalReason(v: ContentVerdict): string {
  return `the answer was refused by policies.blocked_content: it falls in the category '${v.category}' (${v.what}: "${v.matched}")`;
}

/** The classifier as a guardrail provider: config `categories` (default: the whole vocabulary). */
export function blockedContentProvider(subject: JsonValue, config: JsonObject): { score: number; failed: boolean; findings: string[] } {
  const text = typeof subject === 'string' ? subject : JSON.stringify(subject ?? null);
  const cats = Array.isArray(config.categories) ? (config.categories as JsonValue[]).map(String) : [...BLOCKED_CONTENT_CATEGORIES];
  const v = classifyContent(text, cats);
  return v ? { score: 10, failed: true, findings: [`${v.category}: ${v.what}`] } : { score: 0, failed: false, findings: [] };
}

/** A classifier the policy activity can be given instead of the builtin one. */
export type ContentClassifier = (text: string, categories: readonly string[]) => ContentVerdict | undefined;
