/**
 * Parallel fan-out merges (fuseraft's "MergeConfig fields", "Merge strategies"), pure. `union`,
 * `consensus` and `vote` are computed here; `ranked` and `semantic_diff` need `Merge.Agent`, so
 * they return the request the runtime sends to that agent. When a strategy cannot decide
 * (consensus on disagreement, vote on a tie), `ConflictResolution` is tried in order, then `union`.
 */
import type { MergeConfig, MergeStrategy } from './types';

export interface BranchOutput {
  /** The branch's state (statemachine) or node (graph). */
  position: string;
  agent: string;
  text: string;
}

export type MergeResult =
  | { kind: 'merged'; strategy: MergeStrategy; text: string; note?: string }
  | {
    kind: 'agent';
    strategy: 'ranked' | 'semantic_diff';
    agent: string;
    /** The instruction plus every branch output, for the merge agent's turn. */
    prompt: string;
    /** What to try if the agent cannot reach a decision (pass as the next Merge). */
    fallback: MergeConfig;
  };

/** `union`: every branch output, labelled, in declaration order. */
export function unionText(outputs: readonly BranchOutput[]): string {
  return outputs.map((o) => `[Branch ${o.position}: ${o.agent}]\n${o.text.trim()}`).join('\n\n');
}

/** A branch's final statement: its last non-empty line, compared case- and markdown-insensitively. */
export function finalStatement(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.replace(/[*_]/g, '').replace(/\s+/g, ' ').trim()).filter(Boolean);
  return (lines[lines.length - 1] ?? '').toLowerCase();
}

function consensus(outputs: readonly BranchOutput[]): string | undefined {
  if (outputs.length === 0) return undefined;
  const f = finalStatement(outputs[0].text);
  return outputs.every((o) => finalStatement(o.text) === f) ? outputs[0].text : undefined;
}

/** The output whose final statement most branches share; undefined on a tie for first place. */
function vote(outputs: readonly BranchOutput[]): string | undefined {
  const counts = new Map<string, number>();
  for (const o of outputs) counts.set(finalStatement(o.text), (counts.get(finalStatement(o.text)) ?? 0) + 1);
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  if (ranked.length === 0 || (ranked.length > 1 && ranked[0][1] === ranked[1][1])) return undefined;
  return outputs.find((o) => finalStatement(o.text) === ranked[0][0])?.text;
}

const AGENT_INSTRUCTIONS: Record<'ranked' | 'semantic_diff', string> = {
  ranked: 'Score the branch outputs below and reply with the best result, selected or synthesised, as plain text.',
  semantic_diff: 'Identify where the branch outputs below agree, resolve their conflicts, and reply with a single reconciled output as plain text.',
};

/** Merge branch outputs with `merge` (default `union`). */
export function mergeBranches(outputs: readonly BranchOutput[], merge: MergeConfig = {}): MergeResult {
  const chain: MergeStrategy[] = [merge.Strategy ?? 'union', ...(merge.ConflictResolution ?? [])];
  const tried: string[] = [];
  for (let i = 0; i < chain.length; i++) {
    const s = chain[i];
    if (s === 'union') return { kind: 'merged', strategy: 'union', text: unionText(outputs), note: tried.length ? `${tried.join(', ')} reached no decision` : undefined };
    if (s === 'ranked' || s === 'semantic_diff') {
      if (!merge.Agent) { tried.push(`${s} (no Merge.Agent)`); continue; }
      const rest = chain.slice(i + 1);
      return {
        kind: 'agent', strategy: s, agent: merge.Agent,
        prompt: `${AGENT_INSTRUCTIONS[s]}\n\n${unionText(outputs)}`,
        fallback: rest.length ? { Strategy: rest[0], Agent: merge.Agent, ConflictResolution: rest.slice(1) } : { Strategy: 'union' },
      };
    }
    const text = s === 'consensus' ? consensus(outputs) : vote(outputs);
    if (text !== undefined) return { kind: 'merged', strategy: s, text };
    tried.push(s);
  }
  return { kind: 'merged', strategy: 'union', text: unionText(outputs), note: `${tried.join(', ')} reached no decision` };
}
