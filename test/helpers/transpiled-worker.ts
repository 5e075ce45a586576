/**
 * The crash tests' worker process (worker-process.ts) and the sources it loads, transpiled to
 * JavaScript once by SWC (the transpiler jest runs every test file through, with the same target)
 * instead of by ts-node at each start: a worker process through ts-node spent ~6.5 s of CPU
 * loading the sources, the transpiled ones ~1.2 s. Same sources, transpile-only in both cases.
 *
 * The tree goes to a folder of the system's temp folder keyed by a hash of what it is made from
 * (every file under src/, the helper files, SWC's version and this checkout's path, whose
 * node_modules, package.json, scripts and .tools the tree links to, as a checkout has them); the
 * first process to ask makes it, the others read it (test/helpers/once.ts). spawnWorker runs it
 * when asked (`transpiled: true`).
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { once } from './once';

const ROOT = path.resolve(__dirname, '..', '..');
/** Transpiled besides src/: the worker process's script and the helpers it imports. */
const HELPERS = ['test/helpers/worker-process.ts', 'test/helpers/wait.ts'];
/** Linked into the tree: what the sources find from the project root (PROJECT_ROOT, the Temporal CLI, packages). */
const LINKS = ['node_modules', 'package.json', 'scripts', '.tools'];
const WAIT_MS = 120_000;

function swc(): typeof import('@swc/core') {
  return require('@swc/core') as typeof import('@swc/core');
}

/** Every file under `rel` (relative paths, sorted). */
function filesUnder(rel: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) out.push(...filesUnder(r));
    else if (e.isFile()) out.push(r);
  }
  return out;
}

function inputs(): string[] {
  return [...filesUnder('src'), ...HELPERS];
}

function inputsHash(files: string[]): string {
  const h = createHash('sha256');
  h.update(`${ROOT}\0swc ${(require('@swc/core/package.json') as { version: string }).version}\0node ${process.version}\0`);
  for (const f of files) {
    h.update(`${f.split(path.sep).join('/')}\0`);
    h.update(fs.readFileSync(path.join(ROOT, f)));
  }
  return h.digest('hex').slice(0, 20);
}

/** Writes the tree into `dir`: .ts files transpiled to .js (CommonJS, ES2022, as jest's transform), other files copied. */
function writeTree(dir: string, files: string[]): void {
  const { transformFileSync } = swc();
  for (const f of files) {
    const dest = path.join(dir, f);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    if (f.endsWith('.ts') && !f.endsWith('.d.ts')) {
      const { code } = transformFileSync(path.join(ROOT, f), {
        jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
        swcrc: false,
      });
      fs.writeFileSync(dest.replace(/\.ts$/, '.js'), code);
    } else {
      fs.copyFileSync(path.join(ROOT, f), dest);
    }
  }
  for (const l of LINKS) if (fs.existsSync(path.join(ROOT, l))) fs.symlinkSync(path.join(ROOT, l), path.join(dir, l));
}

/** The transpiled worker-process.js (making the tree first if no process has yet). */
export async function transpiledWorkerScript(): Promise<string> {
  const files = inputs();
  const dir = path.join(os.tmpdir(), 'agentloom-transpiled', inputsHash(files));
  const script = path.join(dir, 'test', 'helpers', 'worker-process.js');
  const { value } = await once<string>({
    result: `${dir}.json`,
    produce: async () => {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      writeTree(dir, files);
      return JSON.stringify(script);
    },
    // A temp cleaner may have removed it since: then it is made again.
    read: (content) => {
      const s = JSON.parse(content) as string;
      return fs.existsSync(s) && fs.existsSync(path.join(dir, 'src', 'worker', 'create-worker.js')) ? s : undefined;
    },
    what: 'the transpiled worker process (another test file may be making it)',
    waitMs: WAIT_MS,
  });
  return value;
}
