/**
 * docs/spec-decisions.md is a reference a reader navigates: decisions grouped by topic, a contents
 * list of topic anchors at the top, and a number index that sends every decision number (a stable
 * id that code, tests and docs cite as "decision N") to its entry. These checks keep it that way:
 * numbers are unique, every number the index lists has an entry (or a "Supersedes N" line in the
 * decision that replaced it), every entry is in the index, and every anchor a link names exists.
 */
import * as fs from 'fs';
import * as path from 'path';

const DOC = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'spec-decisions.md'), 'utf8');

/** The part of the page before the heading `## <a id="id"></a>…` with that id (or the rest). */
function section(id: string): string {
  const start = DOC.indexOf(`## <a id="${id}"></a>`);
  if (start < 0) throw new Error(`no section ${id}`);
  const next = DOC.indexOf('\n## ', start + 1);
  return DOC.slice(start, next < 0 ? undefined : next);
}

/** Every anchor id the page defines: `<a id="…">` (topic headings, decisions, folded numbers). */
function anchors(): string[] {
  return [...DOC.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]);
}

/** Decision entries: `<a id="dN"></a>N\. …` (the grouped form) and `N. **…` list items (a section
 * appended in the old form, until it is folded into its topic). */
function entries(): number[] {
  const grouped = [...DOC.matchAll(/^<a id="d(\d+)"><\/a>(\d+)\\\. /gm)].map((m) => {
    if (m[1] !== m[2]) throw new Error(`entry ${m[2]} carries the anchor d${m[1]}`);
    return Number(m[2]);
  });
  const listed = [...DOC.matchAll(/^(\d+)\. \S/gm)].map((m) => Number(m[1]));
  return [...grouped, ...listed];
}

/** Numbers folded into a successor: `<a id="dN"></a>Supersedes N: …`. */
function folded(): number[] {
  return [...DOC.matchAll(/^<a id="d(\d+)"><\/a>Supersedes (\d+): \S/gm)].map((m) => {
    if (m[1] !== m[2]) throw new Error(`"Supersedes ${m[2]}" carries the anchor d${m[1]}`);
    return Number(m[2]);
  });
}

/** The number index's rows: `| [N](#dN) | …topic link… |`. */
function indexRows(): { n: number; target: string; folded: boolean; links: string[] }[] {
  return section('number-index')
    .split('\n')
    .filter((l) => l.startsWith('| ['))
    .map((l) => {
      const m = /^\| \[(\d+)\]\(#([^)]+)\) \| (.+) \|$/.exec(l);
      if (!m) throw new Error(`number index row not understood: ${l}`);
      return { n: Number(m[1]), target: m[2], folded: m[3].startsWith('folded into '), links: [...m[3].matchAll(/\]\(#([^)]+)\)/g)].map((x) => x[1]) };
    });
}

describe('docs/spec-decisions.md', () => {
  it('gives every decision number once, as an entry or as a folded number', () => {
    const all = [...entries(), ...folded()];
    expect(all.length).toBeGreaterThan(300);
    const seen = new Set<number>();
    const twice = all.filter((n) => (seen.has(n) ? true : (seen.add(n), false)));
    expect(twice).toEqual([]);
  });

  it('has no anchor twice', () => {
    const seen = new Set<string>();
    expect(anchors().filter((a) => (seen.has(a) ? true : (seen.add(a), false)))).toEqual([]);
  });

  it('indexes every number, each once, pointing at its own entry', () => {
    const rows = indexRows();
    const ids = new Set(anchors());
    const entryNumbers = new Set(entries());
    const foldedNumbers = new Set(folded());
    expect(rows.filter((r) => r.target !== `d${r.n}`)).toEqual([]);
    // Every number the index lists has an entry, or a "Supersedes" line in its successor.
    expect(rows.filter((r) => !entryNumbers.has(r.n) && !foldedNumbers.has(r.n)).map((r) => r.n)).toEqual([]);
    expect(rows.filter((r) => !ids.has(r.target)).map((r) => r.n)).toEqual([]);
    // Every link of a row (topic, successor) exists.
    expect(rows.flatMap((r) => r.links.filter((l) => !ids.has(l)).map((l) => `${r.n} → #${l}`))).toEqual([]);
    // And every entry or folded number is in the index (a decision appended in a new section is
    // folded into its topic and indexed).
    const indexed = new Set(rows.map((r) => r.n));
    expect([...entryNumbers, ...foldedNumbers].filter((n) => !indexed.has(n)).sort((a, b) => a - b)).toEqual([]);
    const seen = new Set<number>();
    expect(rows.filter((r) => (seen.has(r.n) ? true : (seen.add(r.n), false))).map((r) => r.n)).toEqual([]);
  });

  it('sends a folded number to the decision that supersedes it, in that decision\'s topic', () => {
    const rows = indexRows().filter((r) => r.folded);
    expect(rows.map((r) => r.n).sort((a, b) => a - b)).toEqual([...folded()].sort((a, b) => a - b));
    for (const row of rows) {
      const successor = Number(/^d(\d+)$/.exec(row.links[0])![1]);
      const topic = row.links[1];
      const body = section(topic);
      expect(body).toContain(`<a id="d${successor}"></a>${successor}\\. `);
      expect(body).toContain(`<a id="d${row.n}"></a>Supersedes ${row.n}: `);
    }
  });

  it('lists every topic in the contents, and every contents link reaches a topic heading', () => {
    const contents = section('contents-list');
    const linked = [...contents.matchAll(/^- \[[^\]]+\]\(#([^)]+)\)/gm)].map((m) => m[1]);
    const headings = [...DOC.matchAll(/^## <a id="([^"]+)"><\/a>/gm)].map((m) => m[1]).filter((id) => id !== 'contents-list');
    expect(linked.length).toBeGreaterThan(10);
    expect(linked).toEqual(headings);
  });

  it('links only to anchors that exist (the "decision N" references in the text included)', () => {
    const ids = new Set(anchors());
    const links = [...DOC.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(400);
    expect(links.filter((l) => !ids.has(l))).toEqual([]);
  });

  it('keeps decisions in numeric order within a topic', () => {
    const topics = [...DOC.matchAll(/^## <a id="([^"]+)"><\/a>/gm)].map((m) => m[1]);
    for (const id of topics) {
      const numbers = [...section(id).matchAll(/^<a id="d(\d+)"><\/a>\d+\\\. /gm)].map((m) => Number(m[1]));
      expect({ id, numbers }).toEqual({ id, numbers: [...numbers].sort((a, b) => a - b) });
    }
  });

  it('cites specifications by name, not by a seed number or a path outside the repository', () => {
    expect(DOC.match(/\bseed[ -]?0\d\d\b/gi) ?? []).toEqual([]);
    expect(DOC.match(/\.\.\/shared\/|shared\/seeds/g) ?? []).toEqual([]);
  });
});
