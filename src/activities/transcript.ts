/**
 * The shared transcript of a strategies run in the content-addressed store: an append-only chain
 * of entries (each node names the previous head), so the workflow keeps only the head ref and a
 * count. `strategyMemberInputs` appends the entries added since the last member turn and writes
 * each member's first user message (task + the recent window + its context block, rendered with
 * the member's user_prompt_template like agf.react renders its input) as a stored message the
 * member run reads by reference (RunOptions.input_ref). After a compaction (the window omits
 * entries) a state machine run's members also read the context rebuilt from the evidence log
 * (fuseraft's lossless compaction, src/strategies/compaction.ts). Blobs are immutable and named by their
 * content, so a retried activity writes the same chain and the same messages.
 */
import type { BlobRef } from '../shared/contract';
import { reactConfig } from '../runtime/agent-view';
import { renderUserPrompt } from '../runtime/template';
import { textOf } from '../shared/expr';
import { conversationText, TRANSCRIPT_LIMITS, windowOf } from '../strategies/transcript';
import { contextSpecText, contextView } from '../strategies/context-spec';
import type { TranscriptEntry } from '../strategies/transcript';
import type { MemberInputsRequest, MemberInputsResult } from '../strategies/transcript';
import { isCompacted, rebuildContext } from '../strategies/compaction';
import type { RebuildRequest } from '../strategies/compaction';
import type { BundleCache } from './agent-loader';
import { changeRecords, shellRecords } from './evidence-log';
import type { MessageStore } from './message-store';

interface TranscriptNode { format: 'agentloom.transcript/v1'; prev: string | null; n: number; entry: TranscriptEntry }

const MAX_CACHE = 20000;

export class TranscriptStore {
  private readonly nodes = new Map<string, TranscriptNode>();

  constructor(private readonly messages: MessageStore) {}

  async node(hash: string): Promise<TranscriptNode> {
    const hit = this.nodes.get(hash);
    if (hit) return hit;
    const n = JSON.parse((await this.messages.blobs.get({ hash })).toString('utf8')) as TranscriptNode;
    if (n?.format !== 'agentloom.transcript/v1') throw new Error(`blob ${hash} is not a strategies transcript entry`);
    this.remember(hash, n);
    return n;
  }

  private remember(hash: string, n: TranscriptNode): void {
    if (this.nodes.size >= MAX_CACHE) this.nodes.clear();
    this.nodes.set(hash, n);
  }

  /** Append entries (capped by the workflow already) after `head`; returns the new head and the entry count. */
  async append(head: BlobRef | null, size: number, entries: TranscriptEntry[]): Promise<{ head: BlobRef | null; size: number }> {
    let h = head;
    let n = size;
    for (const e of entries) {
      const node: TranscriptNode = { format: 'agentloom.transcript/v1', prev: h?.hash ?? null, n, entry: e };
      h = await this.messages.blobs.put(JSON.stringify(node));
      this.remember(h.hash, node);
      n += 1;
    }
    return { head: h, size: n };
  }

  /** Entries from `head` back to the first, newest first (read lazily: the window stops early). */
  async *newestFirst(head: BlobRef | null): AsyncGenerator<TranscriptEntry> {
    let cur = head?.hash ?? null;
    while (cur) {
      const n = await this.node(cur);
      yield n.entry;
      cur = n.prev;
    }
  }

  /** The recent window (same limits as the in-workflow transcript). */
  async window(head: BlobRef | null): Promise<TranscriptEntry[]> {
    const recent: TranscriptEntry[] = [];
    // windowOf never keeps more than `entries` of them: read no further back than that.
    for await (const e of this.newestFirst(head)) {
      recent.push(e);
      if (recent.length >= TRANSCRIPT_LIMITS.entries) break;
    }
    return windowOf(recent);
  }
}

/** The ContextRebuilder's input read from the EvidenceStore (the workspace's evidence log). */
async function rebuiltContext(r: RebuildRequest, omitted: number): Promise<string> {
  const [writes, shell] = await Promise.all([changeRecords(r.workspace), shellRecords(r.workspace)]);
  return rebuildContext(omitted, r, writes, shell);
}

export function createTranscriptActivities(deps: { bundles: BundleCache; messages: MessageStore }) {
  const transcripts = new TranscriptStore(deps.messages);
  return {
    async strategyMemberInputs(req: MemberInputsRequest): Promise<MemberInputsResult> {
      const stored = await transcripts.append(req.transcript.head, req.transcript.size, req.append);
      const window = await transcripts.window(stored.head);
      const omitted = stored.size - window.length;
      const text = conversationText(textOf(req.task), window, omitted, req.rebuild && isCompacted(omitted) ? await rebuiltContext(req.rebuild, omitted) : undefined);
      // An agent with a Context spec reads its own turns from the whole chain (read once, only then).
      let all: TranscriptEntry[] | undefined;
      const newestFirst = async (): Promise<TranscriptEntry[]> => {
        if (!all) { all = []; for await (const e of transcripts.newestFirst(stored.head)) all.push(e); }
        return all;
      };
      const inputs: BlobRef[] = [];
      for (const m of req.members) {
        const { agent } = await deps.bundles.agent(req.bundle, m.agent_id);
        const cs = m.context_spec;
        const body = cs ? contextSpecText(textOf(req.task), cs.agent, cs.sources, contextView(await newestFirst(), cs.agent, cs.own), cs.own !== undefined) : text;
        let prompt = renderUserPrompt(m.extra ? `${body}\n\n${m.extra}` : body, reactConfig(agent).user_prompt_template);
        if (m.context) prompt += `\n\n# Context\n${JSON.stringify(m.context, null, 2)}`;
        inputs.push(await deps.messages.putLoose({ role: 'user', content: prompt }));
      }
      return { transcript: stored, inputs };
    },
  };
}
