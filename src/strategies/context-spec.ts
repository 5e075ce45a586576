/**
 * fuseraft's agent `Context` spec (AgentConfig.Context), pure: an agent with one does not read the
 * shared conversation (the ContextWindow every other agent reads); its input is the task, the
 * declared artifact sources (the HandoffContext sources, read from the workspace when it is
 * invoked) and, with `own_history` (or `own_history:N`), its own prior turns. What the orchestrator
 * told it since the last agent turn (a correction, nudge or handoff block) is kept too, so a
 * refused turn is still explained to the agent it re-invokes.
 */
import { TRANSCRIPT_LIMITS, windowOf } from './transcript';
import type { TranscriptEntry } from './transcript';
import type { AgentConfigEntry, HandoffContextEntry } from './types';

export const OWN_HISTORY = 'own_history';

/** `own_history` (every own turn the window limits allow) or `own_history:N` (the last N); undefined for another source. */
export function parseOwnHistory(src: string): { n?: number } | undefined {
  if (src === OWN_HISTORY) return {};
  const m = /^own_history:([1-9]\d*)$/.exec(src);
  return m ? { n: Number(m[1]) } : undefined;
}

/** The Context spec of agent `name` in an orchestration block's `Agents`, if it has one. */
export function contextSpecOf(agents: readonly (string | AgentConfigEntry)[] | undefined, name: string): HandoffContextEntry[] | undefined {
  const e = (agents ?? []).find((a): a is AgentConfigEntry => typeof a === 'object' && a !== null && a.Name === name);
  return e?.Context;
}

/** What an agent with a Context spec is given: its artifact sources and whether (and how much of) its own history. */
export interface ContextPlan {
  /** The artifact sources (every entry but own_history), read like HandoffContext. */
  sources: HandoffContextEntry[];
  own?: { n?: number };
}

export function contextPlan(spec: readonly HandoffContextEntry[]): ContextPlan {
  const own = spec.map((e) => parseOwnHistory(e.Source)).find((o) => o !== undefined);
  return { sources: spec.filter((e) => parseOwnHistory(e.Source) === undefined), ...(own ? { own } : {}) };
}

/** The parts of the transcript an agent with a Context spec sees, from entries listed newest first. */
export interface ContextView {
  /** Its own turns (oldest first), within `own.n` and the transcript window's limits. */
  own: TranscriptEntry[];
  /** Own turns left out (by N or the limits). */
  ownOmitted: number;
  /** Orchestrator entries after the last agent turn (oldest first). */
  orchestrator: TranscriptEntry[];
}

/**
 * Select the view of `agent` from `newestFirst` (the whole transcript, or as much as was read).
 * `own` undefined: the Context spec has no own_history, so none of its turns.
 */
export function contextView(newestFirst: readonly TranscriptEntry[], agent: string, own: { n?: number } | undefined): ContextView {
  const orchestrator: TranscriptEntry[] = [];
  for (const e of newestFirst) {
    if (e.kind === 'agent') break;
    orchestrator.push(e);
  }
  const mine = own ? newestFirst.filter((e) => e.kind === 'agent' && e.agent === agent) : [];
  const wanted = own?.n !== undefined ? mine.slice(0, own.n) : mine.slice(0, TRANSCRIPT_LIMITS.entries);
  const kept = windowOf(wanted);
  return { own: kept, ownOmitted: mine.length - kept.length, orchestrator: orchestrator.reverse() };
}

/** The member's input under a Context spec: task, its sources block, its earlier turns, the orchestrator's latest messages. */
export function contextSpecText(taskText: string, agent: string, sourcesBlock: string | undefined, view: ContextView, own: boolean): string {
  const parts = [`# Task\n${taskText}`];
  if (sourcesBlock) parts.push(`# Your context sources\n${sourcesBlock}`);
  if (own) {
    const head = `# Your earlier turns${view.ownOmitted ? ` (${view.ownOmitted} earlier omitted)` : ''}`;
    parts.push(view.own.length ? `${head}\n\n${view.own.map((e) => `[${agent}]\n${e.text}`).join('\n\n')}` : `${head}\n(none yet)`);
  }
  if (view.orchestrator.length) parts.push(`# From the orchestrator\n\n${view.orchestrator.map((e) => e.text).join('\n\n')}`);
  return parts.join('\n\n');
}
