/**
 * `retention_class: ephemeral` runs: nothing the run writes outlives it.
 *
 * - The client marks the run before it starts (`ephemeral-run`/<run>) and stores its first message
 *   there as a loose message salted with the run's id (markEphemeralRun), so the start event holds a
 *   reference, not the input.
 * - Every activity of a marked run writes through EphemeralTrackingStore: each blob or record it
 *   creates (one that did not exist before) is listed under `ephemeral-written`/<run>/… first, and
 *   the message store salts the run's chain and loose messages with the run's id, so no other run
 *   shares the blobs it deletes.
 * - endEphemeralRun (the workflow calls it as the run ends, completed, failed or cancelled) deletes
 *   them all and the mark; a completed run's output is kept in `ephemeral-output`/<run> until the
 *   client collects it (collectEphemeralOutput) or the purge sweeps it after the pickup window.
 */
import { Context } from '@temporalio/activity';
import type { BlobRef } from '../shared/contract';
import type { BlobStore } from '../store/types';
import { DelegatingStore } from '../store/delegating';
import { hashOf } from '../store/file';
import type { JsonObject } from '../compiled/types';
import { argsWithRef, splitArgs, storedArgsRef, type StoredArgs } from '../runtime/ephemeral-args';
import {
  EPHEMERAL_OUTPUT_KIND, EPHEMERAL_RUN_KIND, EPHEMERAL_WRITTEN_KIND, ephemeralRunKey, ephemeralSalt, ephemeralWrittenKey,
  KeptOutput, outputExpired, parseEphemeralWrittenKey, pickupHoursFromEnv, type EphemeralWrite,
} from '../runtime/artifacts';

const OWN_KINDS = new Set([EPHEMERAL_RUN_KIND, EPHEMERAL_WRITTEN_KIND, EPHEMERAL_OUTPUT_KIND]);
const MARK_CACHE = 5000;

/** The workflow id of the activity running now (undefined outside an activity). */
function currentRunId(): string | undefined {
  try {
    return Context.current().info.workflowExecution?.workflowId;
  } catch {
    return undefined;
  }
}

/** Mark `runId` ephemeral and store its first message, salted; returns the message's reference (RunOptions.input_ref). */
export async function markEphemeralRun(store: BlobStore, runId: string, agentId: string, firstMessage: string): Promise<BlobRef> {
  await store.setRecord(EPHEMERAL_RUN_KIND, ephemeralRunKey(runId), JSON.stringify({ agent_id: agentId, marked_at: new Date().toISOString() }));
  const body = JSON.stringify({ format: 'agentloom.loose/v1', msg: { role: 'user', content: firstMessage }, salt: ephemeralSalt(runId) });
  const hash = hashOf(body);
  await store.setRecord(EPHEMERAL_WRITTEN_KIND, ephemeralWrittenKey(runId, { blob: hash }), '');
  return store.put(body);
}

/**
 * The store activities use: like `inner`, but an activity of a run marked ephemeral lists every
 * blob and record it creates, so the run's end can delete them. Other runs pay one cached record
 * read per run id.
 */
export class EphemeralTrackingStore extends DelegatingStore {
  private readonly marks = new Map<string, boolean>();

  /** The run id when the current activity belongs to an ephemeral run. */
  async ephemeralRun(): Promise<string | undefined> {
    const id = currentRunId();
    if (id === undefined) return undefined;
    let marked = this.marks.get(id);
    if (marked === undefined) {
      marked = (await this.inner.getRecord(EPHEMERAL_RUN_KIND, ephemeralRunKey(id))) !== null;
      if (this.marks.size >= MARK_CACHE) this.marks.clear();
      this.marks.set(id, marked);
    }
    return marked ? id : undefined;
  }

  /** The salt the message store adds to a chain's first node and to loose messages (undefined: none). */
  async salt(): Promise<string | undefined> {
    const run = await this.ephemeralRun();
    return run === undefined ? undefined : ephemeralSalt(run);
  }

  private async track(run: string, w: EphemeralWrite): Promise<void> {
    await this.inner.setRecord(EPHEMERAL_WRITTEN_KIND, ephemeralWrittenKey(run, w), '');
  }

  override async put(data: Buffer | string): Promise<BlobRef> {
    const run = await this.ephemeralRun();
    if (run !== undefined) {
      const ref = { hash: hashOf(data) };
      // Listed before it is written, so a crash between the two still leaves it to delete.
      if (!(await this.inner.has(ref))) await this.track(run, { blob: ref.hash });
    }
    return this.inner.put(data);
  }

  override putJson(value: unknown): Promise<BlobRef> {
    return this.put(JSON.stringify(value));
  }

  override async setRecord(kind: string, key: string, value: string): Promise<void> {
    if (!OWN_KINDS.has(kind)) {
      const run = await this.ephemeralRun();
      if (run !== undefined && (await this.inner.getRecord(kind, key)) === null) await this.track(run, { record: { kind, key } });
    }
    return this.inner.setRecord(kind, key, value);
  }
}

/**
 * An ephemeral run's tool call arguments: stored salted (the tracking store lists
 * the blob for deletion), and the reference the workflow gets instead (src/runtime/ephemeral-args.ts).
 */
export async function storeCallArgs(blobs: BlobStore, salt: string, args: JsonObject, sensitiveFields: readonly string[] = []): Promise<JsonObject> {
  const { stored, kept } = splitArgs(args);
  const body: StoredArgs = { format: 'agentloom.args/v1', args: stored, salt, ...(sensitiveFields.length ? { sensitive_fields: [...sensitiveFields] } : {}) };
  return argsWithRef(await blobs.putJson(body), kept);
}

/** The arguments behind a stored-arguments reference (other arguments as they are). */
export async function resolveArgs(blobs: BlobStore, args: JsonObject): Promise<JsonObject> {
  const ref = storedArgsRef(args);
  if (!ref) return args;
  if (!(await blobs.has(ref))) throw new Error(`the tool call's arguments (${ref.hash}) are no longer in the store: the ephemeral run that stored them has ended`);
  return (await blobs.getJson<StoredArgs>(ref)).args;
}

/** Delete everything `runId` created and its mark; returns how many blobs and records went. */
export async function deleteEphemeralWrites(store: BlobStore, runId: string): Promise<number> {
  const listed = await store.listRecords(EPHEMERAL_WRITTEN_KIND, ephemeralRunKey(runId));
  for (const r of listed) {
    const w = parseEphemeralWrittenKey(runId, r.key);
    if (w && 'blob' in w) await store.delete({ hash: w.blob });
    else if (w) await store.deleteRecord(w.record.kind, w.record.key);
    await store.deleteRecord(EPHEMERAL_WRITTEN_KIND, r.key);
  }
  await store.deleteRecord(EPHEMERAL_RUN_KIND, ephemeralRunKey(runId));
  return listed.length;
}

export interface EndEphemeralRunInput {
  agent_id: string;
  /** A completed run's final output, kept until it is collected; absent when the run failed or was cancelled. */
  output?: unknown;
  /** ...or where the model activity stored it, so the history does not hold it. */
  output_ref?: BlobRef;
}

/** The collection point of a kept output: what the workflow result holds instead of the output. */
export interface EphemeralOutputRef {
  ephemeral_output: string;
  collect_with: string;
}

export function createEphemeralActivities(deps: { store: BlobStore }) {
  return {
    /** The run's end: delete every blob and record it created; keep a completed run's output for pickup. */
    async endEphemeralRun(inp: EndEphemeralRunInput): Promise<{ deleted: number; output?: EphemeralOutputRef }> {
      const runId = currentRunId();
      if (runId === undefined) throw new Error('endEphemeralRun runs only as an activity of the run it ends');
      let output: EphemeralOutputRef | undefined;
      if ('output' in inp || inp.output_ref) {
        const value = inp.output_ref ? (await deps.store.getJson<{ value: unknown }>(inp.output_ref)).value : inp.output;
        const kept: KeptOutput = { agent_id: inp.agent_id, kept_at: new Date().toISOString(), output: value ?? null };
        await deps.store.setRecord(EPHEMERAL_OUTPUT_KIND, ephemeralRunKey(runId), JSON.stringify(kept));
        output = { ephemeral_output: runId, collect_with: `loom result ${runId}` };
      }
      const deleted = await deleteEphemeralWrites(deps.store, runId);
      return { deleted, ...(output ? { output } : {}) };
    },
  };
}

/** Is this workflow result an ephemeral run's collection point? */
export function ephemeralOutputRef(output: unknown): EphemeralOutputRef | undefined {
  const o = output as Partial<EphemeralOutputRef> | null;
  return o && typeof o === 'object' && typeof o.ephemeral_output === 'string' && typeof o.collect_with === 'string' ? (o as EphemeralOutputRef) : undefined;
}

/** The client collects a kept output: read it and delete it (null: already collected or swept). */
export async function collectEphemeralOutput(store: BlobStore, runId: string): Promise<KeptOutput | null> {
  const raw = await store.getRecord(EPHEMERAL_OUTPUT_KIND, ephemeralRunKey(runId));
  if (raw === null) return null;
  await store.deleteRecord(EPHEMERAL_OUTPUT_KIND, ephemeralRunKey(runId));
  return JSON.parse(raw) as KeptOutput;
}

/** The purge: delete outputs nobody collected within the pickup window (LOOM_EPHEMERAL_PICKUP_HOURS). */
export async function sweepEphemeralOutputs(store: BlobStore, now: Date, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const hours = pickupHoursFromEnv(env);
  let n = 0;
  for (const r of await store.listRecords(EPHEMERAL_OUTPUT_KIND, '')) {
    let keptAt = '';
    try {
      keptAt = (JSON.parse(r.value) as KeptOutput).kept_at;
    } catch {
      // unreadable: swept
    }
    if (outputExpired(keptAt, now, hours)) {
      await store.deleteRecord(EPHEMERAL_OUTPUT_KIND, r.key);
      n += 1;
    }
  }
  return n;
}
