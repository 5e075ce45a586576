/**
 * Starts ONE real Temporal dev server (the project-local Temporal CLI, fast SQLite pragmas, and the
 * dynamic config every dev server of the project gets, DEV_SERVER_TUNING) for
 * the whole Jest run, and bundles the workflow code once. Test files read both from env:
 * LOOM_TEST_TEMPORAL_ADDRESS and LOOM_TEST_WORKFLOW_BUNDLE. Never a mock of Temporal.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { startDevServer, PROJECT_ROOT } from '../../src/platform/temporal-dev-server';

/**
 * Dynamic config of the suite's server, over the project's DEV_SERVER_TUNING. A deleted run stays
 * describable until the history service's transfer queue has acknowledged the tasks before its
 * delete task, which it records every `history.transferProcessorUpdateAckInterval` (30 s by
 * default), so each `loom delete` (which returns once the run is gone) waited up to 30 s, 19 s on
 * average here. Temporal's own functional tests of deletion set both intervals to 1 s; so does the suite.
 */
const SUITE_SERVER_CONFIG: Record<string, string> = {
  'history.transferProcessorUpdateAckInterval': '1s',
  'history.visibilityProcessorUpdateAckInterval': '1s',
};

export default async function globalSetup(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-test-'));
  process.env.LOOM_TEST_DIR = dir;
  if (!process.env.LOOM_TEST_TEMPORAL_ADDRESS) {
    const server = await startDevServer({
      dbFile: path.join(dir, 'temporal.sqlite'),
      headless: true,
      fastSqlite: true,
      logFile: path.join(dir, 'temporal.log'),
      dynamicConfig: SUITE_SERVER_CONFIG,
    });
    (globalThis as any).__LOOM_DEV_SERVER__ = server;
    process.env.LOOM_TEST_TEMPORAL_ADDRESS = server.address;
  }
  const entry = path.join(PROJECT_ROOT, 'src', 'workflows', 'index.ts');
  if (fs.existsSync(entry) && !process.env.LOOM_TEST_WORKFLOW_BUNDLE) {
    const { bundleWorkflowCode } = await import('@temporalio/worker');
    const { code } = await bundleWorkflowCode({ workflowsPath: entry, logger: quietLogger() });
    const bundlePath = path.join(dir, 'workflow-bundle.js');
    fs.writeFileSync(bundlePath, code);
    process.env.LOOM_TEST_WORKFLOW_BUNDLE = bundlePath;
  }
}

function quietLogger(): any {
  const noop = () => undefined;
  return { trace: noop, debug: noop, info: noop, warn: console.warn, error: console.error, log: noop };
}
