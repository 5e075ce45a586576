/**
 * Versions of Agentloom's workflow code for the cross-version determinism guard: the working tree
 * ("current") or any commit of this repository, materialised with `git archive` into a temp folder
 * that borrows this checkout's node_modules. For each version we can bundle its workflows and run
 * a worker with ITS activities, so runs recorded on an old version are what a real deploy leaves
 * in flight.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { bundleWorkflowCode, NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import { NO_TELEMETRY_SINKS } from '../helpers/temporal';

export const ROOT = path.resolve(__dirname, '..', '..');

export interface CodeVersion {
  /** `current` (the working tree) or the short commit hash. */
  label: string;
  /** Full commit hash, or undefined for the working tree. */
  commit?: string;
  /** Folder holding src/ of this version. */
  dir: string;
  /** The bundled workflow code (a file path). */
  bundlePath: string;
  /** Remove the temp folder (no-op for the working tree). */
  dispose(): void;
}

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Resolve a revision to a full commit hash, with an error that says what to do when it is missing. */
export function resolveCommit(rev: string): string {
  try {
    return git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  } catch {
    const shallow = fs.existsSync(path.join(ROOT, '.git', 'shallow'));
    throw new Error(
      `revision '${rev}' is not in this clone${shallow ? ' (a shallow clone: fetch the full history with `git fetch --unshallow`)' : ''}; ` +
        'set LOOM_COMPAT_BASE to a commit of this repository or fix test/compat/landed-version',
    );
  }
}

/** Does the source of `commit` contain `needle` anywhere under src/? (`git grep` at that commit.) */
export function sourceContains(commit: string, needle: string): boolean {
  try {
    git(['grep', '-q', '-F', needle, commit, '--', 'src']);
    return true;
  } catch {
    return false;
  }
}

const quiet = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: console.error, log: () => undefined };

async function bundle(dir: string, out: string): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath: path.join(dir, 'src', 'workflows', 'index.ts'), logger: quiet as never });
  fs.writeFileSync(out, code);
  return out;
}

/** The working tree's workflows, bundled once into `tmpDir` (or the suite's prebuilt bundle). */
export async function currentVersion(tmpDir: string): Promise<CodeVersion> {
  const prebuilt = process.env.LOOM_TEST_WORKFLOW_BUNDLE;
  const bundlePath = prebuilt && fs.existsSync(prebuilt) ? prebuilt : await bundle(ROOT, path.join(tmpDir, 'current-bundle.js'));
  return { label: 'current', dir: ROOT, bundlePath, dispose: () => undefined };
}

/** A commit's src/ (and the files its worker needs) in a temp folder, its workflows bundled. */
export async function commitVersion(rev: string, tmpDir: string): Promise<CodeVersion> {
  const commit = resolveCommit(rev);
  const label = commit.slice(0, 7);
  const dir = fs.mkdtempSync(path.join(tmpDir, `v-${label}-`));
  const tar = execFileSync('git', ['archive', '--format=tar', commit, 'src', 'package.json', 'tsconfig.json'], { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  // The old code resolves its packages from this checkout (same lock within a release line).
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const bundlePath = await bundle(dir, path.join(dir, 'workflow-bundle.js'));
  return { label, commit, dir, bundlePath, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A worker running `version`'s workflows AND activities on `taskQueue`. */
export async function workerFor(version: CodeVersion, connection: NativeConnection, taskQueue: string): Promise<Worker> {
  // ts-node (the runner's loader) transpiles the version's TypeScript activities on require.
  const mod = require(path.join(version.dir, 'src', 'activities', 'index.ts')) as { createActivities(): Record<string, (...a: unknown[]) => unknown> };
  return Worker.create({
    connection,
    namespace: 'default',
    taskQueue,
    workflowBundle: { codePath: version.bundlePath },
    activities: mod.createActivities(),
    // Finish quickly on shutdown: the next version's worker takes over the same queue.
    shutdownGraceTime: '1s',
    // The telemetry sinks newer workflow code calls (src/shared/tracing-sinks.ts), as no-ops.
    sinks: NO_TELEMETRY_SINKS,
    // A version whose activity presets retry without limit ends retrying with its outage interceptor.
    ...outagesOf(version),
  });
}

function outagesOf(version: CodeVersion): Partial<WorkerOptions> {
  const file = path.join(version.dir, 'src', 'activities', 'outages.ts');
  if (!fs.existsSync(file)) return {};
  const mod = require(file) as { outageInterceptor(): NonNullable<NonNullable<WorkerOptions['interceptors']>['activity']>[number] };
  return { interceptors: { activity: [mod.outageInterceptor()] } };
}

/** A temp folder for one compat run. */
export function compatTmpDir(): string {
  return fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'loom-compat-'));
}
