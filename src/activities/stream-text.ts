/**
 * The side channel for `loom run --stream` (the Execution Loop specification's "Request & Call Streaming"; RunOptions.stream_text):
 * the model activity writes the text of the turn it is streaming, as it arrives, to the shared
 * store's record `stream`/<workflow id> — the folder or PostgreSQL every worker and the CLI already
 * share (LOOM_STORE_URL), so it works on a real cluster. Tokens never enter workflow history. Writes
 * are coalesced (at most one in flight, the newest text wins) and never fail the model turn: the
 * channel is best effort, the run's result is the record.
 */
import type { BlobStore } from '../store/types';

export const STREAM_RECORD_KIND = 'stream';

/** What the record holds: the whole text of `turn` so far (attempt: the model activity's attempt). */
export interface StreamTextRecord {
  turn: number;
  attempt: number;
  text: string;
  done: boolean;
}

export class StreamTextSink {
  private text = '';
  private writing: Promise<void> = Promise.resolve();
  private queued = false;

  constructor(
    private readonly store: BlobStore,
    private readonly workflowId: string,
    private readonly turn: number,
    private readonly attempt: number,
  ) {}

  /** Text that just arrived. */
  add(delta: string): void {
    if (!delta) return;
    this.text += delta;
    this.schedule(false);
  }

  /** The turn's text is complete (`text` replaces what streamed, e.g. after redaction); waits for the write. */
  async finish(text?: string): Promise<void> {
    if (text !== undefined) this.text = text;
    this.schedule(true);
    await this.writing;
  }

  private schedule(done: boolean): void {
    if (this.queued && !done) return;
    this.queued = true;
    this.writing = this.writing.then(async () => {
      this.queued = false;
      const rec: StreamTextRecord = { turn: this.turn, attempt: this.attempt, text: this.text, done };
      try {
        await this.store.setRecord(STREAM_RECORD_KIND, this.workflowId, JSON.stringify(rec));
      } catch {
        // best effort: a store hiccup must not fail the model turn
      }
    });
  }
}

/** Parse a stream record (undefined when absent or not one). */
export function parseStreamRecord(raw: string | null): StreamTextRecord | undefined {
  if (!raw) return undefined;
  try {
    const r = JSON.parse(raw) as StreamTextRecord;
    return typeof r.turn === 'number' && typeof r.text === 'string' ? r : undefined;
  } catch {
    return undefined;
  }
}
