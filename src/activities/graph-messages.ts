/**
 * The graph pattern's messages in the content-addressed store (the Agent Definition Specification's "Graph pattern"):
 *  - the graph transcript: every node completion (`{node, visit, output}`) appended to a chain
 *    (the strategies transcript format, src/activities/transcript.ts), so the workflow keeps only
 *    the head ref and a count;
 *  - each react node's first message: its input rendered with its user_prompt_template, then the
 *    recent window of the graph transcript, stored as a loose message the member run reads by
 *    reference (RunOptions.input_ref);
 *  - `reset_on_revisit: false`: the node's own conversation, a message chain of its earlier first
 *    messages and answers, which the revisit starts from (RunOptions.conversation_ref).
 * Blobs are named by their content, so a retried activity writes the same chains and messages.
 */
import type { JsonValue } from '../compiled/types';
import type { BlobRef } from '../shared/contract';
import { reactConfig } from '../runtime/agent-view';
import { renderUserPrompt } from '../runtime/template';
import { textOf } from '../shared/expr';
import { capEntry } from '../strategies/transcript';
import type { GraphTranscriptEntry } from '../orchestration/graph';
import type { BundleCache } from './agent-loader';
import type { MessageStore } from './message-store';
import { TranscriptStore } from './transcript';

export interface GraphNodeMessagesRequest {
  bundle: BlobRef;
  /** The graph transcript as stored so far (head ref and entry count). */
  transcript: { head: BlobRef | null; size: number };
  /** Completions since the last call, oldest first: appended to the stored transcript first. */
  append: GraphTranscriptEntry[];
  /** The react nodes starting now. */
  nodes: {
    agent_id: string;
    /** The node's input object (task, inputs of the nodes that activated it). */
    input: JsonValue;
    /**
     * `reset_on_revisit: false` on a revisit: the node's conversation before its last visit (null:
     * none yet), that visit's first message and its answer, appended to it (a visit that failed
     * has no answer and adds nothing).
     */
    carry?: { head: BlobRef | null; first: BlobRef; output?: JsonValue };
  }[];
}

export interface GraphNodeMessagesResult {
  transcript: { head: BlobRef | null; size: number };
  /** Per node (request order): its first message, and the conversation it starts from (carry only). */
  nodes: { input_ref: BlobRef; conversation?: BlobRef }[];
}

/** The graph transcript section of a node's first message: the recent entries, oldest first. */
export function graphTranscriptText(window: readonly { agent: string; text: string }[], omitted: number): string {
  if (!window.length) return '';
  const head = `# Graph transcript${omitted ? ` (${omitted} earlier entries omitted)` : ''}`;
  return `${head}\n\n${window.map((e) => `[${e.agent}]\n${e.text}`).join('\n\n')}`;
}

export function createGraphMessageActivities(deps: { bundles: BundleCache; messages: MessageStore }) {
  const transcripts = new TranscriptStore(deps.messages);
  return {
    async graphNodeMessages(req: GraphNodeMessagesRequest): Promise<GraphNodeMessagesResult> {
      const entries = req.append.map((e) => capEntry({ agent: `${e.node} (visit ${e.visit})`, text: textOf(e.output), kind: 'agent' }));
      const stored = await transcripts.append(req.transcript.head, req.transcript.size, entries);
      const window = await transcripts.window(stored.head);
      const section = graphTranscriptText(window, stored.size - window.length);
      const nodes: GraphNodeMessagesResult['nodes'] = [];
      for (const n of req.nodes) {
        const { agent } = await deps.bundles.agent(req.bundle, n.agent_id);
        const prompt = renderUserPrompt(n.input, reactConfig(agent).user_prompt_template);
        const input_ref = await deps.messages.putLoose({ role: 'user', content: section ? `${prompt}\n\n${section}` : prompt });
        if (!n.carry) {
          nodes.push({ input_ref });
          continue;
        }
        let conversation = n.carry.head;
        if (n.carry.output !== undefined) {
          const asked = await deps.messages.append(conversation, await deps.messages.getLoose(n.carry.first));
          conversation = await deps.messages.append(asked, { role: 'assistant', content: textOf(n.carry.output) });
        }
        nodes.push(conversation ? { input_ref, conversation } : { input_ref });
      }
      return { transcript: stored, nodes };
    },
  };
}
