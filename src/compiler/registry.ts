/** Registry loading: every kind's files parsed and schema-validated once. */
import * as fs from 'fs';
import * as path from 'path';
import type { Diagnostic } from './types';
import { diag, fieldPath, posOf, readSource, type PathPart, type SourceFile } from './source';
import { isValidJsonSchema, schemaDiagnostics } from './validate';

export type Kind = 'agent' | 'model' | 'tool' | 'kb' | 'guardrail' | 'collection' | 'role';

export const KINDS: Record<Kind, { dir: string; suffix: string; idField: string }> = {
  agent: { dir: 'agents', suffix: '.agent.md', idField: 'agent_id' },
  model: { dir: 'models', suffix: '.model.md', idField: 'model_id' },
  tool: { dir: 'tools', suffix: '.tool.md', idField: 'tool_id' },
  kb: { dir: 'knowledge', suffix: '.kb.md', idField: 'kb_id' },
  guardrail: { dir: 'guardrails', suffix: '.guardrail.md', idField: 'guardrail_id' },
  collection: { dir: 'collections', suffix: '.collection.md', idField: 'collection_id' },
  role: { dir: 'roles', suffix: '.iam.md', idField: 'role_id' },
};

export interface Entry {
  kind: Kind;
  id: string;
  file: string;
  src?: SourceFile;
  data?: Record<string, unknown>;
  /** Diagnostics of this file alone (parse + schema + secrets). */
  diags: Diagnostic[];
}

export interface Registry {
  root: string;
  entries: Record<Kind, Map<string, Entry>>;
  /** Diagnostics not tied to one resolvable entry (unreadable dirs, duplicate ids). */
  diags: Diagnostic[];
  /** Per-registry compile cache (agent_id -> result), filled by the compiler. */
  cache: Map<string, unknown>;
}

export function kindOfFile(file: string): Kind | undefined {
  for (const k of Object.keys(KINDS) as Kind[]) if (file.endsWith(KINDS[k].suffix)) return k;
  return undefined;
}

const SECRET_KEY = /^(api[_-]?key|apikey|secret|client[_-]?secret|password|passwd|access[_-]?key|secret[_-]?key|token|auth[_-]?token|bearer[_-]?token|private[_-]?key|access[_-]?token)$/i;
const SECRET_VALUE = /^(sk-[A-Za-z0-9_-]{16,}|Bearer\s+\S{12,}|AKIA[0-9A-Z]{16}|xox[abp]-\S{10,}|ghp_[A-Za-z0-9]{20,})/;

/** SEC001: literal secrets anywhere in the front matter. */
export function secretDiagnostics(src: SourceFile, data: unknown, diags: Diagnostic[]): void {
  const walk = (v: unknown, p: PathPart[], depth: number): void => {
    if (depth > 64) return;
    if (Array.isArray(v)) { v.forEach((x, i) => walk(x, [...p, i], depth + 1)); return; }
    if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (SECRET_KEY.test(k) && (typeof x === 'string' || typeof x === 'number')) {
          const pos = posOf(src, [...p, k], true);
          const hint = /key/i.test(k) ? `${k}_env` : `${k}_env / credentials_ref`;
          diags.push(diag(src.file, pos.line, pos.column, 'error', 'SEC001', fieldPath([...p, k]),
            `literal secret in \`${k}\`: never write keys or passwords in registry files; name the environment variable instead (e.g. \`api_key_env: OPENAI_API_KEY\`, \`${hint}\`) or a secret-store entry (\`credentials_ref\`)`));
        } else walk(x, [...p, k], depth + 1);
      }
      return;
    }
    if (typeof v === 'string' && SECRET_VALUE.test(v)) {
      const pos = posOf(src, p);
      diags.push(diag(src.file, pos.line, pos.column, 'error', 'SEC001', fieldPath(p),
        'value looks like a literal credential; reference it by environment variable (`value_env`, `api_key_env`) or `credentials_ref` instead'));
    }
  };
  walk(data, [], 0);
}

function regCode(kind: Kind): (p: PathPart[], kw: string) => string {
  return (p) => (kind === 'agent' ? 'AGF019' : p.length === 1 && p[0] === KINDS[kind].idField ? 'REG002' : 'REG001');
}

/** Loads one non-agent registry file (agents are handled by the compiler, which maps codes). */
export function loadEntry(kind: Kind, abs: string, display: string): Entry {
  const diags: Diagnostic[] = [];
  const stem = path.basename(abs).slice(0, -KINDS[kind].suffix.length);
  const src = readSource(abs, display, diags);
  const entry: Entry = { kind, id: stem, file: display, src, data: src?.data, diags };
  if (!src?.data) return entry;
  const data = src.data;
  secretDiagnostics(src, data, diags);
  if (kind !== 'agent') {
    schemaDiagnostics(kind, data, src, diags, regCode(kind));
    const idf = KINDS[kind].idField;
    const id = data[idf];
    if (typeof id === 'string' && id !== stem) {
      const pos = posOf(src, [idf]);
      diags.push(diag(display, pos.line, pos.column, 'error', 'REG003', idf,
        `${idf} \`${id}\` does not match the file name; rename the file to ${KINDS[kind].dir}/${id}${KINDS[kind].suffix} or write \`${idf}: ${stem}\``));
    }
    kindChecks(kind, src, data, diags);
  }
  return entry;
}

function kindChecks(kind: Kind, src: SourceFile, data: Record<string, unknown>, diags: Diagnostic[]): void {
  if (kind === 'model') {
    const prov = data.provider;
    for (const other of ['openai', 'scripted']) {
      if (other !== prov && data[other] !== undefined) {
        const pos = posOf(src, [other], true);
        diags.push(diag(src.file, pos.line, pos.column, 'error', 'REG004', other, `\`${other}\` block given but provider is \`${String(prov)}\`; remove it or set \`provider: ${other}\``));
      }
    }
    const tr = data.temperature_range;
    if (Array.isArray(tr) && tr.length === 2 && typeof tr[0] === 'number' && typeof tr[1] === 'number' && tr[0] > tr[1]) {
      const pos = posOf(src, ['temperature_range']);
      diags.push(diag(src.file, pos.line, pos.column, 'error', 'REG004', 'temperature_range', 'temperature_range must be [min, max] with min ≤ max'));
    }
  }
  if (kind === 'tool') {
    for (const f of ['input_schema', 'output_schema']) {
      const s = data[f];
      if (s && typeof s === 'object') {
        const r = isValidJsonSchema(s);
        if (!r.ok) {
          const pos = posOf(src, [f]);
          diags.push(diag(src.file, pos.line, pos.column, 'error', 'REG005', f, `invalid JSON Schema: ${r.message}; write a JSON Schema object such as \`{type: object, properties: {...}}\``));
        }
      }
    }
    const k = data.kind;
    for (const other of ['builtin', 'http', 'agent']) {
      if (other !== k && data[other] !== undefined) {
        const pos = posOf(src, [other], true);
        diags.push(diag(src.file, pos.line, pos.column, 'error', 'REG004', other, `\`${other}\` block given but kind is \`${String(k)}\`; remove it or set \`kind: ${other}\``));
      }
    }
  }
  if (kind === 'role') {
    const tools = data.tools;
    if (Array.isArray(tools)) {
      const seen = new Set<string>();
      tools.forEach((t, i) => {
        const ref = (t as { ref?: unknown })?.ref;
        if (typeof ref === 'string') {
          if (seen.has(ref)) {
            const pos = posOf(src, ['tools', i, 'ref']);
            diags.push(diag(src.file, pos.line, pos.column, 'error', 'REG006', `tools[${i}].ref`, `tool \`${ref}\` is granted twice; keep one entry`));
          }
          seen.add(ref);
        }
      });
    }
  }
}

export function emptyRegistry(root: string): Registry {
  return {
    root,
    entries: { agent: new Map(), model: new Map(), tool: new Map(), kb: new Map(), guardrail: new Map(), collection: new Map(), role: new Map() },
    diags: [],
    cache: new Map(),
  };
}

export function loadRegistryDir(dir: string): Registry {
  const root = path.resolve(dir);
  const reg = emptyRegistry(root);
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const sub = path.join(root, KINDS[kind].dir);
    let names: string[];
    try {
      names = fs.readdirSync(sub);
    } catch {
      continue;
    }
    names.sort();
    for (const n of names) {
      if (!n.endsWith(KINDS[kind].suffix)) continue;
      const display = `${KINDS[kind].dir}/${n}`;
      const e = loadEntry(kind, path.join(sub, n), display);
      reg.entries[kind].set(e.id, e);
    }
  }
  return reg;
}
