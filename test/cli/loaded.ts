/**
 * What a `loom` process loaded: runs `node -r test/cli/loaded-modules.js bin/loom.js ARGS…` (from
 * source) and names the packages and heavy modules in its require cache, for the tests that hold
 * each command to loading only what it uses (start-loads*.test.ts).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFile } from 'child_process';

const ROOT = path.resolve(__dirname, '..', '..');
const LOOM_BIN = path.join(ROOT, 'bin', 'loom.js');
const PRELOAD = path.join(__dirname, 'loaded-modules.js');

/** A module a fast-starting command must not load unless it uses it, by a name a failure can print. */
export const HEAVY: Record<string, (file: string) => boolean> = {
  'Ajv (the schema compiler)': (f) => /node_modules\/ajv\/dist\/(ajv|core)\.js$/.test(f),
  'yaml (the positioned YAML parser)': (f) => f.includes('/node_modules/yaml/'),
  zod: (f) => f.includes('/node_modules/zod/'),
  'the compiler': (f) => /\/src\/compiler\/(index|compile)\.(ts|js)$/.test(f),
  '@temporalio/client': (f) => f.includes('/node_modules/@temporalio/client/'),
  '@temporalio/workflow': (f) => f.includes('/node_modules/@temporalio/workflow/'),
  '@temporalio/worker (and its bundler)': (f) => f.includes('/node_modules/@temporalio/worker/') || f.includes('/node_modules/webpack/'),
  OpenTelemetry: (f) => f.includes('/node_modules/@opentelemetry/'),
  'the MCP SDK': (f) => f.includes('/node_modules/@modelcontextprotocol/'),
  'the AWS SDK': (f) => f.includes('/node_modules/@aws-sdk/'),
};

export interface Loaded { code: number; out: string; err: string; heavy: string[]; files: string[] }

/**
 * `loom ARGS…` from source (a user's environment plus `env`, without the test runner's OTEL_* or
 * TEMPORAL_* settings); its exit code, output, which HEAVY modules it loaded (sorted names) and every
 * file it loaded. `bin` runs another bin/loom.js instead (a built package's: its build, not the sources).
 */
export async function loomLoads(args: string[], env: NodeJS.ProcessEnv = {}, bin?: string): Promise<Loaded> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-loads-'));
  const file = path.join(dir, 'loaded.json');
  const userEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', LOOM_FROM_SOURCE: bin ? '' : '1', LOOM_HOME: path.join(dir, 'home'), LOOM_TEST_LOADED_FILE: file, LOOM_COMPILE_CACHE_DIR: path.join(dir, 'cache'), ...env };
  try {
    const result = await new Promise<{ code: number; out: string; err: string }>((resolve) => {
      execFile(process.execPath, ['-r', PRELOAD, bin ?? LOOM_BIN, ...args], { cwd: ROOT, env: userEnv, maxBuffer: 64 * 1024 * 1024 }, (error, out, err) => {
        resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, out, err });
      });
    });
    const files = JSON.parse(fs.readFileSync(file, 'utf8')) as string[];
    const norm = files.map((f) => f.split(path.sep).join('/'));
    return { ...result, heavy: Object.keys(HEAVY).filter((name) => norm.some(HEAVY[name])).sort(), files: norm };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
