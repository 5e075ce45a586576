/**
 * The tool executor for the react runtime (`runTool` in react-tools.ts calls `executeTool`).
 *
 * - builtin tools: a worker-side registry. It starts with MINIMAL_BUILTINS (echo, arithmetic,
 *   current_time, fail, sleep) plus `calculator` (parsed by mathjs, evaluated over a whitelist; no eval), `read_file`
 *   and `write_file` (confined to the run's workspace; writes are idempotent per call and recorded in the
 *   workspace's change log, evidence-log.ts), `shell` (shell.ts: allowed commands only). Workers
 *   add their own with `registerBuiltinTool(name, fn)`.
 * - http tools (`kind: http`): URL template filled from URL-encoded arguments, the rest as query
 *   string (GET, or `body: none`) or JSON body; headers from env vars (`value_env`); an
 *   `Idempotency-Key` header on non-GET; a W3C `traceparent` when the agent traces and propagates
 *   context (src/platform/trace-context.ts); the network policy of src/governance/network.ts checked before
 *   connecting, and the connection made to the checked addresses only (DNS-rebinding safe).
 *
 * Failure semantics (react-tools.ts turns thrown errors into error results for the model):
 * - retryable ApplicationFailure (429, 5xx, 408/409/425, timeouts, connection errors, transient DNS):
 *   react-tools rethrows it so Temporal retries the activity; on the last attempt the model sees it.
 * - everything else (4xx, policy refusals, bad arguments, missing env vars, builtin errors): a
 *   non-retryable failure or plain Error, which the model sees as a tool error result.
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import * as path from 'path';
import { ApplicationFailure } from '@temporalio/common';
import type { ConstantNode, FunctionNode, MathNode, OperatorNode, ParenthesisNode, SymbolNode } from 'mathjs';
import type { JsonObject, JsonValue } from '../compiled/types';
import { sha256 } from '../compiled/canonical';
import { MINIMAL_BUILTINS } from './agent-loader';
import { loomEnv } from '../platform/env';
import { classifyFailure, toApplicationFailure } from './errors';
import { checkHttpTarget, guardedLookup, NetPolicy, Resolver, systemResolver } from '../governance/network';
import type { ExternalToolContext } from './react-tools';
import { searchSources } from './knowledge';
import { CHANGES_FILE, EVIDENCE_DIR, recordChange } from './evidence-log';
import { shellTool } from './shell';
import { SHELL_BUILTIN } from '../governance/shell';
import { currentTraceHeaders } from '../platform/trace-context';

// ---------------------------------------------------------------------------------------------
// Builtin registry
// ---------------------------------------------------------------------------------------------

/** A builtin tool: gets the validated arguments and the call context; its return value is the result. */
export type BuiltinToolFn = (args: JsonObject, ctx: ExternalToolContext) => Promise<unknown> | unknown;

const registry = new Map<string, BuiltinToolFn>();

/**
 * Register (or replace) a builtin tool in this worker process. Tool files name it with
 * `kind: builtin, builtin: { name }`. Returns a function that restores the previous registration.
 */
export function registerBuiltinTool(name: string, fn: BuiltinToolFn): () => void {
  if (!/^[A-Za-z][\w.-]{0,127}$/.test(name)) throw new Error(`invalid builtin tool name '${name}'`);
  if (typeof fn !== 'function') throw new Error(`builtin tool '${name}' must be a function`);
  const prev = registry.get(name);
  registry.set(name, fn);
  return () => {
    if (registry.get(name) !== fn) return;
    if (prev) registry.set(name, prev);
    else registry.delete(name);
  };
}

export function builtinToolNames(): string[] {
  return [...registry.keys()].sort();
}

export function getBuiltinTool(name: string): BuiltinToolFn | undefined {
  return registry.get(name);
}

// ---------------------------------------------------------------------------------------------
// calculator: mathjs parses (precedence, associativity, positions); this file evaluates the tree
// over a whitelist of node types, operators, functions and constants — no eval, no mathjs scope.
// ---------------------------------------------------------------------------------------------

const MAX_EXPR_CHARS = 2000;
const MAX_DEPTH = 100;

const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI };
const FUNCTIONS: Record<string, { min: number; max: number; fn: (...a: number[]) => number }> = {
  sqrt: { min: 1, max: 1, fn: Math.sqrt },
  cbrt: { min: 1, max: 1, fn: Math.cbrt },
  abs: { min: 1, max: 1, fn: Math.abs },
  round: {
    min: 1,
    max: 2,
    fn: (x, d = 0) => {
      const f = 10 ** Math.trunc(d);
      return Math.round(x * f) / f;
    },
  },
  floor: { min: 1, max: 1, fn: Math.floor },
  ceil: { min: 1, max: 1, fn: Math.ceil },
  trunc: { min: 1, max: 1, fn: Math.trunc },
  sign: { min: 1, max: 1, fn: Math.sign },
  exp: { min: 1, max: 1, fn: Math.exp },
  ln: { min: 1, max: 1, fn: Math.log },
  log: { min: 1, max: 2, fn: (x, b) => (b === undefined ? Math.log10(x) : Math.log(x) / Math.log(b)) },
  log10: { min: 1, max: 1, fn: Math.log10 },
  log2: { min: 1, max: 1, fn: Math.log2 },
  sin: { min: 1, max: 1, fn: Math.sin },
  cos: { min: 1, max: 1, fn: Math.cos },
  tan: { min: 1, max: 1, fn: Math.tan },
  asin: { min: 1, max: 1, fn: Math.asin },
  acos: { min: 1, max: 1, fn: Math.acos },
  atan: { min: 1, max: 1, fn: Math.atan },
  pow: { min: 2, max: 2, fn: Math.pow },
  hypot: { min: 1, max: 100, fn: Math.hypot },
  min: { min: 1, max: 100, fn: Math.min },
  max: { min: 1, max: 100, fn: Math.max },
};

/** What an expression may contain; anything else is refused before parsing (strings, `;`, `=`, `[`, `#` comments…). */
const ALLOWED_CHAR = /[0-9A-Za-z_.\s+\-*/%^(),]/;
const BINARY: Record<string, (a: number, b: number) => number> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '%': (a, b) => a % b,
  '^': (a, b) => a ** b,
};

let mathParse: ((expr: string) => MathNode) | undefined;
/** mathjs's parser, loaded on the first calculator call (the library takes ~0.5 s to load; a worker that never calculates never pays it). */
function parseTree(src: string): MathNode {
  if (!mathParse) {
    const { create, parseDependencies } = require('mathjs/number') as typeof import('mathjs');
    mathParse = create({ parseDependencies }).parse;
  }
  return mathParse(src);
}

/** mathjs syntax errors in the calculator's words, with 1-based positions. */
function syntaxError(e: Error & { char?: number }, src: string): Error {
  const at = typeof e.char === 'number' ? e.char : undefined;
  const where = at === undefined || at > src.trimEnd().length ? 'at the end' : `at position ${at}`;
  const msg = e.message.replace(/\s*\(char \d+\)\s*$/, '');
  let m: RegExpExecArray | null;
  if (/^Unexpected end of expression/.test(msg)) return new Error('calculator: unexpected end of expression');
  if ((m = /^Parenthesis (\S) expected/.exec(msg))) return new Error(`calculator: expected '${m[1]}' ${where}`);
  if ((m = /^Unexpected (?:part|operator) "?(.+?)"?$/.exec(msg))) return new Error(`calculator: unexpected '${m[1]}' ${where}`);
  if (/^Value expected/.test(msg)) return new Error(`calculator: a number is expected ${where}`);
  return new Error(`calculator: ${msg.charAt(0).toLowerCase()}${msg.slice(1)} ${where}`);
}

function evalTree(node: MathNode, depth: number): number {
  if (depth > MAX_DEPTH) throw new Error('calculator: expression nested too deeply');
  switch (node.type) {
    case 'ConstantNode': {
      const v = (node as ConstantNode).value as unknown;
      if (typeof v !== 'number') throw new Error(`calculator: '${node.toString()}' is not a number`);
      return v;
    }
    case 'ParenthesisNode':
      return evalTree((node as ParenthesisNode).content, depth + 1);
    case 'SymbolNode': {
      const name = (node as SymbolNode).name.toLowerCase();
      if (Object.hasOwn(CONSTANTS, name)) return CONSTANTS[name];
      throw new Error(`calculator: unknown name '${name}'${Object.hasOwn(FUNCTIONS, name) ? ` (a function: write ${name}(…))` : ''}`);
    }
    case 'FunctionNode': {
      const fnNode = (node as FunctionNode).fn as MathNode;
      const name = fnNode.type === 'SymbolNode' ? (fnNode as SymbolNode).name.toLowerCase() : fnNode.toString();
      const f = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
      if (!f) throw new Error(`calculator: unknown function '${name}'`);
      const args = (node as FunctionNode).args.map((a) => evalTree(a, depth + 1));
      if (args.length < f.min || args.length > f.max) throw new Error(`calculator: ${name}() takes ${f.min === f.max ? f.min : `${f.min}-${f.max}`} argument(s), got ${args.length}`);
      return f.fn(...args);
    }
    case 'OperatorNode': {
      const op = node as OperatorNode & { isPercentage?: boolean };
      const [a, b] = op.args;
      if (op.implicit) throw new Error(`calculator: write '*' between '${a.toString()}' and '${b.toString()}' (implicit multiplication is not supported)`);
      if (op.isPercentage) throw new Error(`calculator: '%' is the remainder (a % b); for a percentage write ${a.toString()} / 100`);
      if (op.args.length === 1 && (op.op === '-' || op.op === '+')) {
        // Unary minus binds looser than ^ (mathjs's precedence): -2^2 = -4; 2^-1 = 0.5.
        const v = evalTree(a, depth + 1);
        return op.op === '-' ? -v : v;
      }
      const fn = op.args.length === 2 && Object.hasOwn(BINARY, op.op) ? BINARY[op.op] : undefined;
      if (!fn) throw new Error(`calculator: unexpected '${op.op}'`);
      const l = evalTree(a, depth);
      const r = evalTree(b, op.op === '^' ? depth + 1 : depth);
      if ((op.op === '/' || op.op === '%') && r === 0) throw new Error('calculator: division by zero');
      return fn(l, r);
    }
    default:
      throw new Error(`calculator: '${node.toString()}' is not supported: use numbers, + - * / % ^ **, parentheses, functions and pi, e, tau`);
  }
}

/** Evaluate an arithmetic expression without eval. Throws on syntax errors, division by zero, non-finite results. */
export function evaluateExpression(src: string): number {
  if (typeof src !== 'string' || !src.trim()) throw new Error('calculator: empty expression');
  if (src.length > MAX_EXPR_CHARS) throw new Error(`calculator: expression longer than ${MAX_EXPR_CHARS} characters`);
  let open = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (!ALLOWED_CHAR.test(c)) throw new Error(`calculator: unexpected character '${c}' at position ${i + 1}`);
    // Checked before parsing: the parser recurses once per parenthesis.
    if (c === '(' && ++open > MAX_DEPTH) throw new Error('calculator: expression nested too deeply');
    if (c === ')') open--;
  }
  let tree: MathNode;
  try {
    // `**` is `^`; any whitespace is a space (mathjs reads a newline as a second statement). Same length, so positions hold.
    tree = parseTree(src.replace(/\*\*/g, ' ^').replace(/\s/g, ' '));
  } catch (e) {
    if (e instanceof RangeError) throw new Error('calculator: expression nested too deeply');
    throw syntaxError(e as Error, src);
  }
  const v = evalTree(tree, 1);
  if (!Number.isFinite(v)) throw new Error('calculator: the result is not a finite number');
  // Trim binary floating-point noise (0.1 + 0.2 = 0.3).
  const clean = Number(v.toPrecision(15));
  return Object.is(clean, -0) ? 0 : clean;
}

// ---------------------------------------------------------------------------------------------
// Workspace file tools
// ---------------------------------------------------------------------------------------------

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

async function readFileTool(args: JsonObject, ctx: ExternalToolContext): Promise<string> {
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
async function writeFileTool(args: JsonObject, ctx: ExternalToolContext): Promise<JsonObject> {
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

// The minimal set (agent-loader.ts) is the base; the builtins below add to it.
for (const [name, fn] of Object.entries(MINIMAL_BUILTINS)) registerBuiltinTool(name, fn);
registerBuiltinTool('calculator', (args) => {
  const e = args.expression ?? args.expr ?? args.input;
  if (typeof e !== 'string') throw new Error("calculator: 'expression' must be a string, e.g. \"(2 + 3) * 4\"");
  return evaluateExpression(e);
});
registerBuiltinTool('read_file', readFileTool);
registerBuiltinTool('search_knowledge', async (args, ctx) => {
  const q = args.query ?? args.q;
  if (typeof q !== 'string' || !q.trim()) throw new Error("search_knowledge: 'query' must be a non-empty string");
  const limit = typeof args.limit === 'number' && args.limit > 0 ? Math.floor(args.limit) : undefined;
  // files/http backends read here (activity); inline documents come with the bundle; semantic/hybrid sources are embedded (src/activities/embeddings.ts).
  const sources = ctx.knowledge ?? [];
  const hits = await searchSources(sources, q, { limit, secrets: ctx.secrets, signal: ctx.signal });
  return hits.length ? hits : `no article matches '${q}' in ${(ctx.knowledge ?? []).map((k) => k.kb_id).join(', ') || 'this agent\'s knowledge (none declared)'}`;
});
registerBuiltinTool('write_file', writeFileTool);
// A wrapper: shell.ts imports workspaceRoot from this module, so its export may not exist yet here.
registerBuiltinTool(SHELL_BUILTIN, (args, ctx) => shellTool(args, ctx));

// ---------------------------------------------------------------------------------------------
// http tools
// ---------------------------------------------------------------------------------------------

export interface ToolExecutorOptions {
  /** DNS resolver for http tools (tests inject one); the system resolver by default. */
  resolver?: Resolver;
  /** Where `value_env` headers are read from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Response bodies are read up to this many bytes (default 256 KiB). */
  maxResponseBytes?: number;
  /** When the tool sets no timeout_seconds (default 30). */
  defaultTimeoutSeconds?: number;
}

const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024;
const MAX_TIMEOUT_SECONDS = 540; // below runTool's 10-minute bound on a tool's run (TOOL_RUN_LIMIT_MS)

function queryValue(v: JsonValue): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** Fill `{name}` placeholders (path and query only) from URL-encoded arguments; returns the unused arguments. */
export function fillUrlTemplate(template: string, args: JsonObject): { url: URL; rest: JsonObject } {
  const used = new Set<string>();
  const originEnd = (() => {
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(template);
    return m ? m[0].length : 0;
  })();
  const filled = template.replace(/\{([A-Za-z_][\w.-]*)\}/g, (_m, name: string, offset: number) => {
    if (offset < originEnd) throw new Error(`URL template '${template}': placeholders are only allowed in the path and query, not in the scheme or host`);
    const v = args[name];
    if (v === undefined || v === null) throw new Error(`missing argument '${name}' for the URL template`);
    used.add(name);
    return encodeURIComponent(queryValue(v));
  });
  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    throw new Error(`invalid URL '${template}' in the tool definition`);
  }
  const rest: JsonObject = {};
  for (const [k, v] of Object.entries(args)) if (!used.has(k)) rest[k] = v;
  return { url, rest };
}

function appendQuery(url: URL, rest: JsonObject): void {
  for (const [k, v] of Object.entries(rest)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) url.searchParams.append(k, queryValue(item));
    else url.searchParams.append(k, queryValue(v));
  }
}

function redactor(secrets: string[]): (s: string) => string {
  const list = secrets.filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  return (s) => list.reduce((acc, sec) => acc.split(sec).join('[redacted]'), s);
}

function flatHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

const TRANSIENT_DNS = new Set(['EAI_AGAIN', 'ETIMEOUT', 'ESERVFAIL', 'ECONNREFUSED', 'ETIMEDOUT']);

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
}

async function executeHttpTool(ctx: ExternalToolContext, opts: ToolExecutorOptions): Promise<unknown> {
  const tool = ctx.tool;
  const cfg = tool.http;
  if (!cfg) throw ApplicationFailure.nonRetryable(`tool ${tool.tool_id} has kind http but no http block`, 'ToolMisconfigured');
  const env = opts.env ?? process.env;
  const method = String(cfg.method ?? 'GET').toUpperCase();
  const { url, rest } = fillUrlTemplate(cfg.url, ctx.args ?? {});
  const hasBody = method !== 'GET' && method !== 'HEAD' && cfg.body !== 'none';
  if (!hasBody) appendQuery(url, rest);
  // Errors name the origin and path only: query strings carry arguments.
  const endpoint = `tool ${tool.tool_id} (${method} ${url.origin}${url.pathname})`;

  const headers: Record<string, string> = {
    'user-agent': 'agentloom-tool/1',
    accept: 'application/json, text/*;q=0.9, */*;q=0.5',
    connection: 'close',
    // W3C traceparent of this call's agent.tool_call span when the agent propagates context (src/platform/trace-context.ts).
    ...currentTraceHeaders(),
  };
  const secrets: string[] = [];
  const credentialEnvs: string[] = [];
  for (const [name, h] of Object.entries(cfg.headers ?? {})) {
    let v: string | undefined;
    if (h?.value_env) {
      v = env[h.value_env];
      if (v === undefined || v === '') {
        throw ApplicationFailure.nonRetryable(`tool ${tool.tool_id}: header '${name}' reads env var ${h.value_env}, which is not set in the worker's environment`, 'ToolMisconfigured');
      }
      secrets.push(v);
      credentialEnvs.push(h.value_env);
    } else if (h?.value !== undefined) {
      v = String(h.value);
    }
    if (v === undefined) continue;
    if (/[\r\n\0]/.test(v)) throw ApplicationFailure.nonRetryable(`tool ${tool.tool_id}: header '${name}' has a value with line breaks`, 'ToolMisconfigured');
    headers[name.toLowerCase()] = v;
  }
  const redact = redactor(secrets);
  let body: Buffer | undefined;
  if (hasBody) {
    body = Buffer.from(JSON.stringify(rest));
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  if (method !== 'GET' && method !== 'HEAD') headers['idempotency-key'] = ctx.idempotencyKey;

  // Network policy: host allowlist, then every resolved address; the connection uses only those addresses.
  const policy: NetPolicy = {
    allowExternalHttp: ctx.allowExternalHttp ?? false,
    allowedHosts: cfg.allowed_hosts,
    allowPrivateNetwork: cfg.allow_private_network ?? false,
  };
  const resolve = opts.resolver ?? systemResolver;
  let dnsError: NodeJS.ErrnoException | undefined;
  const target = await checkHttpTarget(url.href, policy, async (h) => {
    try {
      return await resolve(h);
    } catch (e) {
      dnsError = e as NodeJS.ErrnoException;
      throw e;
    }
  });
  if (!target.ok) {
    if (dnsError && TRANSIENT_DNS.has(String(dnsError.code))) {
      throw toApplicationFailure(classifyFailure({ kind: 'connection', endpoint, message: target.reason, subject: 'tool' }));
    }
    throw ApplicationFailure.nonRetryable(`${endpoint}: ${target.reason}`, dnsError ? 'ToolHostNotFound' : 'ToolPolicyBlocked');
  }
  const pinned = target.addresses;
  const lookup = guardedLookup(policy, async () => pinned);

  const timeoutS = Math.min(MAX_TIMEOUT_SECONDS, Math.max(0.05, cfg.timeout_seconds ?? opts.defaultTimeoutSeconds ?? 30));
  const maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (ctx.signal?.aborted) throw cancelledError(ctx.signal);
  const res = await new Promise<RawResponse>((resolveP, rejectP) => {
    const ac = new AbortController();
    let why: 'timeout' | 'cancel' | undefined;
    const timer = setTimeout(() => {
      why = 'timeout';
      ac.abort();
    }, timeoutS * 1000);
    const onCancel = (): void => {
      why = 'cancel';
      ac.abort();
    };
    ctx.signal?.addEventListener('abort', onCancel, { once: true });
    let settled = false;
    const finish = (err: unknown, r?: RawResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ctx.signal?.removeEventListener('abort', onCancel);
      if (r) return resolveP(r);
      if (why === 'cancel' && ctx.signal) return rejectP(cancelledError(ctx.signal));
      if (why === 'timeout') {
        return rejectP(toApplicationFailure(classifyFailure({ kind: 'timeout', endpoint, message: `no complete response within ${timeoutS} s`, subject: 'tool' })));
      }
      const e = err as NodeJS.ErrnoException;
      if (e?.code === 'EPOLICY') return rejectP(ApplicationFailure.nonRetryable(`${endpoint}: ${e.message}`, 'ToolPolicyBlocked'));
      const msg = redact(`${e?.code ? `${e.code}: ` : ''}${e?.message ?? String(err)}`);
      return rejectP(toApplicationFailure(classifyFailure({ kind: 'connection', endpoint, message: msg, subject: 'tool' })));
    };
    const lib = url.protocol === 'https:' ? https : http;
    let req: http.ClientRequest;
    try {
      req = lib.request(url, { method, headers, lookup, agent: false, signal: ac.signal });
    } catch (e) {
      return finish(e);
    }
    req.on('error', (e) => finish(e));
    req.on('response', (r) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const done = (): void =>
        finish(undefined, { status: r.statusCode ?? 0, headers: flatHeaders(r.headers), body: Buffer.concat(chunks), truncated });
      r.on('data', (c: Buffer) => {
        if (truncated) return;
        ctx.heartbeat();
        if (size + c.length > maxBytes) {
          chunks.push(c.subarray(0, maxBytes - size));
          size = maxBytes;
          truncated = true;
          done();
          r.destroy();
          return;
        }
        chunks.push(c);
        size += c.length;
      });
      r.on('end', done);
      r.on('error', (e) => finish(e));
      r.on('aborted', () => finish(new Error('the response was cut off')));
    });
    req.end(body);
  });

  const text = redact(res.body.toString('utf8'));
  if (res.status >= 200 && res.status < 300) {
    if (res.body.length === 0) return `HTTP ${res.status} (empty body)`;
    const ct = (res.headers['content-type'] ?? '').toLowerCase();
    if (res.truncated) return `${text}\n…[truncated: the response exceeded ${maxBytes} bytes]`;
    if (/^application\/([\w.-]+\+)?json\b|^text\/json\b/.test(ct)) {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    }
    return text;
  }
  if (res.status >= 300 && res.status < 400) {
    const loc = res.headers.location ? ` to ${redact(res.headers.location)}` : '';
    throw ApplicationFailure.nonRetryable(`${res.status} from ${endpoint}: redirect${loc} not followed (http tools do not follow redirects; fix the tool URL)`, `ToolHttp${res.status}`);
  }
  throw toApplicationFailure(
    classifyFailure({
      kind: 'http',
      status: res.status,
      headers: res.headers,
      message: text,
      endpoint,
      subject: 'tool',
      ...(credentialEnvs.length ? { credentialEnv: credentialEnvs.join(', ') } : {}),
    }),
  );
}

function cancelledError(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new Error('the tool call was cancelled');
}

// ---------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------

/** An executor with injected options (tests: a fake resolver, env, response cap). */
export function createToolExecutor(opts: ToolExecutorOptions = {}): (ctx: ExternalToolContext) => Promise<unknown> {
  return async (ctx) => {
    const tool = ctx.tool;
    if (tool.kind === 'builtin') {
      const name = tool.builtin?.name ?? tool.tool_id;
      const fn = registry.get(name);
      if (!fn) throw new Error(`unknown builtin '${name}' (this worker has: ${builtinToolNames().join(', ')}); register it with registerBuiltinTool`);
      return await fn(ctx.args ?? {}, ctx);
    }
    if (tool.kind === 'http') return executeHttpTool(ctx, opts);
    throw new Error(`tool ${tool.tool_id} of kind '${tool.kind}' is not run by the tool executor`);
  };
}

const defaultExecutor = createToolExecutor();

/** Run a builtin or http tool for runTool (react-tools.ts). */
export async function executeTool(ctx: ExternalToolContext): Promise<unknown> {
  return defaultExecutor(ctx);
}
