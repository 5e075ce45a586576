/**
 * Prebuild the workflow bundles for production workers: no webpack at start. dist/workflow-bundle.js
 * (plain failures, for workers without a codec key) and dist/workflow-bundle-sealed.js (workflow
 * failures encoded, for encrypting workers; src/plugin/bundle.ts, decision 281).
 */
import * as path from 'path';
import { TRACING_WORKFLOW_MODULE } from '../src/telemetry/tracing';
import { bundleLoomWorkflows, sealedBundlePath, writeBundle } from '../src/plugin/bundle';

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..');
  const workflowsPath = process.env.LOOM_WORKFLOWS_PATH ?? path.join(root, 'src', 'workflows', 'index.ts');
  const plain = path.join(root, 'dist', 'workflow-bundle.js');
  for (const [out, sealed] of [[plain, false], [sealedBundlePath(plain), true]] as const) {
    // The tracing interceptor reports a run's end to the worker's agent.run sink (src/telemetry).
    const code = await bundleLoomWorkflows({ workflowsPath, sealed, workflowInterceptorModules: [TRACING_WORKFLOW_MODULE] });
    writeBundle(out, code);
    process.stdout.write(`wrote ${out} (${(code.length / 1024).toFixed(0)} KiB)\n`);
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
