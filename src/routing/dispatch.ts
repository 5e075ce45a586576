/**
 * The Agent Definition Specification's `routing` for dispatch systems: score the active agents of a registry against a request
 * by their `intents`, `trigger_phrases` and `priority`, pure and deterministic.
 *
 * The rule (docs/cli.md, "Dispatch and the input form"):
 *  - A trigger phrase matches when all its words appear in the request as a contiguous run of whole
 *    words (case-insensitive, punctuation ignored): +3 each.
 *  - An intent label (`billing_question`) is split on `_`, `-` and spaces; all its words present
 *    (in any order) is a full intent match: +2 each; at least half of them present: +1.
 *  - Tier: 2 when any trigger phrase or full intent matched, 1 when only partial intents did, 0
 *    otherwise (not a candidate).
 *  - Ranking: tier, then `priority` (0–100, default 50; the Agent Definition Specification: "higher values win when multiple
 *    agents match"), then score, then agent_id (stable).
 * Routing metadata never changes what an agent does once invoked: this only picks which one runs.
 */

export interface RoutingMeta {
  intents?: string[];
  trigger_phrases?: string[];
  priority?: number;
  fallback_agents?: string[];
}

export interface DispatchCandidate { agent_id: string; routing?: RoutingMeta }

export interface Match { kind: 'trigger' | 'intent' | 'partial-intent'; value: string; points: number }

export interface Ranked {
  agent_id: string;
  tier: 0 | 1 | 2;
  priority: number;
  score: number;
  matches: Match[];
  fallback_agents: string[];
}

export const DEFAULT_PRIORITY = 50;

/** Lower-case words of a text, punctuation dropped (letters and digits of any script kept). */
export function words(text: string): string[] {
  return text.toLowerCase().normalize('NFKC').split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

function containsRun(hay: string[], needle: string[]): boolean {
  if (!needle.length || needle.length > hay.length) return false;
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

export function scoreAgent(text: string, c: DispatchCandidate): Ranked {
  const w = words(text);
  const present = new Set(w);
  const r = c.routing ?? {};
  const matches: Match[] = [];
  for (const p of r.trigger_phrases ?? []) if (containsRun(w, words(p))) matches.push({ kind: 'trigger', value: p, points: 3 });
  for (const intent of r.intents ?? []) {
    const iw = words(intent.replace(/[_-]/g, ' '));
    if (!iw.length) continue;
    const hit = iw.filter((x) => present.has(x)).length;
    if (hit === iw.length) matches.push({ kind: 'intent', value: intent, points: 2 });
    else if (hit * 2 >= iw.length && hit > 0) matches.push({ kind: 'partial-intent', value: intent, points: 1 });
  }
  const tier = matches.some((m) => m.kind !== 'partial-intent') ? 2 : matches.length ? 1 : 0;
  return {
    agent_id: c.agent_id,
    tier,
    priority: r.priority ?? DEFAULT_PRIORITY,
    score: matches.reduce((n, m) => n + m.points, 0),
    matches,
    fallback_agents: r.fallback_agents ?? [],
  };
}

/** Every candidate scored, best first (tier, priority, score, agent_id); non-matching ones last. */
export function rankAgents(text: string, candidates: DispatchCandidate[]): Ranked[] {
  return candidates.map((c) => scoreAgent(text, c)).sort((a, b) =>
    b.tier - a.tier || b.priority - a.priority || b.score - a.score || (a.agent_id < b.agent_id ? -1 : a.agent_id > b.agent_id ? 1 : 0));
}

/** The agents to try in order: the winner, then its fallback_agents (each once, never the winner again). */
export function attemptOrder(winner: Ranked): string[] {
  const out = [winner.agent_id];
  for (const f of winner.fallback_agents) if (!out.includes(f)) out.push(f);
  return out;
}

/** One line per candidate for `--explain`. */
export function explainRanking(ranked: Ranked[]): string {
  return ranked.map((r, i) => {
    const why = r.matches.length ? r.matches.map((m) => `${m.kind} "${m.value}" +${m.points}`).join(', ') : 'no trigger phrase or intent matched';
    return `${String(i + 1).padStart(2)}. ${r.agent_id.padEnd(28)} tier ${r.tier}  priority ${String(r.priority).padStart(3)}  score ${String(r.score).padStart(2)}  ${why}`;
  }).join('\n');
}

/**
 * The agent's input for a plain-text request: the text in its first required string property
 * (else its first string property). Undefined when the schema has none: the caller must pass
 * `--input` then.
 */
export function inputFromText(schema: unknown, text: string): Record<string, string> | undefined {
  const s = schema && typeof schema === 'object' ? (schema as Record<string, unknown>) : {};
  const props = s.properties && typeof s.properties === 'object' ? (s.properties as Record<string, { type?: unknown }>) : {};
  const strings = Object.keys(props).filter((k) => props[k]?.type === 'string');
  const required = Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === 'string') : [];
  const field = strings.find((k) => required.includes(k)) ?? strings[0];
  return field ? { [field]: text } : undefined;
}
