/**
 * The Agent Definition Specification's `release` (publishing metadata): "informative and not enforced", and stripped from the
 * runtime payload, but still checked so publishing tools can trust it: `channel` in its vocabulary,
 * `replaces_version` a semantic version below `version`, `approvals_required` a list of names, and
 * a `changelog` of `{version, date, notes}` entries (semantic versions, ISO dates), newest first and
 * no newer than the agent's version (both warnings: the seed says "should").
 */
// Only the two functions used: the package's index loads every range and class (~3× the time).
import compare from 'semver/functions/compare';
import valid from 'semver/functions/valid';
import type { PathPart } from './source';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

export interface ReleaseCtx {
  err(path: PathPart[], code: string, message: string, key?: boolean): void;
  warn(path: PathPart[], code: string, message: string, key?: boolean): void;
}

export const RELEASE_CHANNELS = ['stable', 'beta', 'internal'];
const KEYS = ['channel', 'replaces_version', 'approvals_required', 'changelog'];
const ENTRY_KEYS = ['version', 'date', 'notes'];
/** ISO 8601 calendar date (the seed's examples: "2026-03-10"), checked for a real day. */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isIsoDate(s: string): boolean {
  const m = ISO_DATE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

export function checkRelease(ctx: ReleaseCtx, release: unknown, version: string | undefined): void {
  if (release === undefined) return;
  const at: PathPart[] = ['release'];
  if (!isObj(release)) { ctx.err(at, 'AGF095', '`release` must be a mapping: `release: {channel: stable, changelog: [...]}`'); return; }
  for (const k of Object.keys(release)) if (!KEYS.includes(k)) ctx.err([...at, k], 'AGF095', `unknown release field \`${k}\`; the seed's release fields are ${KEYS.join(', ')}`, true);
  if (release.channel !== undefined && !RELEASE_CHANNELS.includes(release.channel as string))
    ctx.err([...at, 'channel'], 'AGF095', `channel ${JSON.stringify(release.channel)} is not one of ${RELEASE_CHANNELS.join(' | ')}`);
  const current = version && valid(version) ? version : undefined;
  if (release.replaces_version !== undefined) {
    const r = release.replaces_version;
    if (typeof r !== 'string' || !valid(r)) ctx.err([...at, 'replaces_version'], 'AGF095', `replaces_version ${JSON.stringify(r)} is not a semantic version (e.g. "0.9.0")`);
    else if (current && compare(r, current) >= 0) ctx.err([...at, 'replaces_version'], 'AGF095', `replaces_version ${r} is not lower than this version ${current}; a release replaces an older one`);
  }
  if (release.approvals_required !== undefined && (!Array.isArray(release.approvals_required) || release.approvals_required.some((a) => typeof a !== 'string' || !a.trim())))
    ctx.err([...at, 'approvals_required'], 'AGF095', '`approvals_required` must be a list of approver names, e.g. `["product-owner", "ai-safety"]`');
  if (release.changelog === undefined) return;
  if (!Array.isArray(release.changelog)) { ctx.err([...at, 'changelog'], 'AGF095', '`changelog` must be a list of `{version, date, notes}` entries, newest first'); return; }
  let prev: { version?: string; date?: string } = {};
  release.changelog.forEach((e, i) => {
    const p: PathPart[] = [...at, 'changelog', i];
    if (!isObj(e)) { ctx.err(p, 'AGF095', 'a changelog entry is `{version: "1.2.0", date: "2026-03-10", notes: "…"}`'); return; }
    for (const k of Object.keys(e)) if (!ENTRY_KEYS.includes(k)) ctx.err([...p, k], 'AGF095', `unknown changelog field \`${k}\`; an entry has ${ENTRY_KEYS.join(', ')}`, true);
    for (const k of ENTRY_KEYS) if (e[k] === undefined) ctx.err(p, 'AGF095', `changelog entry needs \`${k}\``, true);
    const v = typeof e.version === 'string' && valid(e.version) ? e.version : undefined;
    if (e.version !== undefined && !v) ctx.err([...p, 'version'], 'AGF095', `changelog version ${JSON.stringify(e.version)} is not a semantic version`);
    const date = typeof e.date === 'string' && isIsoDate(e.date) ? e.date : undefined;
    if (e.date !== undefined && !date) ctx.err([...p, 'date'], 'AGF095', `changelog date ${JSON.stringify(e.date)} is not an ISO 8601 date (YYYY-MM-DD)`);
    if (e.notes !== undefined && typeof e.notes !== 'string') ctx.err([...p, 'notes'], 'AGF095', '`notes` must be text');
    // "Should match a previously published version": a recommendation, so a warning.
    if (v && current && compare(v, current) > 0) ctx.warn([...p, 'version'], 'AGL043', `changelog entry ${v} is newer than this agent's version ${current}; entries describe published versions`);
    if (v && prev.version && compare(v, prev.version) >= 0) ctx.warn([...p, 'version'], 'AGL043', `changelog is not newest first: ${v} comes after ${prev.version}`);
    else if (date && prev.date && date > prev.date) ctx.warn([...p, 'date'], 'AGL043', `changelog is not newest first: ${date} comes after ${prev.date}`);
    prev = { version: v ?? prev.version, date: date ?? prev.date };
  });
}
