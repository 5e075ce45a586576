/**
 * The conversation store: an append-only, content-addressed chain of messages in the blob store.
 * Each node names the previous head, so the workflow keeps only the head ref (plus counters)
 * and history never grows with the conversation. Blobs are immutable, so retries are safe.
 */
import type { BlobRef } from '../shared/contract';
import type { AppendItem, ChainNode, Message } from '../runtime/messages';
import { openBlobStore, BlobStore } from './blob-store';

const MAX_CACHE = 20000;
/** Loose messages (tool results) kept for the model turn that links them; bounded like the nodes. */
const MAX_LOOSE = 5000;
/** Nodes fetched per round trip when the store can walk a chain itself (PostgreSQL). */
const CHAIN_BATCH = 500;

export class MessageStore {
  private readonly nodes = new Map<string, ChainNode>();
  private readonly convs = new Map<string, Message[]>();
  private readonly loose = new Map<string, Message>();

  constructor(readonly blobs: BlobStore = openBlobStore()) {}

  async node(ref: BlobRef): Promise<ChainNode> {
    const hit = this.nodes.get(ref.hash);
    if (hit) return hit;
    const n = await this.blobs.getJson<ChainNode>(ref);
    if (n?.format !== 'agentloom.msg/v1') throw new Error(`blob ${ref.hash} is not a conversation message`);
    this.remember(ref.hash, n);
    return n;
  }

  private remember(hash: string, n: ChainNode): void {
    if (this.nodes.size >= MAX_CACHE) this.nodes.clear();
    this.nodes.set(hash, n);
  }

  /** Cache up to CHAIN_BATCH nodes ending at `hash` in one read, when the store supports it. */
  private async prefetch(hash: string): Promise<void> {
    if (!this.blobs.chain) return;
    let batch: Map<string, Buffer>;
    try {
      batch = await this.blobs.chain({ hash }, CHAIN_BATCH);
    } catch (e) {
      if ((e as Error)?.name === 'StoreUnavailable') throw e;
      return; // not a chain the database can walk (e.g. not JSON): read node by node
    }
    for (const [h, data] of batch) {
      const n = JSON.parse(data.toString('utf8')) as ChainNode;
      if (n?.format === 'agentloom.msg/v1') this.remember(h, n);
    }
  }

  /** Append one message after `head` (null: start a conversation); returns the new head. */
  async append(head: BlobRef | null, msg: Message): Promise<BlobRef> {
    let node: ChainNode;
    if (!head) {
      // An ephemeral run's chain starts with a node no other run writes: its nodes are its own to delete.
      const salt = await this.salt();
      node = { format: 'agentloom.msg/v1', prev: null, root: null, n: 0, msg, ...(salt ? { salt } : {}) } as ChainNode;
    }
    else {
      const prev = await this.node(head);
      node = { format: 'agentloom.msg/v1', prev: head.hash, root: prev.root ?? head.hash, n: prev.n + 1, msg };
    }
    const ref = await this.blobs.putJson(node);
    this.remember(ref.hash, node);
    return ref;
  }

  /** Store a message that is not linked yet (a tool result waiting for the next model turn). */
  async putLoose(msg: Message): Promise<BlobRef> {
    const salt = await this.salt();
    const ref = await this.blobs.putJson({ format: 'agentloom.loose/v1', msg, ...(salt ? { salt } : {}) });
    // Written (durably) above; the next model turn on this worker links it without reading it back.
    // An ephemeral run's (salted) messages are not kept: they are deleted when the run ends.
    if (!salt) this.rememberLoose(ref.hash, msg);
    return ref;
  }

  private rememberLoose(hash: string, msg: Message): void {
    if (this.loose.size >= MAX_LOOSE) this.loose.clear();
    this.loose.set(hash, msg);
  }

  /** The salt of an ephemeral run's messages (src/activities/ephemeral.ts), else undefined. */
  async salt(): Promise<string | undefined> {
    const b = this.blobs as BlobStore & { salt?: () => Promise<string | undefined> };
    return typeof b.salt === 'function' ? b.salt() : undefined;
  }

  async getLoose(ref: BlobRef): Promise<Message> {
    const hit = this.loose.get(ref.hash);
    if (hit) return hit;
    const v = await this.blobs.getJson<{ format: string; msg: Message; salt?: string }>(ref);
    if (v?.format !== 'agentloom.loose/v1') throw new Error(`blob ${ref.hash} is not a stored message`);
    if (v.salt === undefined) this.rememberLoose(ref.hash, v.msg);
    return v.msg;
  }

  async appendAll(head: BlobRef | null, items: AppendItem[]): Promise<BlobRef | null> {
    let h = head;
    for (const it of items) h = await this.append(h, 'ref' in it ? await this.getLoose(it.ref) : it.message);
    return h;
  }

  /** The first message of the conversation that ends at `head`. */
  async first(head: BlobRef): Promise<Message> {
    const n = await this.node(head);
    return n.root ? (await this.node({ hash: n.root })).msg : n.msg;
  }

  /** The whole conversation ending at `head`, oldest first (cached per head). */
  async conversation(head: BlobRef | null): Promise<Message[]> {
    if (!head) return [];
    const cached = this.convs.get(head.hash);
    if (cached) return cached;
    const stack: Message[] = [];
    let cur: string | null = head.hash;
    let base: Message[] = [];
    while (cur) {
      const c = this.convs.get(cur);
      if (c) {
        base = c;
        break;
      }
      if (!this.nodes.has(cur)) await this.prefetch(cur);
      const n: ChainNode = await this.node({ hash: cur });
      stack.push(n.msg);
      cur = n.prev;
    }
    const out = base.concat(stack.reverse());
    if (this.convs.size >= 64) this.convs.clear();
    this.convs.set(head.hash, out);
    return out;
  }
}
