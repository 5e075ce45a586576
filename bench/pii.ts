/**
 * `npm run bench:pii`: the PII engine's quality on bench/fixtures/pii-sentences.json (the set the rules were tuned on) and
 * pii-sentences-holdout.json (written after tuning, not tuned on) — realistic
 * sentences (names mid-sentence and in JSON tool results, international phones, addresses,
 * IBANs, national identifiers) and look-alikes that must stay (product codes, order numbers,
 * versions, cities, companies), each with its expected entities as [kind, exact text].
 *
 * A detected span counts for an expected entity when its kind is the same and the spans overlap;
 * "exact" counts those with the same text too. Prints recall and precision per kind, the missed
 * entities and the false positives (so the table can be read against the sentences), and the
 * engine's time per sentence.
 */
import * as fs from 'fs';
import * as path from 'path';
import { detectPii, type PiiSpan } from '../src/governance/pii';
import { PII_KINDS } from '../src/governance/pii-kinds';

interface Case {
  text: string;
  pii: Array<[string, string]>;
}

interface Expected {
  kind: string;
  start: number;
  end: number;
}

/** The tuning set (the rules were adjusted against it), a held-out set written after tuning (never tuned on), and known-hard cases (the residual risk, never tuned on). */
const FIXTURES = ['pii-sentences.json', 'pii-sentences-holdout.json', 'pii-sentences-hard.json'].map((f) => path.join(__dirname, 'fixtures', f));

function expectedSpans(c: Case, i: number): Expected[] {
  let from = 0;
  return c.pii.map(([kind, value]) => {
    const start = c.text.indexOf(value, from);
    if (start < 0) throw new Error(`fixture sentence ${i + 1}: expected text ${JSON.stringify(value)} is not in ${JSON.stringify(c.text)}`);
    if (!(PII_KINDS as readonly string[]).includes(kind)) throw new Error(`fixture sentence ${i + 1}: unknown kind ${kind}; use one of ${PII_KINDS.join(', ')}`);
    from = start + value.length;
    return { kind, start, end: start + value.length };
  });
}

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }): boolean => a.start < b.end && a.end > b.start;

function report(file: string): void {
  const cases = JSON.parse(fs.readFileSync(file, 'utf8')) as Case[];
  const tally: Record<string, { expected: number; found: number; detected: number; correct: number; exact: number }> = {};
  const row = (k: string) => (tally[k] ??= { expected: 0, found: 0, detected: 0, correct: 0, exact: 0 });
  const missed: string[] = [];
  const wrong: string[] = [];
  detectPii('warm up: Jane Doe, +44 20 7946 0958'); // loads the tagger's lexicon outside the timing
  let ms = 0;
  cases.forEach((c, i) => {
    const want = expectedSpans(c, i);
    const t0 = process.hrtime.bigint();
    const got: PiiSpan[] = detectPii(c.text);
    ms += Number(process.hrtime.bigint() - t0) / 1e6;
    for (const w of want) {
      row(w.kind).expected++;
      const hit = got.find((g) => g.kind === w.kind && overlaps(g, w));
      if (hit) {
        row(w.kind).found++;
        if (hit.start === w.start && hit.end === w.end) row(w.kind).exact++;
      } else missed.push(`${w.kind} ${JSON.stringify(c.text.slice(w.start, w.end))} in #${i + 1}${got.some((g) => overlaps(g, w)) ? ` (found as ${got.find((g) => overlaps(g, w))?.kind})` : ''}`);
    }
    for (const g of got) {
      row(g.kind).detected++;
      if (want.some((w) => w.kind === g.kind && overlaps(g, w))) row(g.kind).correct++;
      else wrong.push(`${g.kind} ${JSON.stringify(c.text.slice(g.start, g.end))} (rule ${g.rule}) in #${i + 1}`);
    }
  });
  const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : 'n/a');
  const lines = ['| kind | expected | found | exact span | recall | detected | correct | precision |', '|---|---:|---:|---:|---:|---:|---:|---:|'];
  const total = { expected: 0, found: 0, detected: 0, correct: 0, exact: 0 };
  for (const k of PII_KINDS) {
    const t = row(k);
    for (const f of Object.keys(total) as Array<keyof typeof total>) total[f] += t[f];
    lines.push(`| ${k} | ${t.expected} | ${t.found} | ${t.exact} | ${pct(t.found, t.expected)} | ${t.detected} | ${t.correct} | ${pct(t.correct, t.detected)} |`);
  }
  lines.push(`| all | ${total.expected} | ${total.found} | ${total.exact} | ${pct(total.found, total.expected)} | ${total.detected} | ${total.correct} | ${pct(total.correct, total.detected)} |`);
  console.log(`bench:pii — ${cases.length} sentences (${cases.filter((c) => !c.pii.length).length} without PII), ${file.replace(`${process.cwd()}${path.sep}`, '')}\n`);
  console.log(lines.join('\n'));
  console.log(`\nmissed (${missed.length}):${missed.map((m) => `\n  - ${m}`).join('') || ' none'}`);
  console.log(`false positives (${wrong.length}):${wrong.map((m) => `\n  - ${m}`).join('') || ' none'}`);
  console.log(`\nengine time: ${(ms / cases.length).toFixed(2)} ms/sentence (${ms.toFixed(0)} ms for ${cases.length}, after warm-up)`);
}

for (const f of process.argv.length > 2 ? process.argv.slice(2) : FIXTURES) {
  report(f);
  console.log('');
}
