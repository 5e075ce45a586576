/**
 * The shared conversation of a strategies run, bounded: the most recent entries (agent turns and
 * orchestrator context: corrections, nudges, merged branch output), each capped, within a total
 * budget, with a count of what was dropped. It is what each member sees as its input.
 *
 * Runs started on patch `strategies-transcript-store` keep the transcript in the content-addressed
 * store (an append-only chain, src/activities/transcript.ts): the workflow holds only the head
 * ref, the entry count and the few entries added since the last member turn; one activity per
 * turn (one per fan-out) stores them and writes each member's first message, so history and the
 * continue-as-new carry never hold the transcript. Older runs keep the window in the workflow.
 * Also the `handoff(route_keyword)` runtime tool members of keyword/statemachine/graph strategies get.
 */
import { proxyActivities } from '@temporalio/workflow';
import { STORE_ACTIVITY } from '../activity-options';
import type { JsonValue } from '../../compiled/types';
import type { BlobRef, ExtraToolSpec } from '../../shared/contract';
import type { Activities } from '../../activities';
import { textOf } from '../../shared/expr';
import { capEntry, conversationText, TRANSCRIPT_LIMITS } from '../../strategies/transcript';
import type { RebuildRequest } from '../../strategies/compaction';
import type { MemberInputSpec, MemberInputsRequest, StoredTranscript, TranscriptEntry, TranscriptState } from '../../strategies/transcript';

export type { TranscriptEntry, TranscriptState } from '../../strategies/transcript';


const acts = proxyActivities<Activities>(STORE_ACTIVITY);

export class Transcript {
  private window: TranscriptEntry[];
  private omitted: number;
  private stored: StoredTranscript | undefined;

  constructor(s: TranscriptState) {
    this.window = [...s.window];
    this.omitted = s.omitted;
    this.stored = s.stored ? { ...s.stored } : undefined;
  }

  /** Is the transcript in the store (runs started on patch strategies-transcript-store)? */
  get inStore(): boolean {
    return this.stored !== undefined;
  }

  add(agent: string, text: string, kind: TranscriptEntry['kind']): void {
    this.window.push(capEntry({ agent, text, kind }));
    if (this.stored) return; // stored by the next memberInputs call
    let total = this.window.reduce((n, e) => n + e.text.length, 0);
    while (this.window.length > 1 && (this.window.length > TRANSCRIPT_LIMITS.entries || total > TRANSCRIPT_LIMITS.total_chars)) {
      total -= this.window.shift()!.text.length;
      this.omitted += 1;
    }
  }

  get size(): number {
    return this.stored ? this.stored.size + this.window.length : this.omitted + this.window.length;
  }

  /** In-workflow mode: the window. */
  entries(): readonly TranscriptEntry[] {
    return this.window;
  }

  state(): TranscriptState {
    return { window: [...this.window], omitted: this.omitted, ...(this.stored ? { stored: { ...this.stored } } : {}) };
  }

  /**
   * Store mode: store the entries added since the last call and write one first message per member
   * (one activity); returns their refs, in order. `summary` names who speaks (Web UI).
   */
  async memberInputs(bundle: BlobRef, task: JsonValue, members: MemberInputSpec[], summary: string, rebuild?: RebuildRequest): Promise<BlobRef[]> {
    const req: MemberInputsRequest = { bundle, task, transcript: this.stored!, append: this.window, members, ...(rebuild ? { rebuild } : {}) };
    const res = await acts.strategyMemberInputs.executeWithOptions(
      { ...STORE_ACTIVITY, summary },
      [req],
    );
    this.stored = res.transcript;
    this.window = [];
    return res.inputs;
  }
}

/** In-workflow mode: a member's input is the task and the window, carried in its child input. */
export function memberInput(task: JsonValue, t: Transcript): string {
  const es = t.entries();
  return conversationText(textOf(task), es, t.size - es.length);
}

export const HANDOFF_TOOL = 'handoff';

/** fuseraft's "Tool-call routing": the argument is the routing keyword; the member's turn ends at once. */
export function handoffTool(): ExtraToolSpec {
  return {
    name: HANDOFF_TOOL,
    description: 'Hand off: route the conversation with this keyword (one of the routing keywords or signals you were told to emit). Ends your turn.',
    parameters: { type: 'object', properties: { route_keyword: { type: 'string', description: 'The routing keyword, e.g. "HANDOFF TO TESTER"' } }, required: ['route_keyword'] },
    terminal: true,
  };
}
