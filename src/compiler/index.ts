/**
 * Public API of the agent-definition compiler.
 *
 *   loadRegistry(dir)                 parse + schema-check every registry file once
 *   compileBundle(dir, agentId)       { bundle?, diagnostics } — bundle undefined on any error
 *   validatePaths(paths, {registry})  diagnostics for registry folders and/or single files
 *   canonicalJson(value)              sorted keys, no whitespace
 *   formatDiagnostic(d)               `path:line:col: error|warning CODE: message`
 *
 * Never throws on bad input: every problem is a Diagnostic.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { CompiledAgent, CompiledBundle, Diagnostic } from '../compiled/types';
import { compileAgentEntry, type AgentResult } from './compile';
import { emptyRegistry, KINDS, kindOfFile, loadEntry, loadRegistryDir, type CodeRegistry, type Entry, type Kind, type Registry } from './registry';
import { diag } from './source';
import { applyInheritance } from './inheritance';

export type { Registry, Entry, Kind, CodeRegistry } from './registry';
export { CODES } from './codes';
export { warmUpValidators } from './validate';
export { KIND_SCHEMAS } from './schemas';

export const BUNDLE_FORMAT = 'agentloom.compiled/v1';

export { canonicalJson, sha256 } from '../compiled/canonical';
import { canonicalJson, sha256 } from '../compiled/canonical';

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.severity} ${d.code}: ${d.message}${d.field ? ` [${d.field}]` : ''}`;
}

/** At most this many diagnostics per file; the rest are summarized by one `LOOM010`. */
export const MAX_DIAGNOSTICS_PER_FILE = 100;

const byPosition = (a: Diagnostic, b: Diagnostic): number =>
  (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));

/**
 * Deduplicates, caps each file at MAX_DIAGNOSTICS_PER_FILE (errors kept before warnings, so the
 * exit status never changes) and sorts by file and position.
 */
export function sortDiagnostics(ds: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  const perFile = new Map<string, Diagnostic[]>();
  for (const d of ds) {
    const k = `${d.file}|${d.line}|${d.column}|${d.code}|${d.field}|${d.message}`;
    if (seen.has(k)) continue;
    seen.add(k);
    let list = perFile.get(d.file);
    if (!list) { list = []; perFile.set(d.file, list); }
    list.push(d);
  }
  const out: Diagnostic[] = [];
  for (const [file, list] of perFile) {
    if (list.length <= MAX_DIAGNOSTICS_PER_FILE) { out.push(...list); continue; }
    const kept = [...list.filter((d) => d.severity === 'error').sort(byPosition), ...list.filter((d) => d.severity !== 'error').sort(byPosition)]
      .slice(0, MAX_DIAGNOSTICS_PER_FILE);
    const hidden = list.length - kept.length;
    out.push(...kept);
    const last = kept.reduce((a, b) => (b.line > a.line ? b : a));
    out.push(diag(file, last.line, 1, 'warning', 'LOOM010', '',
      `${hidden} more problem${hidden === 1 ? '' : 's'} in this file not shown (at most ${MAX_DIAGNOSTICS_PER_FILE} per file); fix the ones above and validate again`));
  }
  return out.sort(byPosition);
}

/** Loads a registry folder (`code`: what the worker registers in code, checked by the compile). Never throws. */
export function loadRegistry(dir: string, code?: CodeRegistry): Registry {
  try {
    return loadRegistryDir(dir, code);
  } catch (e) {
    const r = emptyRegistry(path.resolve(dir));
    if (code) r.code = code;
    r.diags.push(diag(dir, 1, 1, 'error', 'LOOM001', '', `cannot read registry folder: ${(e as Error).message}`));
    return r;
  }
}

function compiledAgent(reg: Registry, id: string): AgentResult | undefined {
  const cached = reg.cache.get(id) as AgentResult | undefined;
  if (cached) return cached;
  const entry = reg.entries.agent.get(id);
  if (!entry) return undefined;
  let res: AgentResult;
  try {
    res = compileAgentEntry(reg, entry);
  } catch (e) {
    res = { diags: [diag(entry.file, 1, 1, 'error', 'LOOM005', '', `internal compiler error: ${(e as Error).message}; please report it`)], needs: [], touched: [] };
  }
  reg.cache.set(id, res);
  return res;
}

interface Hashed { agent: CompiledAgent; canon: string }
const hashedCache = new WeakMap<object, Hashed>();

/** Adds content_hash; the canonical text (with the hash) is memoized per compiled object. */
function hashAgent(a: Omit<CompiledAgent, 'content_hash'>): Hashed {
  let h = hashedCache.get(a);
  if (!h) {
    // serialize each top-level member once; the text with content_hash reuses the pieces
    const o = a as unknown as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => o[k] !== undefined && k !== 'content_hash');
    const parts = new Map<string, string>();
    for (const k of keys) parts.set(k, canonicalJson(o[k]));
    const join = (ks: string[]): string => `{${ks.sort().map((k) => `${JSON.stringify(k)}:${parts.get(k)}`).join(',')}}`;
    const hash = sha256(join([...keys]));
    parts.set('content_hash', JSON.stringify(hash));
    const agent = { ...a, content_hash: hash } as CompiledAgent;
    h = { agent, canon: join([...keys, 'content_hash']) };
    hashedCache.set(a, h);
  }
  return h;
}

/** Compiles `agentId` and its closure against an already-loaded registry. */
export function compileFromRegistry(reg: Registry, agentId: string): { bundle?: CompiledBundle; diagnostics: Diagnostic[] } {
  const diags: Diagnostic[] = [...reg.diags];
  if (!reg.entries.agent.has(agentId)) {
    diags.push(diag(path.join(KINDS.agent.dir, `${agentId}${KINDS.agent.suffix}`), 1, 1, 'error', 'LOOM009',
      '', `agent \`${agentId}\` is not in the registry ${reg.root}; known agents: ${[...reg.entries.agent.keys()].sort().slice(0, 10).join(', ') || 'none'}`));
    return { diagnostics: sortDiagnostics(diags) };
  }
  const compiled: Record<string, Omit<CompiledAgent, 'content_hash'>> = {};
  const results = new Map<string, AgentResult>();
  const order: string[] = [];
  const touched = new Set<Entry>();
  const queue = [agentId];
  const done = new Set<string>();
  while (queue.length) {
    const id = queue.shift()!;
    if (done.has(id)) continue;
    done.add(id);
    const entry = reg.entries.agent.get(id);
    if (!entry) continue;
    touched.add(entry);
    const res = compiledAgent(reg, id)!;
    results.set(id, res);
    order.push(id);
    diags.push(...res.diags);
    for (const t of res.touched) touched.add(t);
    if (res.agent) {
      if (id !== agentId && res.agent.status === 'disabled') {
        diags.push(diag(entry.file, 1, 1, 'error', 'AGF031', 'status', `agent \`${id}\` is disabled but \`${agentId}\` needs it; re-enable it or remove the reference`));
      }
      compiled[id] = res.agent;
      for (const a of res.inline ?? []) compiled[a.agent_id] = a;
    }
    for (const n of res.needs) if (!done.has(n)) queue.push(n);
  }
  // What orchestrators that run no model turn hand down, merged into their members' entries of this bundle.
  const problems: { from: string; message: string }[] = [];
  const inherited = applyInheritance(compiled, order, (id) => results.get(id)?.inherit, (id) => results.get(id)?.needs ?? [], problems);
  for (const p of problems) diags.push(diag(reg.entries.agent.get(p.from)?.file ?? p.from, 1, 1, 'error', 'AGF140', 'runtime.fallback_model', p.message));
  const agents: Record<string, Hashed> = {};
  for (const [id, a] of Object.entries(inherited)) agents[id] = hashAgent(a);
  for (const t of touched) diags.push(...t.diags);
  const sorted = sortDiagnostics(diags);
  if (sorted.some((d) => d.severity === 'error')) return { diagnostics: sorted };
  const ordered: Record<string, CompiledAgent> = {};
  const parts: string[] = [];
  for (const k of Object.keys(agents).sort()) {
    ordered[k] = agents[k].agent;
    parts.push(`${JSON.stringify(k)}:${agents[k].canon}`);
  }
  // canonicalJson({format, root, agents}) without re-serializing the agents
  const body = `{"agents":{${parts.join(',')}},"format":${JSON.stringify(BUNDLE_FORMAT)},"root":${JSON.stringify(agentId)}}`;
  const bundle: CompiledBundle = { format: BUNDLE_FORMAT, root: agentId, agents: ordered, content_hash: sha256(body) };
  return { bundle, diagnostics: sorted };
}

/**
 * Compiles `agentId` from the registry folder `registryDir`. `opts.code`: the tools and vendor
 * policies the worker registers in code (a `kind: code` tool or `x-<vendor>` policy not among them
 * is an error; without it, a warning defers the check to the run). Never throws.
 */
export function compileBundle(registryDir: string, agentId: string, opts: { code?: CodeRegistry } = {}): { bundle?: CompiledBundle; diagnostics: Diagnostic[] } {
  try {
    return compileFromRegistry(loadRegistry(registryDir, opts.code), agentId);
  } catch (e) {
    return { diagnostics: [diag(registryDir, 1, 1, 'error', 'LOOM005', '', `internal compiler error: ${(e as Error).message}`)] };
  }
}

/** All diagnostics of a registry: every file, every agent compiled. */
export function validateRegistry(reg: Registry): Diagnostic[] {
  const out: Diagnostic[] = [...reg.diags];
  for (const kind of Object.keys(reg.entries) as Kind[]) {
    for (const e of reg.entries[kind].values()) {
      out.push(...e.diags);
      if (kind === 'agent') {
        const r = compiledAgent(reg, e.id);
        if (r) out.push(...r.diags);
      }
    }
  }
  return sortDiagnostics(out);
}

function guessRegistry(file: string, kind: Kind): string | undefined {
  const dir = path.dirname(path.resolve(file));
  if (path.basename(dir) === KINDS[kind].dir) return path.dirname(dir);
  return undefined;
}

/** Registry folders up to three levels below `dir` (folders holding agents/, models/, …). */
function registriesBelow(dir: string, depth = 3): string[] {
  if (depth === 0) return [];
  const found: string[] = [];
  let names: fs.Dirent[];
  try { names = fs.readdirSync(dir, { withFileTypes: true }); } catch { return []; }
  for (const e of names.filter((n) => n.isDirectory() && !n.name.startsWith('.') && n.name !== 'node_modules').sort((a, b) => a.name.localeCompare(b.name))) {
    const sub = path.join(dir, e.name);
    if (Object.values(KINDS).some((k) => fs.existsSync(path.join(sub, k.dir)))) found.push(sub);
    else found.push(...registriesBelow(sub, depth - 1));
  }
  return found;
}

/**
 * Validates registry folders and/or single files. A single file is checked against
 * `opts.registry` (else the registry it sits in, else LOOM_REGISTRY, else cwd).
 */
export function validatePaths(paths: string[], opts: { registry?: string } = {}): Diagnostic[] {
  const out: Diagnostic[] = [];
  const regs = new Map<string, Registry>();
  const getReg = (dir: string): Registry => {
    const abs = path.resolve(dir);
    let r = regs.get(abs);
    if (!r) { r = loadRegistry(abs); regs.set(abs, r); }
    return r;
  };
  for (const p of paths) {
    try {
      let st: fs.Stats | undefined;
      try { st = fs.statSync(p); } catch { st = undefined; }
      if (st?.isDirectory()) {
        const isRegistry = (Object.values(KINDS)).some((k) => fs.existsSync(path.join(p, k.dir)));
        // A folder of registries (e.g. examples/orchestrators): validate each one below it.
        const nested = isRegistry ? [] : registriesBelow(p);
        if (nested.length) {
          for (const dir of nested) out.push(...validatePaths([dir], opts));
          continue;
        }
        if (!isRegistry) {
          out.push(diag(p, 1, 1, 'error', 'LOOM008', '', `\`${p}\` is a folder without agents/, models/, tools/, knowledge/, guardrails/, collections/ or roles/; point at a registry folder or a registry file`));
          continue;
        }
        const reg = getReg(p);
        const ds = validateRegistry(reg);
        const prefix = path.relative(process.cwd(), path.resolve(p)) || '.';
        for (const d of ds) out.push({ ...d, file: d.file.startsWith('/') || prefix === '.' ? d.file : path.join(prefix, d.file) });
        continue;
      }
      const kind = kindOfFile(p);
      if (!kind) {
        out.push(diag(p, 1, 1, st ? 'error' : 'error', st ? 'LOOM008' : 'LOOM001', '', st
          ? `\`${p}\` is not a registry file; names end in .agent.md, .model.md, .tool.md, .kb.md, .guardrail.md, .collection.md or .iam.md`
          : `\`${p}\` does not exist`));
        continue;
      }
      const regDir = opts.registry ?? guessRegistry(p, kind) ?? process.env.LOOM_REGISTRY ?? process.cwd();
      const base = getReg(regDir);
      const entry = loadEntry(kind, path.resolve(p), p);
      out.push(...entry.diags);
      if (kind === 'agent' && entry.src?.data) {
        // compile against a registry where this file replaces the stored one
        const reg: Registry = { ...base, entries: { ...base.entries, agent: new Map(base.entries.agent) }, cache: new Map() };
        // registered under its agent_id (so references resolve), compiled with the file-name stem
        // as entry.id so that AGF003 (agent_id ≠ file name) is checked as in a registry folder
        const id = typeof entry.data?.agent_id === 'string' ? entry.data.agent_id : entry.id;
        reg.entries.agent.set(id, { ...entry, id });
        const r = compileAgentEntry(reg, entry);
        out.push(...r.diags);
      }
    } catch (e) {
      out.push(diag(p, 1, 1, 'error', 'LOOM005', '', `internal compiler error: ${(e as Error).message}`));
    }
  }
  return sortDiagnostics(out);
}

export { compileAgentEntry };
export { publishBundle, compareSemver } from './publish';
