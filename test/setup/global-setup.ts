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

export default async function globalSetup(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-test-'));
  process.env.LOOM_TEST_DIR = dir;
  if (!process.env.LOOM_TEST_TEMPORAL_ADDRESS) {
    const server = await startDevServer({
      dbFile: path.join(dir, 'temporal.sqlite'),
      headless: true,
      fastSqlite: true,
      logFile: path.join(dir, 'temporal.log'),
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
