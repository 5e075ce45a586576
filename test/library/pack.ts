/**
 * The published package as a user gets it, for the tests that install it: `npm pack` (its `prepack`
 * builds dist/ with tsconfig.build.json) in a copy of this checkout's sources, so this checkout gets
 * no dist/; and the offline install of the tarball into a user's project (`npm ci --offline` with a
 * lockfile written from the repository's: offline-lock.ts). Each test file packs once.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { writeOfflineLock } from './offline-lock';

export const run = promisify(execFile);
export const ROOT = path.resolve(__dirname, '..', '..');
/** What `prepack` needs to build, and what the `files` list ships. */
const SOURCES = ['package.json', 'README.md', 'LICENSE', 'tsconfig.json', 'tsconfig.build.json', 'src', 'worker.ts', 'client.ts', 'bin', 'schemas', path.join('scripts', 'install-temporal.sh')];

/** The environment of a user's shell: no test-runner or repository settings. */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', ...extra };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env;
}

export interface Packed { tarball: string; entryCount: number; size: number; unpackedSize: number }

/** `npm pack` of this checkout into `destDir` (sources copied there first, removed after). */
export async function packAgentloom(destDir: string): Promise<Packed> {
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

/** Point `projectDir` at `tarball` and install it and the project's dependencies offline. Returns the number of packages locked. */
export async function installOffline(projectDir: string, tarball: string): Promise<number> {
  const locked = writeOfflineLock(path.join(ROOT, 'package-lock.json'), projectDir, tarball);
  await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: projectDir, env: userEnv(), maxBuffer: 64 << 20 });
  return locked;
}
