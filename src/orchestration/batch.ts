/**
 * agf.batch scale planning, pure: a batch larger than one execution can hold is split into shard
 * child workflows of at most `shardSize` items, so no single history approaches Temporal's
 * 10,240-event warning (each child costs ~5–6 events in its parent).
 */

/** Items per shard child: one execution starts at most this many members. */
export const BATCH_SHARD_SIZE = 500;
/**
 * At most this many shards per execution. The tree is one level deep (a shard never re-shards):
 * above BATCH_SHARD_SIZE × this many items the shards simply get larger (up to 250,000 items no execution nears Temporal's event-count warning).
 */
export const BATCH_MAX_SHARDS_PER_EXECUTION = 500;

export interface ItemRange {
  /** First item index (inclusive). */
  start: number;
  /** Last item index (exclusive). */
  end: number;
}

/** Split [0, n) into consecutive ranges of at most `size` items. */
export function shardRanges(n: number, size: number, offset = 0): ItemRange[] {
  if (size < 1) throw new Error('shard size must be >= 1');
  const out: ItemRange[] = [];
  for (let s = 0; s < n; s += size) out.push({ start: offset + s, end: offset + Math.min(n, s + size) });
  return out;
}

/**
 * Shard size for a range of `n` items: leaves directly when n <= leafSize, otherwise the smallest
 * multiple of leafSize that keeps the number of shards <= maxShards.
 */
export function shardSizeFor(n: number, leafSize = BATCH_SHARD_SIZE, maxShards = BATCH_MAX_SHARDS_PER_EXECUTION): number {
  if (n <= leafSize) return n;
  let size = leafSize;
  while (Math.ceil(n / size) > maxShards) size *= leafSize;
  return size;
}

/** Effective member concurrency: max_concurrency when given, else a default (bounded). */
export function batchConcurrency(maxConcurrency: number | undefined, dflt = 50): number {
  return maxConcurrency && maxConcurrency > 0 ? Math.floor(maxConcurrency) : dflt;
}

/**
 * Run `fn` over `items` with at most `limit` in flight; results in input order. Pure control
 * flow (no timers), so it is safe inside workflow code.
 */
export async function mapBounded<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  });
  await Promise.all(workers);
  return results;
}
