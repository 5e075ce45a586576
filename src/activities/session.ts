/**
 * Chat sessions across runs (`loom run AGENT --session ID`): each finished run appends its prompt
 * and answer to the session's message chain in the shared store, and the session record
 * (`session` / `<agent_id>/<id>`) names the chain's head. The next run of the session starts from
 * one stored message holding the earlier exchanges and the new prompt (session-history.ts), so
 * only a reference enters the workflow history. Used by the CLI; the store is LOOM_STORE_URL's.
 */
import type { BlobRef } from '../shared/contract';
import type { Message } from '../runtime/messages';
import type { BlobStore } from './blob-store';
import { MessageStore } from './message-store';

interface SessionRecord {
  format: 'agentloom.session/v1';
  agent_id: string;
  session_id: string;
  /** Head of the session's message chain. */
  head: string;
  runs: number;
  last_workflow_id: string;
}

export interface SessionState {
  head: BlobRef | null;
  runs: number;
  messages: Message[];
}

export class SessionStore {
  private readonly messages: MessageStore;

  constructor(private readonly store: BlobStore) {
    this.messages = new MessageStore(store);
  }

  private key(agentId: string, sessionId: string): string {
    return `${agentId}/${sessionId}`;
  }

  /** The session's earlier messages, oldest first (none for a new session). */
  async load(agentId: string, sessionId: string): Promise<SessionState> {
    const raw = await this.store.getRecord('session', this.key(agentId, sessionId));
    if (!raw) return { head: null, runs: 0, messages: [] };
    const rec = JSON.parse(raw) as SessionRecord;
    const head = { hash: rec.head };
    return { head, runs: rec.runs, messages: await this.messages.conversation(head) };
  }

  /** Store the first message of a run (a loose message: the run reads it through `options.input_ref`). */
  async putFirstMessage(text: string): Promise<BlobRef> {
    return this.messages.putLoose({ role: 'user', content: text });
  }

  /** Append a finished run's prompt and answer after `prev` and point the session at them. */
  async recordRun(agentId: string, sessionId: string, prev: SessionState, prompt: string, answer: string, workflowId: string): Promise<void> {
    const afterPrompt = await this.messages.append(prev.head, { role: 'user', content: prompt });
    const head = await this.messages.append(afterPrompt, { role: 'assistant', content: answer });
    const rec: SessionRecord = { format: 'agentloom.session/v1', agent_id: agentId, session_id: sessionId, head: head.hash, runs: prev.runs + 1, last_workflow_id: workflowId };
    await this.store.setRecord('session', this.key(agentId, sessionId), JSON.stringify(rec));
  }
}
