/**
 * Vector arithmetic for embeddings ranking (knowledge search, memory search). Pure and dependency
 * free, so workflow code importing src/runtime/memory.ts does not bundle the knowledge search.
 */

/** Cosine similarity of two vectors (0 when either is all zeros or their lengths differ). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || !a.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
