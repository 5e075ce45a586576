/** Prebuild the workflow bundle for production workers (dist/workflow-bundle.js): no webpack at start. */
import * as fs from 'fs';
import * as path from 'path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { TRACING_WORKFLOW_MODULE } from '../src/telemetry/tracing';

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..');
  const workflowsPath = process.env.LOOM_WORKFLOWS_PATH ?? path.join(root, 'src', 'workflows', 'index.ts');
  // The tracing interceptor reports a run's end to the worker's agent.run sink (src/telemetry).
  const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules: [TRACING_WORKFLOW_MODULE] });
  const out = path.join(root, 'dist', 'workflow-bundle.js');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, code);
  process.stdout.write(`wrote ${out} (${(code.length / 1024).toFixed(0)} KiB)\n`);
}

main().catch((err) => { console.error(err); process.exit(1); });
