/**
 * Runnable documentation: the code blocks of README.md and docs/ that a reader is told to copy are
 * executed, so an example that stops working fails the suite. The marker is the block's info string:
 *
 *   ```markdown file=agents/hello.agent.md    the block is that file: written into the page's folder
 *   ```bash run                               the block is shell commands: run with `bash -e` there
 *   ```text output                            (right after a run block) every non-blank line of it
 *                                             must appear in what the commands printed on stdout
 *
 * Every page gets a fresh folder holding only `examples/` (a link to the repository's, so a command
 * such as `loom run pipeline --registry examples/orchestrators/sequential` runs as it does from the
 * repository root); its blocks are applied in page order (files written, then commands run when
 * they come), so a page's commands see exactly the files the page showed before them. `loom` in a
 * command is the CLI of this checkout.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const ROOT = path.resolve(__dirname, '..', '..');

export type DocBlock =
  | { kind: 'file'; line: number; path: string; text: string }
  | { kind: 'run'; line: number; text: string; expect?: string };

/** The runnable blocks of one Markdown page, in order; a `file=` path that leaves the folder is refused. */
export function runnableBlocks(markdown: string): DocBlock[] {
  const out: DocBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(\S*)(.*)$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    const info = open[3].trim();
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== fence; i++) body.push(lines[i]);
    const text = body.join('\n') + '\n';
    const file = /(?:^|\s)file=(\S+)/.exec(info)?.[1];
    if (file) {
      if (path.isAbsolute(file) || path.normalize(file).startsWith('..')) throw new Error(`line ${start + 1}: file=${file} must be a path inside the page's folder`);
      out.push({ kind: 'file', line: start + 1, path: file, text });
    } else if (/(?:^|\s)run(?:\s|$)/.test(info)) {
      out.push({ kind: 'run', line: start + 1, text });
    } else if (/(?:^|\s)output(?:\s|$)/.test(info)) {
      const prev = out[out.length - 1];
      if (prev?.kind !== 'run') throw new Error(`line ${start + 1}: an output block must follow a run block`);
      prev.expect = text;
    }
  }
  return out;
}

/** README.md and every page under docs/ (decisions excluded: they hold no examples to run). */
export function docPages(): string[] {
  const docs = (dir: string): string[] => fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? docs(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []);
  return ['README.md', ...docs('docs').filter((p) => p !== path.join('docs', 'spec-decisions.md'))].sort();
}

export interface BlockFailure { line: number; command: string; code: number | null; out: string; err: string; why: string }

/** A folder holding a `loom` that runs this checkout's CLI, for PATH. */
function loomShim(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-docs-bin-'));
  const shim = path.join(dir, 'loom');
  fs.writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${path.join(ROOT, 'bin', 'loom.js')}" "$@"\n`);
  fs.chmodSync(shim, 0o755);
  return dir;
}

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.once('close', (code) => resolve({ code, out, err }));
  });
}

/**
 * Apply a page's blocks in a fresh folder; the first failing run block (exit code not 0, or an
 * expected output line missing) is returned, else undefined. The folder is removed afterwards.
 */
export async function runPage(markdown: string, env: NodeJS.ProcessEnv): Promise<BlockFailure | undefined> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-docs-page-'));
  const bin = loomShim();
  fs.symlinkSync(path.join(ROOT, 'examples'), path.join(dir, 'examples'), 'dir');
  try {
    const pageEnv = { ...env, PATH: `${bin}${path.delimiter}${env.PATH ?? process.env.PATH ?? ''}` };
    for (const b of runnableBlocks(markdown)) {
      if (b.kind === 'file') {
        fs.mkdirSync(path.dirname(path.join(dir, b.path)), { recursive: true });
        fs.writeFileSync(path.join(dir, b.path), b.text);
        continue;
      }
      const r = await bash(b.text, dir, pageEnv);
      if (r.code !== 0) return { line: b.line, command: b.text, ...r, why: `exit code ${r.code}` };
      const missing = (b.expect ?? '').split('\n').map((l) => l.trim()).filter((l) => l && !r.out.includes(l));
      if (missing.length) return { line: b.line, command: b.text, ...r, why: `stdout lacks: ${missing.join(' | ')}` };
    }
    return undefined;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(bin, { recursive: true, force: true });
  }
}

/** A failure as a test message: where, what ran, what it printed. */
export function describeFailure(page: string, f: BlockFailure): string {
  return `${page}:${f.line}: the runnable block failed (${f.why})\n--- commands\n${f.command}--- stdout\n${f.out}--- stderr\n${f.err}`;
}
