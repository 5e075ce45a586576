/**
 * Serialized size of a Temporal history event, payload bytes counted as bytes (not as the JSON
 * index maps Buffer#toJSON produces). Used by bench:runtime and the history-growth tests.
 */
export function eventBytes(e: unknown): number {
  let bin = 0;
  const json = JSON.stringify(e, (_k, v: unknown) => {
    if (v instanceof Uint8Array) {
      bin += v.byteLength;
      return '';
    }
    // Buffers arrive here already through Buffer#toJSON: {type: 'Buffer', data: number[]}.
    const b = v as { type?: string; data?: unknown };
    if (b && b.type === 'Buffer' && Array.isArray(b.data)) {
      bin += b.data.length;
      return '';
    }
    return v;
  });
  return Buffer.byteLength(json) + bin;
}
