/**
 * fuseraft's lossless compaction for the state machine strategy, pure: when the shared history is
 * compacted (the transcript window drops its oldest entries, see transcript.ts), nothing the
 * evidence contracts need is lost. The EvidenceStore is the run's evidence log (every real
 * write_file and shell call, recorded by the tools in the shared workspace and never compacted);
 * the ContextRebuilder renders it, with the state machine's durable position and its transition
 * and contract counters, into a block every member reads after the compaction, so a later member
 * still knows which files were written and which commands ran (with their exit codes) before it.
 */

/** The state machine's durable state the rebuilt context quotes verbatim. */
export interface CompactionView {
  /** The current state. */
  position?: string;
  /** Times each transition (`State#index`) fired. */
  fired?: Record<string, number>;
  /** Consecutive contract failures per transition (zero once it fired). */
  contract_failures?: Record<string, number>;
  /** The latest routing decisions (the status route log). */
  routes?: { iteration: number; agent: string; reason: string; failure?: string }[];
}

/** What the member-input activity needs to rebuild the context: where the EvidenceStore is, and the view. */
export interface RebuildRequest extends CompactionView { workspace: string }

/** A write record of the evidence log (structural: the activity's ChangeRecord fits). */
export interface WriteEvidence { path: string; mode: string; bytes: number; sha256: string; workflow_id: string }
/** A shell record of the evidence log (structural: the activity's ShellRecord fits). */
export interface ShellEvidence { command: string; exit_code: number; timed_out: boolean; output_tail: string; workflow_id: string }

/** Bounds of the rebuilt block: older commands beyond them are counted, never silently dropped. */
export const REBUILD_LIMITS = { commands: 30, files: 60, output_tail_chars: 400, routes: 10 };

/** The shared history was compacted when the window omits entries. */
export function isCompacted(omitted: number): boolean {
  return omitted > 0;
}

/** The member run that made a call: the last segment of its workflow id (`<run>/<role>`). */
export function authorOf(workflowId: string): string {
  const i = workflowId.lastIndexOf('/');
  return i >= 0 ? workflowId.slice(i + 1) : workflowId;
}

const tail = (s: string, n: number): string => (s.length > n ? `…${s.slice(-n)}` : s);
const counters = (m: Record<string, number> | undefined): string =>
  Object.entries(m ?? {}).filter(([, v]) => v > 0).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k} ×${v}`).join(', ');

/**
 * The ContextRebuilder: the block a member reads after compaction, rebuilt from the evidence log
 * (oldest first, as recorded) and the state machine's view. Files are listed once each (the last
 * write wins, with the number of writes); commands are the most recent `REBUILD_LIMITS.commands`,
 * with a count of the earlier ones (the full records stay in the workspace's evidence log).
 */
export function rebuildContext(omitted: number, view: CompactionView, writes: readonly WriteEvidence[], shell: readonly ShellEvidence[]): string {
  const parts = [
    `# Evidence kept across compaction\n${omitted} earlier conversation entr${omitted === 1 ? 'y was' : 'ies were'} compacted. This block is rebuilt from the run's evidence log (what the tools recorded, not what agents said) and the state machine's durable state.`,
  ];
  const sm: string[] = [];
  if (view.position !== undefined) sm.push(`Current state: ${view.position}`);
  const fired = counters(view.fired);
  if (fired) sm.push(`Transitions fired: ${fired}`);
  const failing = counters(view.contract_failures);
  if (failing) sm.push(`Consecutive contract failures: ${failing}`);
  const routes = (view.routes ?? []).slice(-REBUILD_LIMITS.routes);
  if (routes.length) sm.push(`Latest routing decisions:\n${routes.map((r) => `- iteration ${r.iteration}${r.agent ? `, ${r.agent}` : ''}: ${r.reason}${r.failure ? ` [${r.failure}]` : ''}`).join('\n')}`);
  if (sm.length) parts.push(`## State machine\n${sm.join('\n')}`);

  const byPath = new Map<string, { last: WriteEvidence; count: number }>();
  for (const w of writes) byPath.set(w.path, { last: w, count: (byPath.get(w.path)?.count ?? 0) + 1 });
  const files = [...byPath.values()];
  const shownFiles = files.slice(-REBUILD_LIMITS.files);
  parts.push(`## Files written (${files.length})${files.length > shownFiles.length ? `, the ${files.length - shownFiles.length} written first not listed` : ''}\n${
    shownFiles.length ? shownFiles.map(({ last, count }) => `- ${last.path}: ${last.bytes} bytes, sha256 ${last.sha256.slice(0, 12)}, last ${last.mode} by ${authorOf(last.workflow_id)}${count > 1 ? ` (${count} writes)` : ''}`).join('\n') : '(none)'}`);

  const shown = shell.slice(-REBUILD_LIMITS.commands);
  parts.push(`## Commands run (${shell.length})${shell.length > shown.length ? `, the ${shell.length - shown.length} earliest not listed` : ''}\n${
    shown.length ? shown.map((s) => {
      const out = s.output_tail.trim();
      return `- \`${s.command}\` by ${authorOf(s.workflow_id)}: exit ${s.exit_code}${s.timed_out ? ' (timed out)' : ''}${out ? `\n  output: ${tail(out, REBUILD_LIMITS.output_tail_chars).replace(/\n/g, '\n  ')}` : ''}`;
    }).join('\n') : '(none)'}`);
  return parts.join('\n\n');
}
