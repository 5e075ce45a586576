/**
 * The shared conversation of a strategies run, bounded: the most recent entries (agent turns and
 * orchestrator context: corrections, nudges, merged branch output), each capped, within a total
 * budget, with a count of what was dropped. It is what each member sees as its input and what
 * continue-as-new carries, so neither history nor the carried state grows with the run's length.
 * Also the `handoff(route_keyword)` runtime tool members of keyword/statemachine/graph strategies get.
 */
import type { JsonValue } from '../compiler/types';
import type { ExtraToolSpec } from '../shared/contract';
import { textOf } from '../shared/expr';

/** Entries kept, characters per entry, characters in all. */
export const TRANSCRIPT_LIMITS = { entries: 24, entry_chars: 4000, total_chars: 32000 };

export interface TranscriptEntry { agent: string; text: string; kind: 'agent' | 'context' }
export interface TranscriptState { window: TranscriptEntry[]; omitted: number }

export class Transcript {
  private window: TranscriptEntry[];
  private omitted: number;

  constructor(s: TranscriptState) {
    this.window = [...s.window];
    this.omitted = s.omitted;
  }

  add(agent: string, text: string, kind: TranscriptEntry['kind']): void {
    const t = text.length > TRANSCRIPT_LIMITS.entry_chars ? `${text.slice(0, TRANSCRIPT_LIMITS.entry_chars)}\n[… ${text.length - TRANSCRIPT_LIMITS.entry_chars} more characters]` : text;
    this.window.push({ agent, text: t, kind });
    let total = this.window.reduce((n, e) => n + e.text.length, 0);
    while (this.window.length > 1 && (this.window.length > TRANSCRIPT_LIMITS.entries || total > TRANSCRIPT_LIMITS.total_chars)) {
      total -= this.window.shift()!.text.length;
      this.omitted += 1;
    }
  }

  get size(): number {
    return this.omitted + this.window.length;
  }

  entries(): readonly TranscriptEntry[] {
    return this.window;
  }

  state(): TranscriptState {
    return { window: [...this.window], omitted: this.omitted };
  }
}

/** A member's input: the task, then the conversation so far (the latest orchestrator message last). */
export function memberInput(task: JsonValue, t: Transcript): string {
  const parts = [`# Task\n${textOf(task)}`];
  const es = t.entries();
  if (es.length) {
    const omitted = t.size - es.length;
    parts.push(`# Conversation so far${omitted ? ` (${omitted} earlier entries omitted)` : ''}\n\n${es.map((e) => `[${e.kind === 'context' ? 'orchestrator' : e.agent}]\n${e.text}`).join('\n\n')}`);
  }
  return parts.join('\n\n');
}

export const HANDOFF_TOOL = 'handoff';

/** Seed 002 "Tool-call routing": the argument is the routing keyword; the member's turn ends at once. */
export function handoffTool(): ExtraToolSpec {
  return {
    name: HANDOFF_TOOL,
    description: 'Hand off: route the conversation with this keyword (one of the routing keywords or signals you were told to emit). Ends your turn.',
    parameters: { type: 'object', properties: { route_keyword: { type: 'string', description: 'The routing keyword, e.g. "HANDOFF TO TESTER"' } }, required: ['route_keyword'] },
    terminal: true,
  };
}
