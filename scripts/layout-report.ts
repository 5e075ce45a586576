/**
 * `npm run layout:report` — figures of how the source tree is organised, for anyone to rerun before
 * and after a change of layout:
 *
 *  - folder pairs of src/ that import each other, and imports that run up a layer of the written
 *    order (scripts/layers.js, which ESLint enforces), with folders the order does not place;
 *  - import circles between files (strongly connected components of the file import graph);
 *  - the longest functions in src/ (lines, file:line, name);
 *  - source comments citing specification documents, decision or issue numbers, which a reader of
 *    the code cannot look up.
 *
 * Type-only imports count: they still tie the layers together. Reads files only; `--json` prints the
 * figures as one JSON object. Exit code 0 always (a report, not a gate: the linter is the gate).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
const { LAYER_OF } = require('./layers') as { LAYER_OF: Record<string, number> };

const ROOT = path.resolve(__dirname, '..');
const SRC = path.join(ROOT, 'src');

function walk(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Relative module specifiers a file imports (static, dynamic, require, re-exports). */
export function relativeImports(text: string): string[] {
  const re = /(?:import|export)[^'"`;]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|require\(\s*['"](\.[^'"]+)['"]\s*\)|^\s*import\s+['"](\.[^'"]+)['"]/gm;
  const specs: string[] = [];
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) specs.push(m[1] || m[2] || m[3] || m[4]);
  return specs;
}

function resolveSpec(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  for (const c of [base, `${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  return undefined;
}

/** Tarjan's strongly connected components; returns those of more than one file (a module naming its own type is no circle). */
export function circles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) strong(v);
  return out;
}

interface FunctionLength { lines: number; where: string; name: string }

function functionLengths(file: string): FunctionLength[] {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: FunctionLength[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isConstructorDeclaration(n)) {
      const a = sf.getLineAndCharacterOfPosition(n.getStart()).line;
      const b = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      const name = 'name' in n && n.name ? n.name.getText(sf) : ts.isConstructorDeclaration(n) ? 'constructor' : '(anonymous)';
      out.push({ lines: b - a + 1, where: `${path.relative(ROOT, file)}:${a + 1}`, name });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

function main(): void {
  const files = walk(SRC);
  const folder = (f: string): string => {
    const rel = path.relative(SRC, f).split(path.sep);
    return rel.length > 1 ? rel[0] : rel[0].replace(/\.ts$/, '');
  };
  const graph = new Map<string, Set<string>>();
  const folderEdges = new Set<string>();
  const upward: string[] = [];
  let citations = { spec: 0, decision: 0, issue: 0 };
  for (const f of files) {
    const text = fs.readFileSync(f, 'utf8');
    const deps = new Set<string>();
    for (const spec of relativeImports(text)) {
      const target = resolveSpec(f, spec);
      if (!target || !target.startsWith(SRC + path.sep)) continue;
      deps.add(target);
      if (folder(f) !== folder(target)) folderEdges.add(`${folder(f)}>${folder(target)}`);
      const [lf, lt] = [LAYER_OF[folder(f)], LAYER_OF[folder(target)]];
      if (lf !== undefined && lt !== undefined && lt > lf) upward.push(`${path.relative(ROOT, f)} -> ${path.relative(ROOT, target)}`);
    }
    graph.set(f, deps);
    citations = {
      spec: citations.spec + (text.match(/\bseeds?\s+0\d\d\b/gi)?.length ?? 0),
      decision: citations.decision + (text.match(/\bdecisions?\s+\d+/gi)?.length ?? 0),
      issue: citations.issue + (text.match(/\bissues?\s+\d+/gi)?.length ?? 0),
    };
  }
  const pairs: string[] = [];
  for (const e of folderEdges) {
    const [a, b] = e.split('>');
    if (a < b && folderEdges.has(`${b}>${a}`)) pairs.push(`${a}<->${b}`);
  }
  const loops = circles(graph).map((c) => c.map((f) => path.relative(ROOT, f)));
  // Generated code (*.generated.ts: Ajv's standalone validators) is no one's function to shorten.
  const longest = files.filter((f) => !f.endsWith('.generated.ts')).flatMap(functionLengths).sort((x, y) => y.lines - x.lines);
  const report = {
    files: files.length,
    folders: new Set(files.map(folder)).size,
    folder_pairs_importing_each_other: pairs.length,
    pairs: pairs.sort(),
    imports_up_a_layer: upward.length,
    upward: upward.sort(),
    folders_without_a_layer: [...new Set(files.map(folder))].filter((d) => files.some((f) => f.startsWith(path.join(SRC, d) + path.sep)) && LAYER_OF[d] === undefined).sort(),
    file_circles: loops.length,
    circles: loops,
    longest_function: longest[0],
    functions_over_150_lines: longest.filter((f) => f.lines > 150).length,
    comments_citing: citations,
  };
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const lines = [
    `files in src: ${report.files} in ${report.folders} folders`,
    `folder pairs importing each other: ${report.folder_pairs_importing_each_other}${pairs.length ? `  (${report.pairs.join(' ')})` : ''}`,
    `imports that run up a layer (scripts/layers.js): ${report.imports_up_a_layer}`,
    ...upward.map((u) => `  up: ${u}`),
    ...(report.folders_without_a_layer.length ? [`folders scripts/layers.js does not place: ${report.folders_without_a_layer.join(' ')}`] : []),
    `file import circles: ${report.file_circles}`,
    ...loops.map((c) => `  circle: ${c.join(' -> ')}`),
    `functions over 150 lines: ${report.functions_over_150_lines}`,
    ...longest.slice(0, 5).map((f) => `  ${String(f.lines).padStart(4)} lines  ${f.where} ${f.name}`),
    `comments citing specification documents: ${citations.spec}, decisions: ${citations.decision}, issues: ${citations.issue}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (require.main === module) main();
