/**
 * The workflow bundles a worker runs. One workflow code, two builds: the plain bundle
 * (Temporal's default failure converter) and the sealed bundle, built with the encoding failure
 * converter (src/codec/failure-converter.ts), so that a failure a workflow raises itself keeps its
 * message and stack in `encodedAttributes`, a payload the encrypting worker's codec then encrypts
 * outside the sandbox. A worker with a codec key runs the sealed one, a worker without keeps plain
 * failures. The sealed bundle sits beside the plain one (`workflow-bundle.js` →
 * `workflow-bundle-sealed.js`); `npm run build:bundle` writes both.
 */
import * as fs from 'fs';
import * as path from 'path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { FAILURE_CONVERTER_PATH } from '../codec/data-converter';
import { SEALED_FAILURES_MARK } from '../codec/failure-converter';

/** Where the sealed build of the bundle at `plain` lives: the same name with `-sealed` before `.js`. */
export function sealedBundlePath(plain: string): string {
  return plain.endsWith('.js') ? `${plain.slice(0, -3)}-sealed.js` : `${plain}-sealed`;
}

/** Whether the bundle file at `file` was built with the encoding failure converter. */
export function isSealedBundle(file: string): boolean {
  return fs.readFileSync(file, 'utf8').includes(SEALED_FAILURES_MARK);
}

export interface BundleOptions {
  workflowsPath: string;
  /** Build with the encoding failure converter (the sealed bundle). */
  sealed: boolean;
  workflowInterceptorModules?: string[];
  logger?: Parameters<typeof bundleWorkflowCode>[0]['logger'];
}

/** Bundle the workflows at `workflowsPath`, sealed or plain; returns the code. */
export async function bundleLoomWorkflows(opts: BundleOptions): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: opts.workflowsPath,
    ...(opts.workflowInterceptorModules ? { workflowInterceptorModules: opts.workflowInterceptorModules } : {}),
    ...(opts.sealed ? { failureConverterPath: FAILURE_CONVERTER_PATH } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  if (opts.sealed !== code.includes(SEALED_FAILURES_MARK)) {
    throw new Error(`the ${opts.sealed ? 'sealed' : 'plain'} workflow bundle of ${opts.workflowsPath} ${opts.sealed ? 'lacks' : 'holds'} the encoding failure converter`);
  }
  return code;
}

/** Write `code` to `file` atomically (a reader never sees half a bundle). */
export function writeBundle(file: string, code: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, code);
  fs.renameSync(tmp, file);
}
