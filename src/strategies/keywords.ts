/**
 * Keyword and signal detection (fuseraft's "How routing works", "Signal detection rules", graph
 * "strict line matching"), pure. A keyword is detected per line after stripping the markdown
 * characters `*` and `_`, case-insensitively:
 * - relaxed (keyword routing, state-machine signals): the line is the keyword, or starts with it
 *   followed by whitespace or punctuation (`BUGS FOUND: all issues fixed`);
 * - strict (graph): the line is the keyword and nothing else.
 * Mid-sentence keywords never match. A `handoff(route_keyword)` call replaces text scanning.
 */

export type MatchMode = 'relaxed' | 'strict';

/** Canonical comparison form: `*`/`_` removed, whitespace runs collapsed, trimmed, upper case. */
export function normalizeKeyword(s: string): string {
  return s.replace(/[*_]/g, '').replace(/\s+/g, ' ').trim().toUpperCase();
}

/** Does one line carry `keyword` under `mode`? `keyword` must already be normalized. */
export function lineMatches(line: string, keyword: string, mode: MatchMode): boolean {
  const l = normalizeKeyword(line);
  if (!keyword) return false;
  if (l === keyword) return true;
  if (mode === 'strict' || !l.startsWith(keyword)) return false;
  const next = l.charAt(keyword.length);
  return !/[\p{L}\p{N}]/u.test(next);
}

/**
 * Keywords of `keywords` found in `text`, each once, in order of first appearance (returned as
 * configured). On one line the longest matching keyword wins, so `HANDOFF TO DEVELOPER` is not
 * also read as a shorter keyword `HANDOFF`.
 */
export function detectKeywords(text: string, keywords: readonly string[], mode: MatchMode): string[] {
  const byNorm = new Map<string, string>();
  for (const k of keywords) {
    const n = normalizeKeyword(k);
    if (n && !byNorm.has(n)) byNorm.set(n, k);
  }
  const sorted = [...byNorm.keys()].sort((a, b) => b.length - a.length);
  const found: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const hit = sorted.find((k) => lineMatches(line, k, mode));
    if (hit !== undefined) {
      const original = byNorm.get(hit) as string;
      if (!found.includes(original)) found.push(original);
    }
  }
  return found;
}

/** The configured keyword a `handoff(route_keyword)` argument names (case-insensitive), if any. */
export function resolveHandoff(routeKeyword: string, keywords: readonly string[]): string | undefined {
  const n = normalizeKeyword(routeKeyword);
  return keywords.find((k) => normalizeKeyword(k) === n);
}

/** Signals of one turn: the handoff argument when present (no text scan), else the scanned keywords. */
export function signalsOf(turn: { text: string; handoff?: string }, keywords: readonly string[], mode: MatchMode): { found: string[]; unknownHandoff?: string } {
  if (turn.handoff !== undefined) {
    const k = resolveHandoff(turn.handoff, keywords);
    return k === undefined ? { found: [], unknownHandoff: turn.handoff } : { found: [k] };
  }
  return { found: detectKeywords(turn.text, keywords, mode) };
}

/** Same keyword? (the comparison every strategy uses). */
export function sameKeyword(a: string, b: string): boolean {
  return normalizeKeyword(a) === normalizeKeyword(b);
}
