/** Canonical JSON (sorted keys, no whitespace) and sha256, shared by compile and publish. */
import { createHash } from 'crypto';

/** Canonical JSON: object keys sorted, no whitespace, `undefined` members dropped. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  writeCanon(value, out);
  return out.join('');
}

function writeCanon(value: unknown, out: string[]): void {
  if (value === null || typeof value !== 'object') {
    if (value === undefined || (typeof value === 'number' && !Number.isFinite(value))) out.push('null');
    else out.push(JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i) out.push(',');
      writeCanon(value[i] === undefined ? null : value[i], out);
    }
    out.push(']');
    return;
  }
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  out.push('{');
  let first = true;
  for (const k of keys) {
    const v = o[k];
    if (v === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(k), ':');
    writeCanon(v, out);
  }
  out.push('}');
}

/** Hex sha256 of text (UTF-8) or bytes: the one hash helper of compiler, blob store and tools. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

