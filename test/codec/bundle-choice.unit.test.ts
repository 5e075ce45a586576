/**
 * Which workflow bundle a worker runs (src/worker/create-worker.ts workflowSource, decision 281): a
 * worker without a key the plain bundle; an encrypting worker the sealed build beside it, or a
 * LOOM_WORKFLOW_BUNDLE that is itself sealed; a plain bundle alone makes it bundle from source (said
 * on stderr); a `-sealed` file that is not sealed is refused. Real files in a temp folder.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { workflowSource } from '../../src/worker/create-worker';
import { isSealedBundle, sealedBundlePath } from '../../src/plugin/bundle';
import { SEALED_FAILURES_MARK } from '../../src/codec/failure-converter';
import { PROJECT_ROOT } from '../../src/platform/temporal-dev-server';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-choice-'));
const SAVED = ['LOOM_WORKFLOW_BUNDLE', 'LOOM_WORKFLOWS_PATH'].map((k) => [k, process.env[k]] as const);
afterAll(() => {
  for (const [k, v] of SAVED) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});
beforeEach(() => delete process.env.LOOM_WORKFLOWS_PATH);

const fromSource = { workflowsPath: path.join(PROJECT_ROOT, 'src', 'workflows', 'index.ts') };

function choose(sealed: boolean): { source: unknown; said: string[] } {
  const said: string[] = [];
  return { source: workflowSource(sealed, (l) => said.push(l)), said };
}

test('sealedBundlePath puts -sealed before .js', () => {
  expect(sealedBundlePath('/app/dist/workflow-bundle.js')).toBe('/app/dist/workflow-bundle-sealed.js');
  expect(sealedBundlePath('/x/bundle')).toBe('/x/bundle-sealed');
});

test('plain and sealed bundles side by side: each worker gets its own', () => {
  const plain = path.join(dir, 'both.js');
  fs.writeFileSync(plain, 'plain bundle');
  fs.writeFileSync(sealedBundlePath(plain), `bundle with ${SEALED_FAILURES_MARK}`);
  process.env.LOOM_WORKFLOW_BUNDLE = plain;
  expect([isSealedBundle(plain), isSealedBundle(sealedBundlePath(plain))]).toEqual([false, true]);
  expect(choose(false)).toEqual({ source: { workflowBundle: { codePath: plain } }, said: [] });
  expect(choose(true)).toEqual({ source: { workflowBundle: { codePath: sealedBundlePath(plain) } }, said: [] });
});

test('LOOM_WORKFLOW_BUNDLE naming a sealed bundle serves an encrypting worker', () => {
  const only = path.join(dir, 'only-sealed.js');
  fs.writeFileSync(only, `bundle with ${SEALED_FAILURES_MARK}`);
  process.env.LOOM_WORKFLOW_BUNDLE = only;
  expect(choose(true)).toEqual({ source: { workflowBundle: { codePath: only } }, said: [] });
});

test('an encrypting worker with only a plain bundle bundles from source and says so', () => {
  const plain = path.join(dir, 'plain-only.js');
  fs.writeFileSync(plain, 'plain bundle');
  process.env.LOOM_WORKFLOW_BUNDLE = plain;
  const { source, said } = choose(true);
  expect(source).toEqual(fromSource);
  expect(said).toEqual([expect.stringContaining(`${sealedBundlePath(plain)} is missing, so workflows are bundled from source to encrypt the failures they raise`)]);
  expect(choose(false)).toEqual({ source: { workflowBundle: { codePath: plain } }, said: [] });
});

test('a -sealed file built without the encoding converter is refused', () => {
  const plain = path.join(dir, 'stale.js');
  fs.writeFileSync(plain, 'plain bundle');
  fs.writeFileSync(sealedBundlePath(plain), 'also plain');
  process.env.LOOM_WORKFLOW_BUNDLE = plain;
  expect(() => workflowSource(true)).toThrow(`${sealedBundlePath(plain)} was not built with the encoding failure converter: rebuild it with \`npm run build:bundle\``);
});

test('no bundle at all, or LOOM_WORKFLOWS_PATH: bundled from source by the worker (with its failure converter)', () => {
  process.env.LOOM_WORKFLOW_BUNDLE = path.join(dir, 'absent.js');
  expect(choose(true)).toEqual({ source: fromSource, said: [] });
  process.env.LOOM_WORKFLOWS_PATH = 'vendor/workflows.ts';
  expect(choose(true)).toEqual({ source: { workflowsPath: path.resolve('vendor/workflows.ts') }, said: [] });
});
