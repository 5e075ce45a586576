/**
 * The workspace file tools `read_file` and `write_file`: confined to the run's workspace, writes
 * idempotent per call (a ledger keyed by the call) and recorded in the workspace's change log
 * (evidence-log.ts).
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import type { JsonObject } from '../compiled/types';
import { sha256 } from '../compiled/canonical';
import { loomEnv } from '../platform/env';
import type { ExternalToolContext } from './react-tools';
import { CHANGES_FILE, EVIDENCE_DIR, recordChange } from './evidence-log';

/** Folder inside the workspace holding write_file's idempotency ledger; file tools refuse it. */
export const LEDGER_DIR = '.loom-idempotency';
const MAX_READ_BYTES = 256 * 1024;
const MAX_WRITE_BYTES = 5 * 1024 * 1024;

function safeSegment(id: string): string {
  const s = id.replace(/[^A-Za-z0-9._-]/g, '_');
  return !s || /^\.+$/.test(s) ? `_${s}` : s;
}

/** The run's workspace: ctx.workspace (operator-chosen), else `<LOOM_HOME|.loom>/workspaces/<workflowId>`. */
export function workspaceRoot(ctx: Pick<ExternalToolContext, 'workspace' | 'workflowId'>): string {
  if (ctx.workspace) return path.resolve(ctx.workspace);
  const home = path.resolve(loomEnv('LOOM_HOME') ?? path.join(process.cwd(), '.loom'));
  return path.join(home, 'workspaces', safeSegment(ctx.workflowId || 'default'));
}

function within(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

function errCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException)?.code;
}

/** Lexical checks on a model-supplied path: relative, inside the workspace, not the ledger. */
function relativeTarget(root: string, p: unknown): { rel: string; abs: string } {
  if (typeof p !== 'string' || !p.trim()) throw new Error("'path' must be a non-empty string (relative to the workspace)");
  if (p.includes('\0')) throw new Error("'path' must not contain NUL characters");
  if (path.isAbsolute(p) || /^[A-Za-z]:[\\/]/.test(p)) throw new Error(`path '${p}' is absolute; use a path relative to the workspace`);
  const abs = path.resolve(root, p);
  const rel = path.relative(root, abs);
  if (rel === '') throw new Error(`path '${p}' is the workspace folder itself, not a file`);
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) throw new Error(`path '${p}' escapes the workspace`);
  if (rel.split(path.sep)[0] === LEDGER_DIR || rel.split(path.sep)[0] === EVIDENCE_DIR) throw new Error(`path '${p}' is reserved by the runtime`);
  return { rel, abs };
}

async function realRootOf(root: string, create: boolean): Promise<string> {
  if (create) await fs.promises.mkdir(root, { recursive: true });
  try {
    return await fs.promises.realpath(root);
  } catch (e) {
    if (errCode(e) === 'ENOENT') throw new Error('the workspace is empty (no files have been written yet)');
    throw e;
  }
}

/** Resolve an existing file for reading; symlinks must stay inside the workspace. */
async function resolveForRead(root: string, p: unknown): Promise<{ rel: string; real: string }> {
  const { rel, abs } = relativeTarget(root, p);
  const realRoot = await realRootOf(root, false);
  let real: string;
  try {
    real = await fs.promises.realpath(abs);
  } catch (e) {
    if (errCode(e) === 'ENOENT') throw new Error(`file '${rel}' not found in the workspace`);
    throw e;
  }
  if (!within(realRoot, real)) throw new Error(`path '${rel}' resolves (through a symlink) outside the workspace`);
  return { rel, real };
}

/** Resolve a file for writing: its parent folder is created inside the workspace; symlinked parents must stay inside. */
async function resolveForWrite(root: string, p: unknown): Promise<{ rel: string; dir: string; file: string; realRoot: string }> {
  const { rel, abs } = relativeTarget(root, p);
  const realRoot = await realRootOf(root, true);
  // Nearest existing ancestor of the target's folder: its real path must be inside the workspace.
  let anc = path.dirname(abs);
  for (;;) {
    try {
      await fs.promises.lstat(anc);
      break;
    } catch (e) {
      if (errCode(e) !== 'ENOENT') throw e;
      anc = path.dirname(anc);
    }
  }
  if (!within(realRoot, await fs.promises.realpath(anc))) throw new Error(`path '${rel}' resolves (through a symlink) outside the workspace`);
  await fs.promises.mkdir(path.dirname(abs), { recursive: true });
  const dir = await fs.promises.realpath(path.dirname(abs));
  if (!within(realRoot, dir)) throw new Error(`path '${rel}' resolves (through a symlink) outside the workspace`);
  const file = path.join(dir, path.basename(abs));
  try {
    const st = await fs.promises.lstat(file);
    if (st.isDirectory()) throw new Error(`path '${rel}' is a folder`);
    if (st.isSymbolicLink()) {
      let target: string | undefined;
      try {
        target = await fs.promises.realpath(file);
      } catch {
        target = undefined;
      }
      if (!target || !within(realRoot, target)) throw new Error(`path '${rel}' is a symlink pointing outside the workspace`);
    }
  } catch (e) {
    if (errCode(e) !== 'ENOENT') throw e;
  }
  return { rel, dir, file, realRoot };
}

async function atomicWrite(file: string, data: string | Buffer): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await fs.promises.writeFile(tmp, data, { flag: 'wx' });
    await fs.promises.rename(tmp, file); // replaces the entry itself: never writes through a symlink
  } catch (e) {
    await fs.promises.rm(tmp, { force: true });
    throw e;
  }
}


interface LedgerEntry {
  state: 'pending' | 'done';
  path: string;
  final_sha256: string;
  result?: JsonObject;
}

async function readLedger(file: string): Promise<LedgerEntry | undefined> {
  try {
    return JSON.parse(await fs.promises.readFile(file, 'utf8')) as LedgerEntry;
  } catch (e) {
    if (errCode(e) === 'ENOENT' || e instanceof SyntaxError) return undefined;
    throw e;
  }
}

export async function readFileTool(args: JsonObject, ctx: ExternalToolContext): Promise<string> {
  const { rel, real } = await resolveForRead(workspaceRoot(ctx), args.path);
  const st = await fs.promises.stat(real);
  if (st.isDirectory()) {
    const names = (await fs.promises.readdir(real, { withFileTypes: true })).filter((d) => d.name !== LEDGER_DIR && d.name !== EVIDENCE_DIR).map((d) => (d.isDirectory() ? `${d.name}/` : d.name));
    return `folder '${rel}': ${names.sort().join(', ') || '(empty)'}`;
  }
  if (!st.isFile()) throw new Error(`'${rel}' is not a regular file`);
  const limit = Math.max(1, Math.min(MAX_READ_BYTES, typeof args.max_bytes === 'number' ? args.max_bytes : MAX_READ_BYTES));
  const fh = await fs.promises.open(real, 'r');
  try {
    const buf = Buffer.alloc(Math.min(limit, st.size));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const data = buf.subarray(0, bytesRead);
    if (data.includes(0)) return `[binary file '${rel}', ${st.size} bytes, not shown]`;
    const text = data.toString('utf8');
    return st.size > bytesRead ? `${text}\n…[truncated: showed ${bytesRead} of ${st.size} bytes]` : text;
  } finally {
    await fh.close();
  }
}

/**
 * Write (or append to) a workspace file. Idempotent per ctx.idempotencyKey: the ledger records the
 * call's final content hash before the write and its result after, so a retried attempt returns the
 * recorded result and an append is never applied twice (even when the worker died mid-call).
 */
export async function writeFileTool(args: JsonObject, ctx: ExternalToolContext): Promise<JsonObject> {
  const root = workspaceRoot(ctx);
  const content = typeof args.content === 'string' ? args.content : args.content === undefined ? undefined : JSON.stringify(args.content, null, 2);
  if (content === undefined) throw new Error("'content' is required");
  if (Buffer.byteLength(content) > MAX_WRITE_BYTES) throw new Error(`content is larger than ${MAX_WRITE_BYTES} bytes`);
  const append = args.append === true || args.mode === 'append';
  const { rel, file, realRoot } = await resolveForWrite(root, args.path);
  if (rel === CHANGES_FILE) throw new Error(`'${CHANGES_FILE}' is the change log the runtime records from write_file calls; write your own notes to another file`);

  const ledgerFile = ctx.idempotencyKey ? path.join(realRoot, LEDGER_DIR, `${sha256(ctx.idempotencyKey)}.json`) : undefined;
  const prior = ledgerFile ? await readLedger(ledgerFile) : undefined;
  if (prior?.state === 'done' && prior.result) return prior.result;

  let existing: Buffer | undefined;
  try {
    existing = await fs.promises.readFile(file);
  } catch (e) {
    if (errCode(e) !== 'ENOENT') throw e;
  }
  const result = (size: number): JsonObject => ({ path: rel, bytes_written: Buffer.byteLength(content), size, mode: append ? 'append' : 'overwrite' });

  // A previous attempt got as far as the write but not the ledger's 'done': do not apply it again.
  if (prior?.state === 'pending' && prior.path === rel && existing && sha256(existing) === prior.final_sha256) {
    const r = result(existing.length);
    await atomicWrite(ledgerFile!, JSON.stringify({ ...prior, state: 'done', result: r } satisfies LedgerEntry));
    return r;
  }

  const final = append && existing ? Buffer.concat([existing, Buffer.from(content)]) : Buffer.from(content);
  if (ledgerFile) {
    await fs.promises.mkdir(path.dirname(ledgerFile), { recursive: true });
    await atomicWrite(ledgerFile, JSON.stringify({ state: 'pending', path: rel, final_sha256: sha256(final) } satisfies LedgerEntry));
  }
  ctx.heartbeat();
  await atomicWrite(file, final);
  const r = result(final.length);
  // Evidence for validators (RequireWriteFile, RequireAllFilesWritten, FilesWritten): recorded before 'done', so a retry records it too.
  await recordChange(realRoot, ctx.idempotencyKey || `${ctx.workflowId}/${ctx.callId}`, {
    path: rel.split(path.sep).join('/'), mode: append ? 'append' : 'overwrite', bytes: Buffer.byteLength(content), sha256: sha256(final),
    workflow_id: ctx.workflowId, call_id: ctx.callId, at: new Date().toISOString(),
  });
  if (ledgerFile) await atomicWrite(ledgerFile, JSON.stringify({ state: 'done', path: rel, final_sha256: sha256(final), result: r } satisfies LedgerEntry));
  return r;
}
