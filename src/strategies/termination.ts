/**
 * Termination strategies (fuseraft's "Termination strategies"), pure: `regex` (the last agent
 * turn's text matches `Pattern`, optionally only for `AgentNames`), `maxiterations` (a fixed
 * number of agent turns), `composite` (stops when any child fires; children may be composite), and
 * `MaxIterations` as a hard safety cap on every type. Checked after every agent turn.
 */
import type { TerminationConfig, Turn } from './types';

export type TerminationResult = { stop: false } | { stop: true; reason: string; strategy: string };

/** Agent turns so far: what `MaxIterations` counts (context entries are not turns). */
export function iterationsOf(transcript: readonly Turn[]): number {
  return transcript.filter((t) => (t.kind ?? 'agent') === 'agent').length;
}

function lastAgentTurn(transcript: readonly Turn[]): Turn | undefined {
  for (let i = transcript.length - 1; i >= 0; i--) if ((transcript[i].kind ?? 'agent') === 'agent') return transcript[i];
  return undefined;
}

function check(c: TerminationConfig, last: Turn | undefined, iterations: number, where: string): TerminationResult {
  if (typeof c.MaxIterations === 'number' && iterations >= c.MaxIterations) {
    return { stop: true, strategy: where, reason: `${iterations} agent turn(s) reached MaxIterations ${c.MaxIterations}` };
  }
  switch (c.Type) {
    case 'maxiterations':
      return { stop: false };
    case 'regex': {
      if (!last || c.Pattern === undefined) return { stop: false };
      if (c.AgentNames && c.AgentNames.length && !c.AgentNames.includes(last.agent)) return { stop: false };
      let re: RegExp;
      try { re = new RegExp(c.Pattern); } catch { return { stop: false }; }
      return re.test(last.text) ? { stop: true, strategy: where, reason: `${last.agent}'s message matches /${c.Pattern}/` } : { stop: false };
    }
    case 'composite': {
      for (const [i, child] of (c.Strategies ?? []).entries()) {
        const r = check(child, last, iterations, `${where}.Strategies[${i}]`);
        if (r.stop) return r;
      }
      return { stop: false };
    }
    default:
      return { stop: false };
  }
}

/** The same check from the last agent turn and the count of agent turns so far (a runtime that does
 * not keep the whole transcript). */
export function checkTerminationAfter(config: TerminationConfig | undefined, last: Turn | undefined, iterations: number): TerminationResult {
  if (!config) return { stop: false };
  return check(config, last, iterations, 'Termination');
}

/** Should the session end after the last turn of `transcript`? No config = never (selection decides). */
export function checkTermination(config: TerminationConfig | undefined, transcript: readonly Turn[]): TerminationResult {
  if (!config) return { stop: false };
  return check(config, lastAgentTurn(transcript), iterationsOf(transcript), 'Termination');
}
