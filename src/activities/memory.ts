/**
 * Memory collections at run time (the Agent Definition Specification's "memory"): entries live in
 * the collection's backend (src/store/collection-backend.ts: the shared store, or a PostgreSQL
 * database or folder of its own, its password read from the secret store here), one record per entry (`memory-entry`/`<collection_id>/<namespace>/<entry id>`: a folder
 * file or a loom_records row in PostgreSQL, whichever LOOM_STORE_URL names; namespaces written
 * before keep one `memory`/`<collection_id>/<namespace>` record, still read). Read before a chat turn
 * (keyword search against the message, `{actorId}`/`{sessionId}` substituted into the
 * namespace; cosine similarity of embeddings instead when the collection names an endpoint in
 * `backend.embeddings`, see searchCollection), written back after it per the collection's `writeback` settings, and a
 * session-scoped collection's namespace deleted when the session ends.
 */
import type { CompiledAgent, CompiledCollection } from '../compiled/types';
import type { BlobRef } from '../shared/contract';
import { ApplicationFailure } from '@temporalio/activity';
import { sha256 } from '../compiled/canonical';
import { keywordSearch, memoryBlock, MemoryEntry, memoryNamespace, semanticSearch, writebackText } from '../runtime/memory';
import { embeddingsConfig, embedTexts } from './embeddings';
import { redactText } from '../governance/pii';
import type { BundleCache } from './agent-loader';
import type { BlobStore } from './blob-store';
import { MessageStore } from './message-store';
import { collectionStore } from '../store/collection-backend';
import { collectionRefusal } from '../governance/residency';
import type { SecretRef } from '../compiled/types';

/** An entry whose id is its content address (text + source): a retried writeback stores it once. */
export function memoryEntry(text: string, source: MemoryEntry['source'], at: string): MemoryEntry {
  return { id: 'sha256:' + sha256(JSON.stringify([text, source])), text, at, source };
}

/** The older format, one record per namespace: read (never written), so stores written before one record per entry still recall. */
interface StoredMemory { format: 'agentloom.memory/v1'; entries: MemoryEntry[] }
/** One entry, one record (a writeback never loses an entry, whichever worker runs it): kind `memory-entry`, key `<collection_id>/<namespace>/<entry id>`. */
interface StoredEntry { format: 'agentloom.memory-entry/v1'; entry: MemoryEntry }
const LEGACY_KIND = 'memory';
const ENTRY_KIND = 'memory-entry';

export interface MemoryScope { bundle: BlobRef; agent_id: string; actor_id: string; session_id: string }

/** A writeback waiting for a human (collection `writeback.approval_required: true`). */
export interface PendingWriteback { collection_id: string; namespace: string; entry: MemoryEntry }

/**
 * A collection namespace's entries in the store: each entry its own record, so concurrent
 * writebacks to one namespace (several workers running one actor's runs) never overwrite each
 * other; listed by key prefix. The older one-record-per-namespace format is still read and merged.
 */
export class MemoryStore {
  constructor(private readonly store: BlobStore) {}

  private prefix(collectionId: string, namespace: string): string {
    return `${collectionId}/${namespace}/`;
  }

  /** Every entry of the namespace, oldest first (by writeback time; the old record's order on ties), each id once. */
  async list(collectionId: string, namespace: string): Promise<MemoryEntry[]> {
    const prefix = this.prefix(collectionId, namespace);
    const [legacy, records] = await Promise.all([this.store.getRecord(LEGACY_KIND, `${collectionId}/${namespace}`), this.store.listRecords(ENTRY_KIND, prefix)]);
    const entries: MemoryEntry[] = [];
    if (legacy) {
      const m = JSON.parse(legacy) as StoredMemory;
      if (m?.format !== 'agentloom.memory/v1') throw new Error(`memory record ${collectionId}/${namespace} in ${this.store.location} is not agentloom.memory/v1`);
      entries.push(...m.entries);
    }
    // An entry id holds no '/': a longer key belongs to a namespace that starts with this one (`notes/ada/s-1` under `notes/ada`).
    for (const r of records.filter((x) => !x.key.slice(prefix.length).includes('/'))) {
      const e = JSON.parse(r.value) as StoredEntry;
      if (e?.format !== 'agentloom.memory-entry/v1') throw new Error(`memory entry ${r.key} in ${this.store.location} is not agentloom.memory-entry/v1`);
      entries.push(e.entry);
    }
    const seen = new Set<string>();
    const unique = entries.filter((e) => !seen.has(e.id) && seen.add(e.id));
    return unique.map((e, i) => ({ e, i })).sort((a, b) => (a.e.at < b.e.at ? -1 : a.e.at > b.e.at ? 1 : a.i - b.i)).map((x) => x.e);
  }

  /** Add an entry: its own record, keyed by its content address (a retried write of the same entry rewrites the same record). */
  async add(collectionId: string, namespace: string, entry: MemoryEntry): Promise<void> {
    await this.store.setRecord(ENTRY_KIND, this.prefix(collectionId, namespace) + entry.id, JSON.stringify({ format: 'agentloom.memory-entry/v1', entry } satisfies StoredEntry));
  }

  /** Delete every entry of the namespace (both formats). */
  async clear(collectionId: string, namespace: string): Promise<void> {
    const prefix = this.prefix(collectionId, namespace);
    const records = (await this.store.listRecords(ENTRY_KIND, prefix)).filter((x) => !x.key.slice(prefix.length).includes('/'));
    for (const r of records) await this.store.deleteRecord(ENTRY_KIND, r.key);
    await this.store.deleteRecord(LEGACY_KIND, `${collectionId}/${namespace}`);
  }
}

/** A collection definition the runtime cannot apply: retrying will not fix it. */
function definitionError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw ApplicationFailure.nonRetryable((e as Error).message, 'MemoryDefinition');
  }
}

function namespaceOf(c: CompiledCollection, s: MemoryScope): string {
  return definitionError(() => memoryNamespace(c.collection_id, typeof c.backend.namespace === 'string' ? c.backend.namespace : undefined, { actorId: s.actor_id, sessionId: s.session_id }));
}

/**
 * A collection's entries for `query`: by cosine similarity of embeddings when the collection
 * names an endpoint in `backend.embeddings` (vectors cached in the store by content hash), else
 * keyword overlap. Only the collection's own block counts: LOOM_EMBEDDINGS_* does not switch
 * memory to semantic search.
 */
export async function searchCollection(c: CompiledCollection, entries: MemoryEntry[], query: string, store?: BlobStore, opts: { piiRedaction?: boolean } = {}): Promise<MemoryEntry[]> {
  const cfg = definitionError(() => embeddingsConfig(`collection ${c.collection_id}`, c.backend, {}));
  if (!cfg || !entries.length || !query.trim()) return keywordSearch(entries, query);
  // policies.pii_redaction: the endpoint is outside the worker, so it gets the redacted texts only.
  const out = (t: string) => (opts.piiRedaction ? redactText(t).text : t);
  const [q, ...vectors] = await embedTexts(cfg, [out(query), ...entries.map((e) => out(e.text))], store);
  return semanticSearch(entries, vectors, q);
}

function memoryOf(agent: CompiledAgent): CompiledAgent['memory'] {
  return agent.memory ?? { mode: 'none', read_collections: [], write_collections: [] };
}

/**
 * Where an approved writeback goes: the approval's activity input names the collection and
 * namespace only, so a writeback waiting for a human to a collection with a store of its own
 * leaves a record in the shared store (kind `memory-pending-route`, keyed by collection, namespace
 * and entry id) saying where it goes: the collection's url and where its password is read, never
 * the password, as an artifact route does.
 */
const PENDING_ROUTE_KIND = 'memory-pending-route';
interface PendingRoute { collection: CompiledCollection; secrets?: Record<string, SecretRef> }
const pendingKey = (w: PendingWriteback): string => `${w.collection_id}/${w.namespace}/${w.entry.id}`;

export function createMemoryActivities(deps: { bundles: BundleCache; store: BlobStore; env?: NodeJS.ProcessEnv }) {
  const shared = new MemoryStore(deps.store);
  const messages = new MessageStore(deps.store);
  const agentOf = async (s: MemoryScope) => (await deps.bundles.agent(s.bundle, s.agent_id)).agent;
  /** The entries of collection `c` (its backend's store; a definition it cannot open is not retried). */
  const memOf = (c: CompiledCollection, secrets: Record<string, SecretRef> | undefined, residency?: string): MemoryStore => {
    // policies.data_residency: a backend hosted outside it is never opened (the compiler refuses it too: AGF562).
    const refused = collectionRefusal(residency, c);
    if (refused) throw ApplicationFailure.nonRetryable(refused, 'PolicyViolation');
    let store: BlobStore;
    try {
      store = collectionStore(c, secrets, deps.store, deps.env);
    } catch (e) {
      if (e instanceof ApplicationFailure) throw e;
      throw ApplicationFailure.nonRetryable(`collection ${c.collection_id}: ${(e as Error).message}`, 'MemoryDefinition');
    }
    return store === deps.store ? shared : new MemoryStore(store);
  };

  const acts = {
    /** The `# Memory` block for this message from every read collection ('' when nothing matched). */
    async memoryRead(inp: MemoryScope & { query: string }): Promise<{ block: string; found: Record<string, number> }> {
      const agent = await agentOf(inp);
      const m = memoryOf(agent);
      if (m.mode === 'none') return { block: '', found: {} };
      const piiRedaction = agent.policies?.pii_redaction === true;
      const found = await Promise.all(m.read_collections.map(async (c) => ({ collection_id: c.collection_id, entries: await searchCollection(c, await memOf(c, agent.tenant?.secrets, agent.policies?.data_residency).list(c.collection_id, namespaceOf(c, inp)), inp.query, deps.store, { piiRedaction }) })));
      return { block: memoryBlock(found), found: Object.fromEntries(found.map((f) => [f.collection_id, f.entries.length])) };
    },

    /**
     * After a turn: what each write collection with `writeback.enabled` keeps of it. Collections
     * without `approval_required` are written here; the others are returned to wait for a human.
     */
    async memoryWriteback(inp: MemoryScope & { message: number; text: string; text_ref?: BlobRef; answer: string; at: string }): Promise<{ written: string[]; pending: PendingWriteback[] }> {
      const agent = await agentOf(inp);
      const m = memoryOf(agent);
      const written: string[] = [];
      const pending: PendingWriteback[] = [];
      if (m.mode === 'none') return { written, pending };
      // A run under pii_redaction passes its stored (redacted) first message by ref, and what is stored is redacted too.
      const text = inp.text_ref ? (await messages.getLoose(inp.text_ref)).content : inp.text;
      const redact = agent.policies.runtime_pass === true && agent.policies.pii_redaction === true;
      for (const c of m.write_collections) {
        if (!c.writeback.enabled) continue;
        const extracted = definitionError(() => writebackText(c.writeback.strategy, text, inp.answer));
        const entry = memoryEntry(redact ? redactText(extracted).text : extracted, { session_id: inp.session_id, message: inp.message, agent_id: inp.agent_id }, inp.at);
        const namespace = namespaceOf(c, inp);
        const mem = memOf(c, agent.tenant?.secrets, agent.policies?.data_residency);
        if (c.writeback.approval_required === true) {
          const w: PendingWriteback = { collection_id: c.collection_id, namespace, entry };
          if (mem !== shared) await deps.store.setRecord(PENDING_ROUTE_KIND, pendingKey(w), JSON.stringify({ collection: c, secrets: agent.tenant?.secrets } satisfies PendingRoute));
          pending.push(w);
        } else { await mem.add(c.collection_id, namespace, entry); written.push(c.collection_id); }
      }
      return { written, pending };
    },

    /** An approved writeback. */
    async memoryWrite(inp: PendingWriteback): Promise<void> {
      const route = await deps.store.getRecord(PENDING_ROUTE_KIND, pendingKey(inp));
      const r = route ? (JSON.parse(route) as PendingRoute) : undefined;
      await (r ? memOf(r.collection, r.secrets) : shared).add(inp.collection_id, inp.namespace, inp.entry);
      if (route) await deps.store.deleteRecord(PENDING_ROUTE_KIND, pendingKey(inp));
    },

    /** Session end: collections with `scope: session` are deleted (the Agent Definition Specification: "Deleted at session end"). */
    async memoryEndSession(inp: MemoryScope): Promise<string[]> {
      const agent = await agentOf(inp);
      const m = memoryOf(agent);
      const session = [...m.read_collections, ...m.write_collections].filter((c) => c.scope === 'session');
      const done = new Set<string>();
      for (const c of session) {
        const ns = namespaceOf(c, inp);
        if (done.has(`${c.collection_id}/${ns}`)) continue;
        done.add(`${c.collection_id}/${ns}`);
        await memOf(c, agent.tenant?.secrets).clear(c.collection_id, ns);
      }
      return [...done];
    },

    /**
     * A single run's read (`loom run`/`loom start`, src/workflows/react/memory.ts): the same
     * `# Memory` block, stored as a loose user message so the run's history holds only its ref;
     * null when nothing matched.
     */
    async memoryReadMessage(inp: MemoryScope & { query: string; query_ref?: BlobRef }): Promise<{ ref: BlobRef | null; found: Record<string, number> }> {
      // Under pii_redaction (or an input guardrail that rewrote the input) the query is the stored first message.
      const query = inp.query_ref ? (await messages.getLoose(inp.query_ref)).content : inp.query;
      const r = await acts.memoryRead({ ...inp, query });
      return { ref: r.block ? await messages.putLoose({ role: 'user', content: r.block }) : null, found: r.found };
    },
  };
  return acts;
}
