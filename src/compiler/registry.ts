/** Registry loading: every kind's files parsed and schema-validated once. */
import * as fs from 'fs';
import * as path from 'path';
import type { Diagnostic } from '../compiled/types';
import { MODEL_PROVIDERS } from '../compiled/types';
import { diag, fieldPath, posOf, readSource, type PathPart, type SourceFile } from './source';
import { isValidJsonSchema, schemaDiagnostics } from './validate';
import { loadTenant, type TenantConfig } from './tenant';
import { parseShellConfig, SHELL_BUILTIN } from '../governance/shell';
import { builtinGuardrailConfigProblems } from './guardrail-config';
import { WRITEBACK_STRATEGIES } from '../compiled/types';

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
  /** `tenant.md` at the registry root: secrets, human queues, artifact store, telemetry, residency. */
  tenant?: TenantConfig;
  /** What the worker registers in code, when the compile knows it: else `kind: code` tools and vendor policies are checked at run time. */
  code?: CodeRegistry;
}

/**
 * The tools (defineTool names) and `x-<vendor>` policy ids a worker registers in code. Given to the
 * compiler (AgentloomPlugin.compile, AgentloomClient's `code`, compileBundle's option), a name not
 * listed is a compile error; without it the check is deferred to the run (a warning says so).
 */
export interface CodeRegistry {
  tools?: readonly string[];
  policies?: readonly string[];
}

export function kindOfFile(file: string): Kind | undefined {
  for (const k of Object.keys(KINDS) as Kind[]) if (file.endsWith(KINDS[k].suffix)) return k;
  return undefined;
}

/** Words that make a key look like it holds a credential (matched anywhere in the key, `-` read as `_`). */
const SECRET_WORDS = /(api_?key|secret|password|passwd|passphrase|token|private_?key|access_?key|authorization|connection_?string|credential|bearer|client_?secret|session_?key|signing_?key)/;
/** Legitimate keys containing a secret word: references, env var names and token counts. */
const SAFE_SECRET_KEYS = new Set([
  'max_tokens', 'max_output_tokens', 'max_input_tokens', 'max_completion_tokens', 'max_state_tokens', 'context_window_tokens',
  'prompt_tokens', 'completion_tokens', 'total_tokens', 'tokens', 'token_count', 'token_budget', 'token_limit',
]);
/** Header names whose value is a credential. */
const AUTH_HEADER = /(authorization|auth|api[_-]?key|token|secret|key|cookie|password|credential)/i;
/** Keys whose child keys are not field names of the file (path expressions, schema property names). */
const OPAQUE_KEY_PARENTS = new Set(['input_mapping', 'args_match', 'properties', 'patternProperties', 'definitions', '$defs']);

interface SecretPattern { re: RegExp; what: string }
const SECRET_VALUES: SecretPattern[] = [
  { re: /-----BEGIN [A-Z ]*PRIVATE KEY-----/, what: 'a PEM private key' },
  { re: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/, what: 'a JSON Web Token (`eyJ…`)' },
  { re: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/, what: 'a JSON Web Token (`eyJ…`)' },
  { re: /\b(Basic|Bearer)\s+(?=[A-Za-z0-9._~+/=-]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,}/, what: 'an HTTP `Basic`/`Bearer` credential' },
  { re: /\b(Basic|Bearer)\s+[A-Za-z0-9._~+/=-]{24,}/, what: 'an HTTP `Basic`/`Bearer` credential' },
  { re: /(?:^|[^A-Za-z0-9-])sk-[A-Za-z0-9_-]{16,}/, what: 'an API key (`sk-…`)' },
  { re: /\bAIza[0-9A-Za-z_-]{30,}/, what: 'a Google API key (`AIza…`)' },
  { re: /\bgithub_pat_[A-Za-z0-9_]{20,}/, what: 'a GitHub token (`github_pat_…`)' },
  { re: /\bgh[pousr]_[A-Za-z0-9]{20,}/, what: 'a GitHub token (`ghp_…`)' },
  { re: /\bxox[abpr]-[A-Za-z0-9-]{10,}/, what: 'a Slack token (`xox…-`)' },
  { re: /\b(AKIA|ASIA)[0-9A-Z]{16}\b/, what: 'an AWS access key id (`AKIA…`)' },
  { re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i, what: 'a URL with a user name and password (`scheme://user:pass@…`)' },
];

/** Normalized key: lower case, `-` and spaces as `_`. */
const normKey = (k: string): string => k.toLowerCase().replace(/[-\s]+/g, '_');

/** True when a key name says its value is a credential. */
export function isSecretKey(key: string): boolean {
  const k = normKey(key);
  if (/_(env|ref)$/.test(k) || k === 'env' || k === 'ref') return false;
  if (SAFE_SECRET_KEYS.has(k) || /(^|_)tokens$/.test(k)) return false;
  return SECRET_WORDS.test(k);
}

/** What kind of literal credential a string value looks like (never the value itself), or undefined. */
export function secretValueKind(v: string): string | undefined {
  for (const p of SECRET_VALUES) if (p.re.test(v)) return p.what;
  return undefined;
}

const INSTEAD = 'write the env var name in `…_env` (e.g. `api_key_env: OPENAI_API_KEY`, `value_env: SERVICE_TOKEN`) / `credentials_ref` instead';

/**
 * SEC001: literal secrets anywhere in the front matter — keys that name a credential, literal auth
 * header values, and values shaped like well-known credentials. The value never appears in the message.
 */
export function secretDiagnostics(src: SourceFile, data: unknown, diags: Diagnostic[]): void {
  const push = (p: PathPart[], key: boolean, message: string): void => {
    const pos = posOf(src, p, key);
    diags.push(diag(src.file, pos.line, pos.column, 'error', 'SEC001', fieldPath(p), message));
  };
  const walk = (v: unknown, p: PathPart[], depth: number, opaqueKeys: boolean): void => {
    if (depth > 64) return;
    if (Array.isArray(v)) { v.forEach((x, i) => walk(x, [...p, i], depth + 1, false)); return; }
    if (v && typeof v === 'object') {
      const parent = p[p.length - 1];
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        const here = [...p, k];
        if (parent === 'headers' && x && typeof x === 'object' && !Array.isArray(x) && AUTH_HEADER.test(k)
          && typeof (x as Record<string, unknown>).value === 'string' && (x as Record<string, unknown>).value !== '') {
          push([...here, 'value'], true, `header \`${k}\` (\`${fieldPath([...here, 'value'])}\`) has a literal \`value\`; never write credentials in registry files — write the env var name in \`value_env\` instead (e.g. \`value_env: SERVICE_TOKEN\`) or use \`credentials_ref\``);
          continue;
        }
        if (!opaqueKeys && isSecretKey(k) && ((typeof x === 'string' && x.trim() !== '') || typeof x === 'number')) {
          push(here, true, `\`${fieldPath(here)}\` holds a literal value but its name says it is a credential; never write keys, tokens or passwords in registry files — ${INSTEAD}`);
          continue;
        }
        walk(x, here, depth + 1, OPAQUE_KEY_PARENTS.has(k));
      }
      return;
    }
    if (typeof v === 'string') {
      const what = secretValueKind(v);
      if (what) push(p, false, `\`${fieldPath(p) || 'value'}\` contains what looks like ${what}; never write credentials in registry files — ${INSTEAD}`);
    }
  };
  walk(data, [], 0, false);
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
    for (const other of MODEL_PROVIDERS) {
      if (other !== prov && data[other] !== undefined) {
        const pos = posOf(src, [other], true);
        diags.push(diag(src.file, pos.line, pos.column, 'error', 'REG004', other, `\`${other}\` block given but provider is \`${String(prov)}\`; remove it or set \`provider: ${other}\``));
      }
    }
    // A Bedrock model's two regions must agree: `region` is what policies.data_residency checks.
    const br = (data.bedrock as { region?: unknown } | undefined)?.region;
    if (prov === 'bedrock' && typeof data.region === 'string' && typeof br === 'string' && data.region !== br) {
      const pos = posOf(src, ['region']);
      diags.push(diag(src.file, pos.line, pos.column, 'error', 'REG004', 'region', `region \`${data.region}\` differs from bedrock.region \`${br}\` (where the calls go); remove \`region\` or make them equal`));
    }
    const tr = data.temperature_range;
    if (Array.isArray(tr) && tr.length === 2 && typeof tr[0] === 'number' && typeof tr[1] === 'number' && tr[0] > tr[1]) {
      const pos = posOf(src, ['temperature_range']);
      diags.push(diag(src.file, pos.line, pos.column, 'error', 'REG004', 'temperature_range', 'temperature_range must be [min, max] with min ≤ max'));
    }
  }
  if (kind === 'guardrail') {
    // A builtin provider's config checked here, not by the first run that reaches the guardrail.
    for (const p of builtinGuardrailConfigProblems(data.provider)) {
      const at = ['provider', ...p.path];
      // A missing field (e.g. config.schema) is reported on the line naming the provider.
      const present = at.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), data) !== undefined;
      const pos = posOf(src, present ? at : ['provider', 'name'], true);
      diags.push(diag(src.file, pos.line, pos.column, 'error', 'REG011', fieldPath(at), p.message));
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
    const bi = data.builtin as { name?: unknown; config?: unknown } | undefined;
    if ((k ?? 'builtin') === 'builtin' && bi?.name === SHELL_BUILTIN) {
      // The shell builtin is opt-in per definition: its allowed commands are checked here.
      for (const p of parseShellConfig(bi.config).problems) {
        const at = ['builtin', 'config', ...p.path];
        const pos = posOf(src, bi.config === undefined ? ['builtin', 'name'] : at);
        diags.push(diag(src.file, pos.line, pos.column, 'error', 'REG007', fieldPath(at), p.message));
      }
    }
    for (const other of ['builtin', 'http', 'agent', 'code']) {
      if (other !== k && data[other] !== undefined) {
        const pos = posOf(src, [other], true);
        diags.push(diag(src.file, pos.line, pos.column, 'error', 'REG004', other, `\`${other}\` block given but kind is \`${String(k)}\`; remove it or set \`kind: ${other}\``));
      }
    }
  }
  if (kind === 'collection') {
    // What the runtime applies at session time (src/runtime/memory.ts), checked before any session reaches it.
    const wb = data.writeback as { strategy?: unknown } | undefined;
    if (typeof wb?.strategy === 'string' && !(WRITEBACK_STRATEGIES as readonly string[]).includes(wb.strategy)) {
      const pos = posOf(src, ['writeback', 'strategy']);
      diags.push(diag(src.file, pos.line, pos.column, 'error', 'REG009', 'writeback.strategy', `writeback.strategy \`${wb.strategy}\` is not one the runtime applies; use one of ${WRITEBACK_STRATEGIES.join(', ')}`));
    }
    const ns = (data.backend as { namespace?: unknown } | undefined)?.namespace;
    const unknown = typeof ns === 'string' ? /\{(?!actorId\}|sessionId\})([^}]*)\}/.exec(ns) : null;
    if (unknown) {
      const pos = posOf(src, ['backend', 'namespace']);
      diags.push(diag(src.file, pos.line, pos.column, 'error', 'REG009', 'backend.namespace', `backend.namespace uses {${unknown[1]}}; only {actorId} and {sessionId} are substituted`));
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

export function loadRegistryDir(dir: string, code?: CodeRegistry): Registry {
  const root = path.resolve(dir);
  const reg = emptyRegistry(root);
  if (code) reg.code = code;
  reg.tenant = loadTenant(root, reg.diags);
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
