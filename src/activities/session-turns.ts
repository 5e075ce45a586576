/**
 * Activities of a chat session (src/workflows/session.ts): what the agent's state section says
 * the session does, the first message of each turn (earlier messages and the scratchpad trimmed to
 * `state.max_state_tokens`, stored so only a reference enters history), and recording a finished
 * turn (the exchange appended to the session's message chain, the turn's notes to the scratchpad).
 */
import type { CompiledAgent, CompiledBundle } from '../compiled/types';
import type { BlobRef } from '../shared/contract';
import { workflowTypeFor, patternOf } from '../shared/dispatch';
import type { Message } from '../runtime/messages';
import type { BundleCache } from './agent-loader';
import { agentView } from './agent-loader';
import type { AgentView } from '../runtime/agent-view';
import { inlineMemberBlocker } from '../runtime/inline-member';
import type { MessageStore } from './message-store';
import { CHARS_PER_TOKEN, DEFAULT_SESSION_CHARS, ScratchpadEntry, sessionTurnPrompt } from './session-history';
import { memoryUse } from '../runtime/memory';

/** The agent's state section as the session applies it (defaults: the Agent Definition Specification's conversational defaults). */
export interface SessionPlan {
  workflow_type: string;
  pattern: string;
  session_history: 'ephemeral' | 'session';
  working_state: 'ephemeral' | 'session';
  scratchpad_visible_to_model: boolean;
  max_state_tokens?: number;
  /** memory.mode is not none and read collections are declared / write collections have writeback on / some collection has scope session. */
  memory_reads: boolean;
  memory_writes: boolean;
  session_memory: boolean;
  /**
   * The agent as a turn inside the session needs it, when its turn is one model call with nothing
   * that needs a run of its own (the inline fan-out members' rule, inlineMemberBlocker); absent
   * otherwise, and in plans read before turns ran inline.
   */
  inline_agent?: AgentView;
}

export interface TurnInputRequest {
  bundle: BlobRef;
  agent_id: string;
  head: BlobRef | null;
  scratchpad: BlobRef | null;
  text: string;
  /** The `# Memory` block read for this message (memoryRead). */
  memory?: string;
  /** The previous turn, recorded first (head and scratchpad are then those it produced): one store round trip per message. */
  record?: TurnRecord;
}

export interface TurnInputResult {
  input_ref: BlobRef;
  kept: number;
  dropped: number;
  notes_kept: number;
  notes_dropped: number;
  /** With `record`: the chain head and scratchpad after recording the previous turn. */
  recorded?: RecordedTurn;
}

export interface RecordedTurn { head: BlobRef | null; scratchpad: BlobRef | null }

/** One answered message as the session history and scratchpad keep it. */
export interface TurnRecord {
  message: number;
  text: string;
  answer: string;
  /** The turn's intermediate notes (run State, warnings); empty when there were none. */
  note: string;
}

export interface RecordTurnRequest extends TurnRecord {
  bundle: BlobRef;
  agent_id: string;
  head: BlobRef | null;
  scratchpad: BlobRef | null;
}

interface StoredScratchpad { format: 'agentloom.scratchpad/v1'; entries: ScratchpadEntry[] }

/** `bundle` given: the plan says whether a turn may run inside the session (inline_agent). */
export function sessionPlan(agent: CompiledAgent, bundle?: CompiledBundle): SessionPlan {
  const workflowType = workflowTypeFor(agent);
  if (!workflowType) throw new Error(`${agent.agent_id} uses ${patternOf(agent)}, which this runtime does not implement`);
  const s = agent.state ?? {};
  const m = memoryUse(agent.memory);
  const view = bundle ? agentView(bundle, agent) : undefined;
  return {
    ...(view && inlineMemberBlocker(view, { workflowType }) === undefined ? { inline_agent: view } : {}),
    memory_reads: m.reads,
    memory_writes: m.writes,
    session_memory: m.sessionScoped,
    workflow_type: workflowType,
    pattern: patternOf(agent),
    session_history: s.session_history ?? 'session',
    working_state: s.working_state ?? 'ephemeral',
    scratchpad_visible_to_model: s.scratchpad_visible_to_model ?? false,
    ...(s.max_state_tokens !== undefined ? { max_state_tokens: s.max_state_tokens } : {}),
  };
}

function budgetChars(plan: SessionPlan): number {
  return plan.max_state_tokens !== undefined ? plan.max_state_tokens * CHARS_PER_TOKEN : DEFAULT_SESSION_CHARS;
}

export function createSessionActivities(deps: { bundles: BundleCache; messages: MessageStore }) {
  const { bundles, messages } = deps;
  const plan = async (bundle: BlobRef, agentId: string): Promise<SessionPlan> => sessionPlan((await bundles.agent(bundle, agentId)).agent);

  /** The newest messages of the chain that can fit `budget` characters (plus one: trimming decides), oldest first; and how many are older. */
  async function recent(head: BlobRef | null, budget: number): Promise<{ msgs: Message[]; older: number }> {
    const msgs: Message[] = [];
    let used = 0;
    let cur: string | null = head?.hash ?? null;
    let older = 0;
    while (cur) {
      const n = await messages.node({ hash: cur });
      msgs.unshift(n.msg);
      used += n.msg.content.length;
      if (used > budget) { older = n.n; break; }
      cur = n.prev;
    }
    return { msgs, older };
  }

  async function notes(ref: BlobRef | null): Promise<ScratchpadEntry[]> {
    if (!ref) return [];
    const s = await messages.blobs.getJson<StoredScratchpad>(ref);
    if (s?.format !== 'agentloom.scratchpad/v1') throw new Error(`blob ${ref.hash} is not a session scratchpad`);
    return s.entries;
  }

  /** The exchange appended to the chain (session history), the turn's notes to the scratchpad (session working state). */
  async function record(p: SessionPlan, head0: BlobRef | null, scratchpad0: BlobRef | null, r: TurnRecord): Promise<RecordedTurn> {
    let head = head0;
    if (p.session_history === 'session') {
      head = await messages.append(head, { role: 'user', content: r.text });
      head = await messages.append(head, { role: 'assistant', content: r.answer });
    }
    let scratchpad: BlobRef | null = null;
    if (p.working_state === 'session') {
      const entries = await notes(scratchpad0);
      if (r.note) entries.push({ turn: r.message, note: r.note });
      // Keep what could ever be shown (the newest entries within twice the budget): the scratchpad stays bounded.
      let used = 0;
      let from = entries.length;
      while (from > 0 && used + entries[from - 1].note.length <= 2 * budgetChars(p)) used += entries[--from].note.length;
      const kept = entries.slice(from);
      scratchpad = kept.length ? await messages.blobs.putJson({ format: 'agentloom.scratchpad/v1', entries: kept } satisfies StoredScratchpad) : null;
    }
    return { head, scratchpad };
  }

  return {
    /** The plan of the session's execution, with inline_agent when the agent's turn may run inside the session. */
    async sessionPlan(inp: { bundle: BlobRef; agent_id: string }): Promise<SessionPlan> {
      const a = await bundles.agent(inp.bundle, inp.agent_id);
      return sessionPlan(a.agent, a.bundle);
    },

    /** The turn's first message, stored: state trimmed to the budget, then the user's text. */
    async sessionTurnInput(inp: TurnInputRequest): Promise<TurnInputResult> {
      const p = await plan(inp.bundle, inp.agent_id);
      const recorded = inp.record ? await record(p, inp.head, inp.scratchpad, inp.record) : undefined;
      const head = recorded ? recorded.head : inp.head;
      const scratchpad = recorded ? recorded.scratchpad : inp.scratchpad;
      // Only the newest messages can fit: the chain is walked back no further than the budget.
      const { msgs, older } = p.session_history === 'session' ? await recent(head, budgetChars(p)) : { msgs: [], older: 0 };
      const sp = sessionTurnPrompt(msgs, await notes(scratchpad), inp.text, {
        history: p.session_history, scratchpadVisible: p.scratchpad_visible_to_model, maxStateTokens: p.max_state_tokens, memory: inp.memory,
      });
      const input_ref = await messages.putLoose({ role: 'user', content: sp.text });
      return { input_ref, kept: sp.kept, dropped: sp.dropped + older, notes_kept: sp.notesKept, notes_dropped: sp.notesDropped, ...(recorded ? { recorded } : {}) };
    },

    /** After a turn: the exchange joins the chain (session history) and its notes the scratchpad (session working state). */
    async sessionRecordTurn(inp: RecordTurnRequest): Promise<RecordedTurn> {
      return record(await plan(inp.bundle, inp.agent_id), inp.head, inp.scratchpad, inp);
    },
  };
}
