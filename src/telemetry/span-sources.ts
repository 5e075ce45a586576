/**
 * What telemetry reads from the store: the compiled agent an activity or run works for (from its
 * bundle, cached per bundle) and, for span content, the conversation a model call saw and the
 * result a tool call stored. Read on the worker side only; nothing here enters a workflow.
 */
import { BundleCache } from '../activities/agent-loader';
import type { BlobStore } from '../activities/blob-store';
import { MessageStore } from '../activities/message-store';
import type { CompiledAgent } from '../compiled/types';
import type { BlobRef } from '../shared/contract';

export class SpanSources {
  private readonly bundles: BundleCache;
  private readonly messages: MessageStore;

  constructor(store: BlobStore) {
    this.bundles = new BundleCache(store);
    this.messages = new MessageStore(store);
  }

  /** The compiled agent an activity or run works for, or undefined when its argument names none. */
  async agentOf(arg: { bundle?: BlobRef; agent_id?: string } | undefined): Promise<CompiledAgent | undefined> {
    if (!arg?.bundle || typeof arg.agent_id !== 'string') return undefined;
    return (await this.bundles.agent(arg.bundle, arg.agent_id)).agent;
  }

  /** Another agent of the same bundle (a run's caller); undefined when the bundle has no such agent. */
  agentIn(bundle: BlobRef, agentId: string): Promise<CompiledAgent | undefined> {
    return this.bundles.agent(bundle, agentId).then((x) => x.agent, () => undefined);
  }

  /** The conversation up to a model call's reply (its head message). */
  conversation(head: BlobRef): ReturnType<MessageStore['conversation']> {
    return this.messages.conversation(head);
  }

  /** The text a tool call stored as its result. */
  async toolResult(ref: BlobRef): Promise<string> {
    return (await this.messages.getLoose(ref)).content;
  }
}
