/**
 * Every `patched()` id has both sides recorded: at least one fixture history taken BEFORE the patch
 * existed (a run that went through the old branch; replaying it proves the old side still holds)
 * and at least one taken AFTER (its marker is in the history; replaying proves the new side). The
 * fixtures come from `npm run replay:compat -- --record [--at REV]` and are listed in
 * test/fixtures/histories/compat/manifest.json; test/compat/fixtures.replay.test.ts replays them.
 */
import * as fs from 'fs';
import * as path from 'path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { FIXTURE_DIR, readManifest } from './run-compat';
import { patchMarkers } from './tree';
import { PATCHES } from '../../src/workflows/patches';

const SRC = path.resolve(__dirname, '..', '..', 'src');

/** Every .ts file under src/ with its text. */
function sources(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) out.push({ file: path.relative(SRC, p), text: fs.readFileSync(p, 'utf8') });
    }
  };
  walk(SRC);
  return out;
}

/** Patch ids used by the workflow code (`patched(PATCHES.name.id)` / `deprecatePatch(…)`), each with a file that uses it. */
function patchIds(): Map<string, string> {
  const ids = new Map<string, string>();
  for (const { file, text } of sources()) {
    for (const m of text.matchAll(/\b(?:patched|deprecatePatch)\(\s*PATCHES\.(\w+)\.id\s*\)/g)) {
      const entry = (PATCHES as Record<string, { id: string }>)[m[1]];
      if (entry) ids.set(entry.id, file);
    }
  }
  return ids;
}

test('every patch id comes from the registry, and every registered patch is used', () => {
  const literal = sources().flatMap(({ file, text }) => [...text.matchAll(/\b(?:patched|deprecatePatch)\(\s*(?!PATCHES\.)[^)]/g)].map(() => file));
  expect(literal).toEqual([]);
  const used = new Set(patchIds().keys());
  expect(Object.values(PATCHES).map((p) => p.id).filter((id) => !used.has(id))).toEqual([]);
  // ids are unique
  expect(new Set(Object.values(PATCHES).map((p) => p.id)).size).toBe(Object.keys(PATCHES).length);
});

const manifest = readManifest();

test('the patch scan finds the workflow code\'s patches', () => {
  // A guard against a scan that silently finds nothing (then every id would be "covered").
  expect(patchIds().size).toBeGreaterThanOrEqual(12);
  expect([...patchIds().keys()]).toContain('pause-before-continue-as-new');
});

test('every patched() id has a recorded history from before the patch and one from after it', () => {
  const missing: string[] = [];
  for (const [id, file] of patchIds()) {
    const after = manifest.filter((e) => e.markers.includes(id));
    const before = manifest.filter((e) => e.before.includes(id));
    if (!after.length) missing.push(`${id} (${file}): no history recorded after the patch (none holds its marker)`);
    if (!before.length) missing.push(`${id} (${file}): no history recorded before the patch (record a scenario reaching it with --record --at <commit before the patch>)`);
  }
  expect(missing).toEqual([]);
});

test('the manifest tells the truth about each fixture', () => {
  expect(manifest.length).toBeGreaterThan(0);
  const listed = new Set(manifest.map((e) => e.file));
  const onDisk: string[] = [];
  for (const d of fs.readdirSync(FIXTURE_DIR, { withFileTypes: true })) {
    if (d.isDirectory()) for (const f of fs.readdirSync(path.join(FIXTURE_DIR, d.name))) onDisk.push(`${d.name}/${f}`);
  }
  expect(onDisk.filter((f) => !listed.has(f))).toEqual([]);
  expect([...listed].filter((f) => !onDisk.includes(f))).toEqual([]);
  for (const e of manifest) {
    const markers = patchMarkers(historyFromJSON(JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, e.file), 'utf8'))));
    // The markers listed are exactly those in the history; a "before" history cannot hold the marker.
    expect({ file: e.file, markers: [...markers].sort() }).toEqual({ file: e.file, markers: [...e.markers].sort() });
    expect({ file: e.file, before_with_marker: e.before.filter((id) => markers.includes(id)) }).toEqual({ file: e.file, before_with_marker: [] });
  }
});
