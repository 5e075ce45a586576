/** `loom publish`: store compiled payloads under <registry>/.loom/published/<agent_id>/<version>.json. */
import * as fs from 'fs';
import * as path from 'path';
// Only the two functions used: the package's index loads every range and class (~3× the time).
import compare from 'semver/functions/compare';
import valid from 'semver/functions/valid';
import type { CompiledBundle, Diagnostic } from '../compiled/types';
import { canonicalJson } from '../compiled/canonical';
import { diag, parseSource, posOf } from './source';

export interface PublishResult { ok: boolean; file?: string; unchanged?: boolean; diagnostics: Diagnostic[] }

/**
 * Semver precedence (semver.org §11, by the `semver` package): MAJOR.MINOR.PATCH numerically; a
 * pre-release sorts before its release; pre-release identifiers compare left to right; build
 * metadata is ignored. A name that is not a version (a stray file) compares as text.
 */
export function compareSemver(a: string, b: string): number {
  if (!valid(a) || !valid(b)) return a < b ? -1 : a > b ? 1 : 0;
  return compare(a, b);
}

/**
 * Publishes the root agent of `bundle`. Refuses (diagnostics AGF060–AGF062):
 *  - the same agent_id+version already published with a different content hash;
 *  - a version not greater than the highest published one;
 *  - a changed lineage: the published folder's payloads belong to another agent_id, or the
 *    agent file's agent_id differs from the file it was first published from.
 */
export function publishBundle(registryDir: string, bundle: CompiledBundle, opts: { outDir?: string } = {}): PublishResult {
  const agent = bundle.agents[bundle.root];
  const file = `agents/${bundle.root}.agent.md`;
  const root = opts.outDir ?? path.join(registryDir, '.loom', 'published');
  const dir = path.join(root, agent.agent_id);
  const target = path.join(dir, `${agent.version}.json`);
  const diagnostics: Diagnostic[] = [];
  const at = (field: string): { line: number; column: number } => {
    try {
      const src = parseSource(fs.readFileSync(path.join(registryDir, file)), file, []);
      return src ? posOf(src, [field]) : { line: 1, column: 1 };
    } catch { return { line: 1, column: 1 }; }
  };
  const err = (field: string, code: string, message: string): void => {
    const p = at(field);
    diagnostics.push(diag(file, p.line, p.column, 'error', code, field, message));
  };
  let existing: string[] = [];
  try { existing = fs.readdirSync(dir).filter((f) => f.endsWith('.json')); } catch { existing = []; }
  for (const f of existing) {
    try {
      const prev = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as CompiledBundle;
      if (prev.root !== agent.agent_id) {
        err('agent_id', 'AGF062', `published lineage ${dir} belongs to agent_id \`${prev.root}\`; an agent_id never changes once published — use a new agent_id folder`);
        return { ok: false, diagnostics };
      }
    } catch { /* unreadable payloads are ignored */ }
  }
  if (fs.existsSync(target)) {
    let prevHash = '';
    try { prevHash = (JSON.parse(fs.readFileSync(target, 'utf8')) as CompiledBundle).content_hash; } catch { prevHash = ''; }
    if (prevHash === bundle.content_hash) return { ok: true, file: target, unchanged: true, diagnostics };
    err('version', 'AGF060', `version ${agent.version} of \`${agent.agent_id}\` is already published with a different content hash; bump \`version\` (e.g. patch for wording changes)`);
    return { ok: false, diagnostics };
  }
  // Only payloads named by a version take part (a stray `latest.json` must not block publishing).
  const versions = existing.map((f) => f.slice(0, -5)).filter((v) => valid(v) === v).sort(compareSemver);
  const highest = versions[versions.length - 1];
  if (highest && compareSemver(agent.version, highest) <= 0) {
    err('version', 'AGF061', `version ${agent.version} does not increase on the highest published version ${highest}; write a version greater than ${highest}`);
    return { ok: false, diagnostics };
  }
  fs.mkdirSync(dir, { recursive: true });
  const tmp = `${target}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, canonicalJson(bundle) + '\n');
  fs.renameSync(tmp, target);
  return { ok: true, file: target, diagnostics };
}
