/**
 * The published package as a user gets it, for the tests that install it: `npm pack` (its `prepack`
 * builds dist/ with tsconfig.build.json) in a copy of this checkout's sources, so this checkout gets
 * no dist/; and the offline install of the tarball into a user's project (`npm ci --offline` with a
 * lockfile written from the repository's: offline-lock.ts).
 *
 * One pack serves every file that needs the tarball (pack-install, starter, package): the build
 * takes 30 to 150 s, and the same inputs give the same tarball. It goes to a folder of the system's
 * temp folder keyed by a hash of what it is built from (the shipped sources, the lockfile of the
 * node_modules that build it, Node's version); the first file to ask packs it, the others wait for
 * its result (test/helpers/once.ts).
 * Each file gets its own copy of the tarball in its own folder, so what a test does to it stays its own.
 */
import { execFile } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import { writeOfflineLock } from './offline-lock';
import { once } from '../helpers/once';

export const run = promisify(execFile);
export const ROOT = path.resolve(__dirname, '..', '..');
/** What `prepack` needs to build, and what the `files` list ships. */
const SOURCES = ['package.json', 'README.md', 'LICENSE', 'tsconfig.json', 'tsconfig.build.json', 'src', 'worker.ts', 'client.ts', 'bin', 'schemas', path.join('scripts', 'install-temporal.sh'), path.join('scripts', 'build-cli-bundle.ts')];
/** How long a waiting file gives the packing one (a pack on a loaded 2-core machine took 150 s). */
const PACK_WAIT_MS = 600_000;

/** The environment of a user's shell: no test-runner or repository settings. */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', ...extra };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env;
}

export interface Packed { tarball: string; entryCount: number; size: number; unpackedSize: number }

/** The hash of what the tarball is built from: every file of SOURCES (path and bytes), the lockfile, Node's version. */
export function packInputsHash(): string {
  const h = createHash('sha256');
  const add = (rel: string) => {
    const abs = path.join(ROOT, rel);
    const st = fs.statSync(abs);
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(abs).sort()) add(path.join(rel, name));
      return;
    }
    h.update(`${rel.split(path.sep).join('/')}\0${st.size}\0`);
    h.update(fs.readFileSync(abs));
  };
  for (const f of [...SOURCES, 'package-lock.json']) add(f);
  h.update(`node ${process.version}`);
  return h.digest('hex').slice(0, 20);
}

/** `npm pack` of this checkout into `destDir` (sources copied there first, removed after). */
async function packInto(destDir: string): Promise<Packed> {
  const sources = path.join(destDir, 'agentloom');
  for (const f of SOURCES) fs.cpSync(path.join(ROOT, f), path.join(sources, f), { recursive: true });
  // prepack's tsc and the build's types: this checkout's node_modules, as a developer's clone has them.
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(sources, 'node_modules'), 'dir');
  try {
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destDir], { cwd: sources, env: userEnv(), maxBuffer: 64 << 20 });
    const packed = (JSON.parse(stdout) as { filename: string; size: number; unpackedSize: number; entryCount: number }[])[0];
    return { tarball: path.join(destDir, packed.filename), entryCount: packed.entryCount, size: packed.size, unpackedSize: packed.unpackedSize };
  } finally {
    fs.rmSync(sources, { recursive: true, force: true });
  }
}

/**
 * The shared pack of this checkout: packed by the first caller whose inputs hash has none yet,
 * then read by every other (in this process, another jest worker or a later run): test/helpers/once.ts.
 * Returns where the tarball is in the shared folder: copy it, never change it (`packAgentloom` does).
 */
export async function sharedPack(): Promise<Packed & { packedHere: boolean }> {
  const dir = path.join(os.tmpdir(), 'agentloom-pack', packInputsHash());
  const { value, producedHere } = await once<Packed>({
    result: `${dir}.json`,
    produce: async () => {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      return JSON.stringify(await packInto(dir));
    },
    // A temp cleaner may have removed the tarball since: then it is packed again.
    read: (content) => {
      const packed = JSON.parse(content) as Packed;
      return fs.existsSync(packed.tarball) ? packed : undefined;
    },
    what: 'the shared npm pack of this checkout (another test file may be packing it)',
    waitMs: PACK_WAIT_MS,
  });
  return { ...value, packedHere: producedHere };
}

/** The packed package, copied into `destDir` (a test's own folder): the shared pack's tarball. */
export async function packAgentloom(destDir: string): Promise<Packed & { packedHere: boolean }> {
  const shared = await sharedPack();
  const tarball = path.join(destDir, path.basename(shared.tarball));
  fs.copyFileSync(shared.tarball, tarball);
  return { ...shared, tarball };
}

/** Point `projectDir` at `tarball` and install it and the project's dependencies offline. Returns the number of packages locked. */
export async function installOffline(projectDir: string, tarball: string): Promise<number> {
  const locked = writeOfflineLock(path.join(ROOT, 'package-lock.json'), projectDir, tarball);
  await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: projectDir, env: userEnv(), maxBuffer: 64 << 20 });
  return locked;
}
