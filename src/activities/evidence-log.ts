/**
 * The evidence log a run keeps in its workspace, written by the tools themselves (never from a
 * model's text): one record per real `write_file` call and per `shell` run, stored under
 * `.loom-evidence/` (which the file tools refuse to touch) as one file per call named by the call's
 * idempotency key, so a retried activity records a call once. `changes.json` at the workspace root
 * is fuseraft's change log, rendered from the write records after every write (agents may read it;
 * `write_file` refuses to write it). src/activities/evidence.ts reads the log for each agent turn.
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { sha256 } from '../compiled/canonical';

export const EVIDENCE_DIR = '.loom-evidence';
/** fuseraft's change log, at the workspace root. */
export const CHANGES_FILE = 'changes.json';

export interface ChangeRecord {
  path: string;
  mode: 'overwrite' | 'append';
  bytes: number;
  sha256: string;
  /** The member run (agent turn) that made the call. */
  workflow_id: string;
  call_id: string;
  at: string;
}

export interface ShellRecord {
  command: string;
  exit_code: number;
  timed_out: boolean;
  /** The last characters of stdout then stderr. */
  output_tail: string;
  workflow_id: string;
  call_id: string;
  at: string;
}

/** Characters of output kept in a shell record. */
export const OUTPUT_TAIL_CHARS = 2000;

const recordFile = (root: string, kind: 'changes' | 'shell', key: string): string => path.join(root, EVIDENCE_DIR, kind, `${sha256(key)}.json`);

async function writeAtomic(file: string, data: string): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await fs.promises.writeFile(tmp, data);
  await fs.promises.rename(tmp, file);
}

async function readRecords<T>(root: string, kind: 'changes' | 'shell'): Promise<T[]> {
  const dir = path.join(root, EVIDENCE_DIR, kind);
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: T[] = [];
  for (const n of names.filter((x) => x.endsWith('.json'))) {
    try {
      out.push(JSON.parse(await fs.promises.readFile(path.join(dir, n), 'utf8')) as T);
    } catch {
      // a half-written temp file or a foreign file: not a record
    }
  }
  return out.sort((a, b) => {
    const x = a as unknown as { at: string; call_id: string };
    const y = b as unknown as { at: string; call_id: string };
    return x.at.localeCompare(y.at) || x.call_id.localeCompare(y.call_id);
  });
}

/** Renders of changes.json in this process run one at a time (concurrent writes of one turn). */
let renderQueue: Promise<void> = Promise.resolve();

/** Record one write_file call (idempotent per key) and re-render changes.json. */
export async function recordChange(root: string, key: string, rec: ChangeRecord): Promise<void> {
  await writeAtomic(recordFile(root, 'changes', key), JSON.stringify(rec));
  const render = renderQueue.then(async () => {
    const all = await readRecords<ChangeRecord>(root, 'changes');
    await writeAtomic(path.join(root, CHANGES_FILE), `${JSON.stringify(all, null, 2)}\n`);
  });
  renderQueue = render.catch(() => undefined);
  await render;
}

/** A shell run already recorded under this idempotency key (a retried activity returns it). */
export async function recordedShellRun(root: string, key: string): Promise<ShellRecord | undefined> {
  try {
    return JSON.parse(await fs.promises.readFile(recordFile(root, 'shell', key), 'utf8')) as ShellRecord;
  } catch {
    return undefined;
  }
}

export async function recordShellRun(root: string, key: string, rec: ShellRecord): Promise<void> {
  await writeAtomic(recordFile(root, 'shell', key), JSON.stringify(rec));
}

export const changeRecords = (root: string): Promise<ChangeRecord[]> => readRecords<ChangeRecord>(root, 'changes');
export const shellRecords = (root: string): Promise<ShellRecord[]> => readRecords<ShellRecord>(root, 'shell');
