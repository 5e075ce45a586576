/**
 * fuseraft's `HandoffContext`, pure: which workspace files a transition's context sources need, and
 * the compact block injected into the shared history when the transition fires (the receiving
 * agent sees it as the latest entry before its turn). Sources: `session_context` (the
 * SESSION_CONTEXT_FILE agents write as their handoff summary), `changes_recent[:N]` (the last N
 * entries of changes.json), `brief_field:FIELD` (a dot path into brief.json), `file:PATH` (an
 * artifact's raw contents); each capped at `MaxChars` and titled by `Label` (else the source).
 */
import { BRIEF_FILE } from './evidence';
import { resolveField } from './json';
import type { HandoffContextEntry } from './types';

/** The workspace file `session_context` reads (fuseraft's session_context_write, here a plain write_file). */
export const SESSION_CONTEXT_FILE = 'session_context.md';
/** Defaults where fuseraft is silent: characters per source, entries of changes_recent without N. */
export const HANDOFF_DEFAULTS = { max_chars: 2000, changes_recent: 10 };

export type HandoffSource =
  | { kind: 'session_context' }
  | { kind: 'changes_recent'; n: number }
  | { kind: 'brief_field'; field: string }
  | { kind: 'file'; path: string };

/** Parse one `Source` (the compiler already refused anything else). */
export function parseHandoffSource(src: string): HandoffSource | undefined {
  if (src === 'session_context') return { kind: 'session_context' };
  if (src === 'changes_recent') return { kind: 'changes_recent', n: HANDOFF_DEFAULTS.changes_recent };
  const m = /^(changes_recent|brief_field|file):(.+)$/.exec(src);
  if (!m) return undefined;
  if (m[1] === 'changes_recent') return /^[1-9]\d*$/.test(m[2]) ? { kind: 'changes_recent', n: Number(m[2]) } : undefined;
  return m[1] === 'brief_field' ? { kind: 'brief_field', field: m[2].trim() } : { kind: 'file', path: m[2].trim() };
}

/** The workspace files to read for these entries (changes come from the change log). */
export function handoffFiles(entries: readonly HandoffContextEntry[]): string[] {
  const files = new Set<string>();
  for (const e of entries) {
    const s = parseHandoffSource(e.Source);
    if (s?.kind === 'session_context') files.add(SESSION_CONTEXT_FILE);
    if (s?.kind === 'brief_field') files.add(BRIEF_FILE);
    if (s?.kind === 'file') files.add(s.path);
  }
  return [...files];
}

/** One change-log entry as HandoffContext shows it. */
export interface ChangeEntry { path: string; mode: string; by: string; at: string }

export interface HandoffData {
  /** Contents of the files handoffFiles named; null = absent. */
  files: Record<string, string | null>;
  /** The change log, oldest first. */
  changes: ChangeEntry[];
}

function cap(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n[… ${text.length - max} more characters]` : text;
}

function sourceText(s: HandoffSource | undefined, raw: string, data: HandoffData): string {
  if (!s) return `(unknown source ${raw})`;
  switch (s.kind) {
    case 'session_context': {
      const t = data.files[SESSION_CONTEXT_FILE];
      return t ?? `(no session context: ${SESSION_CONTEXT_FILE} has not been written)`;
    }
    case 'changes_recent': {
      const recent = data.changes.slice(-s.n);
      return recent.length ? recent.map((c) => `- ${c.path} (${c.mode} by ${c.by})`).join('\n') : '(no files written yet)';
    }
    case 'brief_field': {
      const brief = data.files[BRIEF_FILE];
      if (brief === null || brief === undefined) return `(${BRIEF_FILE} does not exist)`;
      let obj: unknown;
      try { obj = JSON.parse(brief); } catch { return `(${BRIEF_FILE} is not valid JSON)`; }
      const v = resolveField(obj, s.field);
      if (v === undefined) return `(${BRIEF_FILE} has no ${s.field})`;
      return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
    }
    case 'file': {
      const t = data.files[s.path];
      return t ?? `(${s.path} does not exist)`;
    }
  }
}

/** The block injected into the shared history for `toAgent` when the transition fires (the same sources make an agent Context spec's block). */
export function renderHandoffContext(entries: readonly HandoffContextEntry[], data: HandoffData, toAgent: string, title = 'Handoff context'): string {
  const parts = entries.map((e) => {
    const max = e.MaxChars && e.MaxChars > 0 ? e.MaxChars : HANDOFF_DEFAULTS.max_chars;
    return `## ${e.Label ?? e.Source}\n${cap(sourceText(parseHandoffSource(e.Source), e.Source, data), max)}`;
  });
  return `[${title} for ${toAgent}]\n${parts.join('\n\n')}`;
}
