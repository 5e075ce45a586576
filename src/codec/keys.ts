/**
 * The encryption keys of this process, read the same way by the CLI, the workers, the store and
 * `loom codec-server`: LOOM_CODEC_KEY (one or more keys, comma-separated) and/or LOOM_CODEC_KEY_FILE
 * (one key per line, `#` comments). A key is 32 bytes written as base64 or 64 hex digits, optionally
 * prefixed by its id (`2026-11:BASE64`); without an id it is named `k-<first 8 hex of its sha256>`.
 * Rotation: every listed key decodes, the NEWEST (the last one listed; LOOM_CODEC_KEY's after the
 * file's) encodes. LOOM_ENCRYPTION=on requires a key; LOOM_ENCRYPTION=off keeps decoding with the
 * keys but writes plaintext. Only key ids ever leave this module (payload metadata, messages).
 */
import * as fs from 'fs';
import { createHash } from 'crypto';

export interface CodecKey { id: string; key: Buffer }

export interface CodecKeys {
  /** Every key that may decode, by id. */
  byId: Map<string, CodecKey>;
  /** The key new payloads are encrypted with; undefined when encryption is off. */
  encodeWith?: CodecKey;
}

const HOW = 'write 32 random bytes as base64 (`openssl rand -base64 32`), optionally as `keyid:BASE64`';

function parseKey(text: string, where: string): CodecKey {
  const m = /^([A-Za-z0-9._-]{1,64}):(.+)$/.exec(text);
  const id = m?.[1];
  const raw = (m ? m[2] : text).trim();
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(raw) && !/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw))) {
    throw new Error(`${where} holds a key that is not 32 bytes of base64 or hex (${key.length} bytes${id ? `, id '${id}'` : ''}): ${HOW}`);
  }
  return { id: id ?? `k-${createHash('sha256').update(key).digest('hex').slice(0, 8)}`, key };
}

/** Parse key entries (pure): `entries` are [text, where-for-messages]. */
export function keysFrom(entries: Array<[string, string]>, encryption: 'on' | 'off' | undefined): CodecKeys {
  const list = entries.map(([t, w]) => parseKey(t, w));
  const byId = new Map<string, CodecKey>();
  for (const k of list) {
    const seen = byId.get(k.id);
    if (seen && !seen.key.equals(k.key)) throw new Error(`two different codec keys share the id '${k.id}': give each key its own id (keyid:BASE64)`);
    byId.set(k.id, k);
  }
  if (encryption === 'on' && !list.length) {
    throw new Error(`LOOM_ENCRYPTION=on but no key is configured: set LOOM_CODEC_KEY or LOOM_CODEC_KEY_FILE (${HOW})`);
  }
  return { byId, encodeWith: encryption === 'off' ? undefined : list[list.length - 1] };
}

/** The keys configured in `env` (reads LOOM_CODEC_KEY_FILE); byId is empty when none is configured. */
export function codecKeysFromEnv(env: NodeJS.ProcessEnv = process.env): CodecKeys {
  const mode = (env.LOOM_ENCRYPTION ?? '').trim().toLowerCase();
  if (mode && mode !== 'on' && mode !== 'off') throw new Error(`LOOM_ENCRYPTION must be on or off, got '${env.LOOM_ENCRYPTION}'`);
  const entries: Array<[string, string]> = [];
  const file = env.LOOM_CODEC_KEY_FILE?.trim();
  if (file) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`LOOM_CODEC_KEY_FILE ${file} cannot be read: ${(err as Error).message}`);
    }
    text.split(/\r?\n/).forEach((line, i) => {
      const t = line.replace(/#.*$/, '').trim();
      if (t) entries.push([t, `LOOM_CODEC_KEY_FILE ${file} line ${i + 1}`]);
    });
  }
  for (const part of (env.LOOM_CODEC_KEY ?? '').split(',')) if (part.trim()) entries.push([part.trim(), 'LOOM_CODEC_KEY']);
  return keysFrom(entries, (mode || undefined) as 'on' | 'off' | undefined);
}

/** True when this process has any key (so it installs the codec: to encode, or at least to decode). */
export function codecConfigured(keys: CodecKeys): boolean {
  return keys.byId.size > 0;
}
