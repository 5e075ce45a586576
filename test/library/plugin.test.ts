/**
 * AgentloomPlugin in a user's own worker (src/plugin/agentloom-plugin.ts): one `Worker.create` with
 * the user's workflowsPath, the user's activity and the plugin runs the user's workflow and an
 * Agentloom agent on one task queue; the plugin on the user's Client sets the same data converter
 * (a test codec whose encoding shows in the history: without it on both sides nothing decodes).
 */
import { Client } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { connectTestTemporal, TestTemporal } from '../helpers/temporal';
import { AgentloomPlugin } from '../../src/plugin/agentloom-plugin';
import { prepareRun, startPrepared } from '../../src/operator/runs';

const ENCODING = 'binary/agentloom-library-test';

/** Reverses the bytes and keeps the original metadata inside: a codec whose work is visible and reversible. */
class ReversingCodec implements PayloadCodec {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => ({
      metadata: { encoding: Buffer.from(ENCODING), inner: Buffer.from(JSON.stringify(Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])))) },
      data: Buffer.from(p.data ?? new Uint8Array()).reverse(),
    }));
  }
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      if (Buffer.from(p.metadata?.encoding ?? []).toString() !== ENCODING) return p;
      const inner = JSON.parse(Buffer.from(p.metadata!.inner!).toString()) as Record<string, string>;
      return { metadata: Object.fromEntries(Object.entries(inner).map(([k, v]) => [k, Buffer.from(v, 'base64')])), data: Buffer.from(p.data ?? new Uint8Array()).reverse() };
    });
  }
}

const saved = ['LOOM_STORE_DIR', 'LOOM_TASK_QUEUE', 'LOOM_WORKFLOW_BUNDLE', 'LOOM_WORKFLOWS_PATH'].map((k) => [k, process.env[k]] as const);
let t: TestTemporal;
let home: string;
beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-plugin-'));
  t = await connectTestTemporal('library-plugin');
  process.env.LOOM_STORE_DIR = path.join(home, 'store');
  process.env.LOOM_TASK_QUEUE = t.taskQueue;
});
afterAll(async () => {
  await t?.close();
  for (const [k, v] of saved) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  fs.rmSync(home, { recursive: true, force: true });
});

test('a user\'s worker with its own workflow and activity plus the plugin runs both on one task queue; the plugin sets the codec on worker and client', async () => {
  const plugin = new AgentloomPlugin({ codec: new ReversingCodec() });
  const worker = await Worker.create({
    connection: t.nativeConnection,
    namespace: 'default',
    taskQueue: t.taskQueue,
    workflowsPath: require.resolve('./user-workflows'),
    activities: { shout: async (text: string) => text.toUpperCase() },
    plugins: [plugin],
  });
  // The user's activity is kept beside Agentloom's.
  const client = new Client({ connection: t.connection, namespace: 'default', plugins: [plugin] });
  await worker.runUntil(async () => {
    const greet = await client.workflow.start('greetWorkflow', { taskQueue: t.taskQueue, workflowId: `greet-${t.taskQueue}`, args: ['Ada'] });
    const prepared = await prepareRun('pipeline', path.join(__dirname, '..', '..', 'examples', 'orchestrators', 'sequential'), undefined);
    const agent = await startPrepared(client, prepared);
    expect(await greet.result()).toBe('HELLO ADA');
    const output = await agent.result();
    expect(output).toBeTruthy();
    // Both runs' inputs went through the plugin's codec (the client's), and the worker read them.
    for (const h of [greet, agent]) {
      const history = await h.fetchHistory();
      const input = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
      expect(Buffer.from(input.metadata!.encoding!).toString()).toBe(ENCODING);
      expect(history.events!.some((e) => e.workflowExecutionCompletedEventAttributes)).toBe(true);
    }
  });
});
