/**
 * The setup the AgentloomClient test files share: a folder store and LOOM_HOME of the file's own,
 * the suite's prebuilt workflow bundle, the production worker on the file's own task queue, and an
 * AgentloomClient on `registry`. After the file, the runs it left open are terminated (a run left
 * open would show in every `loom inbox` of the suite, which queries all open roots of the
 * namespace) and the worker and connection stop.
 *
 *   const h = useClientHarness('client', DEMO);   // registers beforeAll/afterAll
 *   beforeAll(() => ({ t, loom, home } = h));      // after the harness's own beforeAll
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Worker } from '@temporalio/worker';
import { connectTestTemporal, TestTemporal, workflowBundlePath } from '../helpers/temporal';
import { createAgentloomWorker } from '../../src/worker/create-worker';
import { AgentloomClient } from '../../src/client/agentloom-client';

export interface ClientHarness {
  t: TestTemporal;
  loom: AgentloomClient;
  home: string;
}

export function useClientHarness(name: string, registry: string): ClientHarness {
  const h = {} as ClientHarness;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  beforeAll(async () => {
    h.home = fs.mkdtempSync(path.join(os.tmpdir(), `loom-${name}-`));
    process.env.LOOM_STORE_DIR = path.join(h.home, 'store');
    process.env.LOOM_HOME = h.home;
    process.env.LOOM_WORKFLOW_BUNDLE = workflowBundlePath();
    h.t = await connectTestTemporal(name);
    worker = await createAgentloomWorker({ connection: h.t.nativeConnection, taskQueue: h.t.taskQueue });
    running = worker.run();
    h.loom = new AgentloomClient({ client: h.t.client, registry, taskQueue: h.t.taskQueue, by: 'app-test' });
  });
  afterAll(async () => {
    if (h.t) {
      for await (const wf of h.t.client.workflow.list({ query: `TaskQueue = '${h.t.taskQueue}' AND ExecutionStatus = 'Running'` })) {
        await h.t.client.workflow.getHandle(wf.workflowId).terminate(`${name} test file done`).catch(() => undefined);
      }
    }
    worker?.shutdown();
    await running;
    await h.t?.close();
    if (h.home) fs.rmSync(h.home, { recursive: true, force: true });
  });
  return h;
}

/**
 * The execution-loop example copied to `dir`, its model pointed at a local OpenAI-compatible test
 * server (`baseUrl`) that streams: the registry of the files' streaming tests.
 */
export function streamingRegistry(dir: string, baseUrl: string): string {
  fs.cpSync(path.resolve(__dirname, '..', '..', 'examples', 'execution-loop'), dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'models', 'order-model.model.md'),
    ['---', 'model_id: order-model', 'version: 1.0.0', 'status: active', 'provider: openai', 'openai:', `  base_url: ${baseUrl}`, '  model: gpt-fake-stream', '  request_timeout_seconds: 30', 'supports_tools: true', '---', '', 'The local OpenAI-compatible test server.', ''].join('\n'),
  );
  return dir;
}
