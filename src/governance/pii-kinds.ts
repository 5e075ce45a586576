/**
 * The entity kinds of the platform's one PII engine (src/governance/pii.ts) and the names the
 * `pii-regex` guardrail accepts in its `config.kinds`. Constants only (no detector is loaded), so
 * the compiler can check a guardrail's config without loading the name tagger.
 */

/** Every kind the engine detects; each is replaced by its placeholder `[KIND]` (the Agent Format's `[PERSON]`, `[EMAIL]`, ...). */
export const PII_KINDS = ['PERSON', 'EMAIL', 'PHONE', 'ADDRESS', 'ACCOUNT_NUMBER', 'CARD_NUMBER', 'NATIONAL_ID', 'IP_ADDRESS'] as const;
export type PiiKind = (typeof PII_KINDS)[number];

/**
 * The `pii-regex` guardrail's former kind names, kept as aliases so existing registries keep
 * working. Each selects exactly the detector it named before: `iban` is the IBAN rule only (not
 * every account number), `ssn` the US SSN rule only (not every national identifier).
 */
export const PII_KIND_ALIASES = { email: 'email', iban: 'iban', card: 'card', ssn: 'ssn', phone: 'phone' } as const;

/** What `config.kinds` may list: a kind (any case) or one of the former names. */
export const PII_CONFIG_KINDS: readonly string[] = [...new Set([...Object.keys(PII_KIND_ALIASES), ...PII_KINDS.map((k) => k.toLowerCase())])];

/** Whether `name` is a valid `config.kinds` entry (kinds are case-insensitive). */
export function isPiiConfigKind(name: string): boolean {
  return PII_CONFIG_KINDS.includes(name.toLowerCase());
}

/** The placeholder a kind (or a custom pattern's kind) is replaced by: `[EMAIL]`, `[EMPLOYEE_ID]`. */
export function placeholder(kind: string): string {
  return `[${kind.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}]`;
}
