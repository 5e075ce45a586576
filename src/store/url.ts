/**
 * LOOM_STORE_URL parsing: `file:///folder` or `postgres://user:pass@host:port/db`. Pure (no I/O).
 * The password stays in the parsed connection string only; every text meant for a human
 * (`display`, error messages) is redacted.
 */
import * as path from 'path';
import { fileURLToPath } from 'url';

export type StoreLocation =
  | { kind: 'file'; dir: string; display: string }
  | { kind: 'postgres'; connectionString: string; host: string; port: number; database: string; user: string; display: string };

const SHAPES = 'file:///absolute/folder or postgres://user:password@host:5432/database';

/** `url` with any password replaced by `***` (also inside text that is not a valid URL). */
export function redactStoreUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

/** Parse a LOOM_STORE_URL; throws a message naming the variable, the redacted value and what to write. */
export function parseStoreUrl(raw: string, cwd: string = process.cwd()): StoreLocation {
  const text = raw.trim();
  const bad = (why: string): Error => new Error(`LOOM_STORE_URL ${why}: write ${SHAPES}, got '${redactStoreUrl(text)}'`);
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    // A bare folder is what LOOM_STORE_DIR takes; accept it here too rather than fail on a missing scheme.
    if (!/^[a-z][a-z0-9+.-]*:/i.test(text) && text) {
      const dir = path.resolve(cwd, text);
      return { kind: 'file', dir, display: dir };
    }
    throw bad('is not a URL');
  }
  if (u.protocol === 'file:') {
    if (u.host && u.host !== 'localhost') throw bad(`names a host (${u.host}) in a file URL`);
    const dir = path.resolve(fileURLToPath(u));
    return { kind: 'file', dir, display: dir };
  }
  if (u.protocol === 'postgres:' || u.protocol === 'postgresql:') {
    const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
    if (!u.hostname) throw bad('has no host');
    if (!database) throw bad('has no database name');
    const port = u.port ? Number(u.port) : 5432;
    const user = decodeURIComponent(u.username || 'postgres');
    return { kind: 'postgres', connectionString: text, host: u.hostname, port, database, user, display: `postgres://${user}@${u.hostname}:${port}/${database}` };
  }
  throw bad(`has the unsupported scheme '${u.protocol.replace(/:$/, '')}'`);
}
