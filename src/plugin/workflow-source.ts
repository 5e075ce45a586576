/**
 * Which workflow code an Agentloom worker runs when its user names none (an encrypting worker needs the sealed build): a prebuilt
 * bundle when one exists (dist/workflow-bundle.js, built by `npm run build:bundle`, or
 * LOOM_WORKFLOW_BUNDLE), its sealed build for a worker that encrypts, else the workflows bundled
 * from source; LOOM_WORKFLOWS_PATH names a vendor's own workflows module (which re-exports ours and
 * calls registerPolicy). Used by AgentloomPlugin (src/plugin/agentloom-plugin.ts).
 */
import * as fs from 'fs';
import * as path from 'path';
import type { WorkerOptions } from '@temporalio/worker';
import { PROJECT_ROOT } from '../platform/temporal-dev-server';
import { isSealedBundle, sealedBundlePath } from './bundle';
import { staleBuild } from '../platform/stale-build';

/** Agentloom's workflows module: src/workflows/index.ts from source, its .js once built. */
export const AGENTLOOM_WORKFLOWS_PATH = require.resolve('../workflows');

/**
 * The workflow code a worker runs. `sealedFailures` (the worker encrypts): the sealed bundle beside
 * the plain one (src/plugin/bundle.ts), or a LOOM_WORKFLOW_BUNDLE that is itself sealed; a plain
 * bundle without its sealed build is not used (its workflow failures would stay in the clear): the
 * workflows are bundled from source with the encoding failure converter instead, said on stderr.
 */
export function workflowSource(sealedFailures = false, warn: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  // Bundled by the worker, with the data converter's failure converter when it has one.
  if (process.env.LOOM_WORKFLOWS_PATH) return { workflowsPath: path.resolve(process.env.LOOM_WORKFLOWS_PATH) };
  const bundle = process.env.LOOM_WORKFLOW_BUNDLE ?? path.join(PROJECT_ROOT, 'dist', 'workflow-bundle.js');
  const fromSource = { workflowsPath: AGENTLOOM_WORKFLOWS_PATH };
  if (!fs.existsSync(bundle)) return fromSource;
  // The default bundle of a checkout, older than an edit under src/: the edit runs, and we say so.
  if (!process.env.LOOM_WORKFLOW_BUNDLE && fs.existsSync(fromSource.workflowsPath) && staleBuild(PROJECT_ROOT, bundle)) {
    warn(`worker: ${bundle} is older than src/, so workflows are bundled from source (\`npm run build:bundle\` refreshes it)`);
    return fromSource;
  }
  if (!sealedFailures) return { workflowBundle: { codePath: bundle } };
  const sealed = sealedBundlePath(bundle);
  if (fs.existsSync(sealed)) {
    if (!isSealedBundle(sealed)) throw new Error(`${sealed} was not built with the encoding failure converter: rebuild it with \`npm run build:bundle\``);
    return { workflowBundle: { codePath: sealed } };
  }
  if (isSealedBundle(bundle)) return { workflowBundle: { codePath: bundle } };
  if (!fs.existsSync(fromSource.workflowsPath)) {
    throw new Error(`this worker encrypts (a codec key is set) but ${bundle} keeps workflow failures in the clear and ${sealed} is missing: build both with \`npm run build:bundle\``);
  }
  warn(`worker: ${sealed} is missing, so workflows are bundled from source to encrypt the failures they raise (\`npm run build:bundle\` builds it)`);
  return fromSource;
}

