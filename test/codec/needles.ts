/** What a scan of histories and stores looks for: a phrase as it would appear raw, hex- or base64-encoded. */

/** The phrase as raw bytes, as hex, and as base64 (and base64url) at each of the three byte alignments. */
export function needles(phrase: string): Buffer[] {
  const raw = Buffer.from(phrase, 'utf8');
  const out = [raw, Buffer.from(raw.toString('hex')), Buffer.from(raw.toString('hex').toUpperCase())];
  for (let pad = 0; pad < 3; pad++) {
    const b64 = Buffer.concat([Buffer.alloc(pad), raw]).toString('base64');
    // Drop the characters that depend on the neighbouring bytes (the padding before, the tail after).
    const core = b64.slice(Math.ceil((pad * 4) / 3) + 1, b64.length - 4);
    out.push(Buffer.from(core), Buffer.from(core.replace(/\+/g, '-').replace(/\//g, '_')));
  }
  return out;
}
