/**
 * Reading one registry file: size/encoding guards, front matter split, YAML parse with source
 * positions, Markdown body sections. Never throws: every problem becomes a Diagnostic.
 */
import * as fs from 'fs';
import type { LineCounter, Document, Pair, YAMLMap } from 'yaml';
import { load as loadYamlFast, CORE_SCHEMA } from 'js-yaml';
import type { BodySection, Diagnostic } from '../compiled/types';

export const MAX_FILE_BYTES = 1024 * 1024;
export const MAX_ALIAS_COUNT = 50;

type YamlLib = typeof import('yaml');
let yamlLib: YamlLib | undefined;
/**
 * The positioned YAML parser (the `yaml` package), loaded on first use: a front matter the js-yaml
 * fast path reads, in a file without diagnostics, never needs it, so a clean registry does not load it.
 */
function yaml(): YamlLib {
  return (yamlLib ??= require('yaml') as YamlLib);
}

export type PathPart = string | number;

/** A parsed registry file with a position lookup for any field path. */
export interface SourceFile {
  file: string;
  /** Front matter as plain JS (undefined when unusable). */
  data?: Record<string, unknown>;
  body: string;
  /** 1-based line in the file where the body starts. */
  bodyLine: number;
  doc?: Document.Parsed;
  lineCounter?: LineCounter;
  /** Front matter text, kept when the fast path parsed it: the positioned document is built on demand. */
  fmText?: string;
  /** Line offset of the front matter (its first line is file line `fmLine`). */
  fmLine: number;
  /** Prefix rewrites from normalized paths to the paths as written (alias shapes). */
  aliases: Array<[PathPart[], PathPart[]]>;
}

export function diag(
  file: string, line: number, column: number, severity: 'error' | 'warning', code: string, field: string, message: string,
): Diagnostic {
  return { file, line, column, severity, code, field, message };
}

export function fieldPath(path: PathPart[]): string {
  let s = '';
  for (const p of path) {
    if (typeof p === 'number') s += `[${p}]`;
    else s += s ? `.${p}` : p;
  }
  return s;
}

/** Reads a file and parses it; diagnostics for every file-level problem. */
export function readSource(file: string, display: string, diags: Diagnostic[]): SourceFile | undefined {
  let buf: Buffer;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) {
      diags.push(diag(display, 1, 1, 'error', 'LOOM001', '', 'cannot read the file: it is not a regular file; point the compiler at a .md file or a registry folder'));
      return undefined;
    }
    if (st.size > MAX_FILE_BYTES) {
      diags.push(diag(display, 1, 1, 'error', 'LOOM002', '', `file is ${st.size} bytes, over the ${MAX_FILE_BYTES}-byte limit; split it or move large content (documents, examples) into knowledge files`));
      return undefined;
    }
    buf = fs.readFileSync(file);
  } catch (e) {
    diags.push(diag(display, 1, 1, 'error', 'LOOM001', '', `cannot read the file (${(e as NodeJS.ErrnoException).code ?? 'error'}); check that it exists and is readable`));
    return undefined;
  }
  return parseSource(buf, display, diags);
}

export function parseSource(input: Buffer | string, display: string, diags: Diagnostic[]): SourceFile | undefined {
  let text: string;
  if (typeof input === 'string') {
    text = input;
    if (Buffer.byteLength(text) > MAX_FILE_BYTES) {
      diags.push(diag(display, 1, 1, 'error', 'LOOM002', '', `file is over the ${MAX_FILE_BYTES}-byte limit; split it or move large content into knowledge files`));
      return undefined;
    }
  } else {
    if (input.includes(0)) {
      diags.push(diag(display, 1, 1, 'error', 'LOOM003', '', 'file is binary (contains NUL bytes); registry files must be UTF-8 Markdown with YAML front matter'));
      return undefined;
    }
    text = input.toString('utf8');
    if (text.includes('\uFFFD')) {
      diags.push(diag(display, 1, 1, 'error', 'LOOM003', '', 'file is not valid UTF-8; save it as UTF-8 Markdown with YAML front matter'));
      return undefined;
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.includes('\0')) {
    diags.push(diag(display, 1, 1, 'error', 'LOOM003', '', 'file contains NUL characters; registry files must be UTF-8 text'));
    return undefined;
  }
  if (text.trim() === '') {
    diags.push(diag(display, 1, 1, 'error', 'LOOM004', '', 'file is empty; start it with a YAML front matter block between two `---` lines'));
    return undefined;
  }
  const m = /^---[ \t]*\r?\n/.exec(text);
  if (!m) {
    diags.push(diag(display, 1, 1, 'error', 'LOOM004', '', 'missing front matter: the file must start with a `---` line, then YAML fields, then a closing `---` line'));
    return undefined;
  }
  const rest = text.slice(m[0].length);
  const close = /^---[ \t]*$/m.exec(rest);
  let fm: string;
  let body: string;
  let bodyLine: number;
  if (!close) {
    diags.push(diag(display, 1, 1, 'error', 'LOOM004', '', 'front matter is not closed: add a `---` line after the YAML fields'));
    return undefined;
  }
  fm = rest.slice(0, close.index);
  const after = rest.slice(close.index + close[0].length);
  body = after.replace(/^\r?\n/, '');
  const fmLines = countLines(fm);
  bodyLine = 2 + fmLines + 1;
  const fast = parseFast(fm);
  if (fast) return { file: display, body, bodyLine, fmLine: 2, aliases: [], data: fast, fmText: fm };
  const lineCounter = new (yaml().LineCounter)();
  let doc: Document.Parsed;
  try {
    // uniqueKeys is checked below in linear time (the parser's own check is quadratic)
    doc = yaml().parseDocument(fm, { lineCounter, prettyErrors: false, uniqueKeys: false, strict: true });
  } catch (e) {
    diags.push(diag(display, 2, 1, 'error', 'LOOM005', '', `YAML cannot be parsed: ${yamlExceptionMessage(e)}`));
    return undefined;
  }
  const src: SourceFile = { file: display, body, bodyLine, doc, lineCounter, fmLine: 2, aliases: [] };
  const problems: Array<{ pos: number; message: string }> = doc.errors.map((err) => ({
    pos: err.pos[0], message: /Maximum call stack/i.test(err.message)
      ? `YAML cannot be parsed: ${yamlExceptionMessage(new RangeError(err.message))}`
      : `YAML syntax error: ${err.message.split('\n')[0]}; fix the indentation/quoting at this position`,
  }));
  try {
    problems.push(...structureProblems(doc));
  } catch (e) {
    problems.push({ pos: 0, message: `YAML cannot be read: ${yamlExceptionMessage(e)}` });
  }
  if (problems.length) {
    pushYamlProblems(problems, lineCounter, display, diags);
    return src;
  }
  if (!yaml().isMap(doc.contents)) {
    diags.push(diag(display, 2, 1, 'error', 'LOOM006', '', 'front matter must be a YAML mapping of `key: value` fields (e.g. `agent_id: my-agent`)'));
    return src;
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    const msg = (e as Error).message;
    const code = /alias/i.test(msg) ? 'LOOM007' : 'LOOM005';
    diags.push(diag(display, 2, 1, 'error', code, '', code === 'LOOM007'
      ? `too many YAML alias expansions (limit ${MAX_ALIAS_COUNT}); write the values out instead of using anchors/aliases`
      : `YAML cannot be converted: ${yamlExceptionMessage(e)}`));
    return src;
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    diags.push(diag(display, 2, 1, 'error', 'LOOM006', '', 'front matter must be a YAML mapping of `key: value` fields'));
    return src;
  }
  // Non-string keys (e.g. `1: x`) would be coerced silently; JSON has string keys only.
  src.data = data as Record<string, unknown>;
  return src;
}

/**
 * Where YAML can read `&`, `*` or `!` as an anchor, an alias or a tag: at the start of a node, i.e.
 * at the start of a line (after its indentation and any `- `, `? `, `: ` indicators) or after `:`,
 * `?`, `,`, `[` or `{`. A superset of the real places (it also matches inside quoted strings and
 * comments, which only sends the file to the slow path), so `3 * 140` or `(+ - * /)` in a value
 * stays on the fast path while `key: *alias`, `- &anchor` and `[!!str 1]` do not.
 */
const NODE_PROPERTY = /(?:^[ \t]*(?:[-?:][ \t]+)*|[:?,[{][ \t]*)[&*!]/m;

/**
 * Fast path: js-yaml with the YAML 1.2 core schema parses a plain front matter ~8× faster than the
 * positioned `yaml` Document. Positions are only needed for diagnostics, so the Document is built
 * lazily (posOf). Anything unusual — anchors/aliases (`&`, `*`), tags (`!`), digit separators
 * (`1_000`, read differently by the two parsers), duplicate keys or any parse error, a result that
 * is not a mapping — takes the slow path, which reports it with positions. test/compiler checks
 * that both paths give the same data on every example and fixture.
 */
export function parseFast(fm: string): Record<string, unknown> | undefined {
  if (NODE_PROPERTY.test(fm) || /\d_\d/.test(fm)) return undefined;
  try {
    const data = loadYamlFast(fm, { schema: CORE_SCHEMA });
    if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
    return data as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** At most this many YAML syntax diagnostics per file (one per line). */
export const MAX_YAML_ERRORS = 5;
/** Tags of the YAML 1.2 core schema; anything else (`!!set`, `!!omap`, `!!binary`, `!custom`) is rejected. */
const CORE_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`));

/** Readable text of an exception thrown while parsing/converting YAML. */
export function yamlExceptionMessage(e: unknown): string {
  const msg = (e as Error)?.message ?? String(e);
  if (e instanceof RangeError || /Maximum call stack/i.test(msg)) return 'nesting is too deep; flatten the structure (a few levels of mappings/lists are enough for any registry field)';
  return msg;
}

/** Duplicate mapping keys (linear: one Set per mapping) and tags outside the core schema. */
function structureProblems(doc: Document.Parsed): Array<{ pos: number; message: string }> {
  const out: Array<{ pos: number; message: string }> = [];
  yaml().visit(doc, {
    Node(_, node) {
      if (yaml().isMap(node)) {
        const seen = new Set<string>();
        for (const it of node.items) {
          if (!yaml().isScalar(it.key)) continue;
          const k = String(it.key.value);
          if (seen.has(k)) out.push({ pos: it.key.range?.[0] ?? 0, message: `duplicate key \`${k}\`: a key may appear only once in a mapping; remove or merge the repeated entry` });
          seen.add(k);
        }
      }
      const tag = (node as { tag?: string }).tag;
      if (tag && !CORE_TAGS.has(tag)) {
        const shown = tag.startsWith('tag:yaml.org,2002:') ? `!!${tag.slice(18)}` : tag;
        out.push({ pos: node.range?.[0] ?? 0, message: `YAML tag \`${shown}\` is not supported: registry files use plain YAML (strings, numbers, booleans, null, mappings, lists); remove the tag and write a list, mapping or quoted string instead` });
      }
    },
  });
  return out;
}

/** Pushes YAML problems as LOOM005: at most one per line and MAX_YAML_ERRORS per file. */
function pushYamlProblems(problems: Array<{ pos: number; message: string }>, lc: LineCounter, display: string, diags: Diagnostic[]): void {
  const lines = new Set<number>();
  let shown = 0;
  let hidden = 0;
  for (const pr of problems.sort((a, b) => a.pos - b.pos)) {
    const p = lc.linePos(pr.pos);
    const line = p.line + 1;
    if (lines.has(line)) continue;
    lines.add(line);
    if (shown >= MAX_YAML_ERRORS) { hidden++; continue; }
    shown++;
    diags.push(diag(display, line, p.col, 'error', 'LOOM005', '', pr.message));
  }
  if (hidden) {
    const last = diags[diags.length - 1];
    last.message += ` (${hidden} more YAML problem${hidden === 1 ? '' : 's'} on later lines not shown; fix these first)`;
  }
}

/** The positioned document of a source parsed by the fast path (built on first use). */
function ensureDoc(src: SourceFile): void {
  if (src.doc || src.fmText === undefined) return;
  const lineCounter = new (yaml().LineCounter)();
  try {
    // the fast path already excluded duplicate keys: skip the parser's quadratic uniqueness check
    src.doc = yaml().parseDocument(src.fmText, { lineCounter, prettyErrors: false, uniqueKeys: false, strict: true });
    src.lineCounter = lineCounter;
  } catch {
    // positions unavailable: posOf falls back to the front matter's first line
  }
}

function countLines(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}

function rewrite(src: SourceFile, path: PathPart[]): PathPart[] {
  for (const [from, to] of src.aliases) {
    if (from.length <= path.length && from.every((p, i) => p === path[i])) return [...to, ...path.slice(from.length)];
  }
  return path;
}

/**
 * Position (1-based line/col in the file) of the node at `path`, or of its deepest existing
 * ancestor. With `key`, the position of the mapping key rather than its value.
 */
export function posOf(src: SourceFile, path: PathPart[], key = false): { line: number; column: number } {
  ensureDoc(src);
  const lc = src.lineCounter;
  if (!src.doc || !lc) return { line: src.fmText !== undefined ? src.fmLine : 1, column: 1 };
  const real = rewrite(src, path);
  let node: unknown = src.doc.contents;
  let best: number | undefined = rangeStart(node);
  for (let i = 0; i < real.length; i++) {
    const part = real[i];
    let next: unknown;
    if (yaml().isMap(node)) {
      const pair = keyIndex(node).get(String(part));
      if (!pair) break;
      const v = pair.value as unknown;
      const block = (yaml().isMap(v) || yaml().isSeq(v)) && !(v as { flow?: boolean }).flow;
      if ((key || block) && i === real.length - 1) { next = pair.key; }
      else next = pair.value ?? pair.key;
    } else if (yaml().isSeq(node) && typeof part === 'number') {
      next = node.items[part];
      if (next === undefined) break;
    } else break;
    const r = rangeStart(next);
    if (r !== undefined) best = r;
    node = next;
  }
  if (best === undefined) return { line: src.fmLine, column: 1 };
  const p = lc.linePos(best);
  return { line: p.line + src.fmLine - 1, column: p.col };
}

const keyIndexes = new WeakMap<object, Map<string, Pair>>();
/** Key → first pair of a mapping node, built once per node (keeps posOf linear on huge mappings). */
function keyIndex(node: YAMLMap): Map<string, Pair> {
  let m = keyIndexes.get(node);
  if (!m) {
    m = new Map();
    for (const it of node.items) {
      if (yaml().isPair(it) && yaml().isScalar(it.key)) {
        const k = String(it.key.value);
        if (!m.has(k)) m.set(k, it as Pair);
      }
    }
    keyIndexes.set(node, m);
  }
  return m;
}

function rangeStart(n: unknown): number | undefined {
  const r = (n as { range?: [number, number, number] } | null)?.range;
  return r ? r[0] : undefined;
}

export const REQUIRED_SECTIONS = ['Purpose', 'System behavior', 'Rules'];
export const OPTIONAL_SECTIONS = ['Escalation', 'Examples', 'Non-goals', 'Output style notes'];

/** Level-1 `# ` headings outside code fences; text verbatim up to the next level-1 heading. */
export function splitSections(body: string, bodyLine: number): { sections: BodySection[]; lines: number[]; preamble: string } {
  const lines = body.split('\n');
  const sections: BodySection[] = [];
  const at: number[] = [];
  const pre: string[] = [];
  let cur: { name: string; text: string[] } | undefined;
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].replace(/\r$/, '');
    const f = /^\s*(```+|~~~+)/.exec(raw);
    if (f) {
      if (!fence) fence = f[1][0];
      else if (f[1][0] === fence) fence = undefined;
    }
    const h = !fence && !f ? /^#[ \t]+(.+?)[ \t#]*$/.exec(raw) : null;
    if (h) {
      if (cur) sections.push({ name: cur.name, text: trimBlank(cur.text) });
      cur = { name: h[1].trim(), text: [] };
      at.push(bodyLine + i);
    } else if (cur) cur.text.push(raw);
    else pre.push(raw);
  }
  if (cur) sections.push({ name: cur.name, text: trimBlank(cur.text) });
  return { sections, lines: at, preamble: pre.join('\n').trim() };
}

function trimBlank(lines: string[]): string {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a].trim() === '') a++;
  while (b > a && lines[b - 1].trim() === '') b--;
  return lines.slice(a, b).join('\n');
}
