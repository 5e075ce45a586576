/**
 * Tools written in code (src/plugin/define-tool.ts): `defineTool` with a zod v4 input, declared in
 * a registry by `toolFile` (the compiled bundle pins its JSON Schema), run by the worker's
 * AgentloomPlugin `tools` when a scripted model calls it. The zod schema parses the arguments at
 * run time: its default reaches `execute`, and a refinement JSON Schema cannot say fails the call
 * with the model seeing the error as the tool's result.
 */
import { Worker } from '@temporalio/worker';
import { z } from 'zod/v4';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { connectTestTemporal, TestTemporal, workflowBundlePath } from '../helpers/temporal';
import { AgentloomPlugin } from '../../src/plugin/agentloom-plugin';
import { defineTool, toolFile } from '../../src/plugin/define-tool';
import { prepareRun, startPrepared } from '../../src/operator/runs';

const calls: { order_id: string; qty: number; callId: string }[] = [];
const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Look up an order by its id and say where it is.',
  input: z.object({
    order_id: z.string().regex(/^A-\d+$/).describe('The order id, e.g. A-42.'),
    qty: z.number().int().min(1).default(1),
  }).refine((v) => v.order_id !== 'A-0', { message: 'order A-0 is archived', path: ['order_id'] }),
  execute: ({ order_id, qty }, ctx) => {
    calls.push({ order_id, qty, callId: ctx.callId });
    return { order_id, qty, status: 'shipped' };
  },
});

function registry(dir: string): void {
  const write = (rel: string, text: string) => { fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true }); fs.writeFileSync(path.join(dir, rel), text); };
  write('tools/lookup_order.tool.md', toolFile(lookupOrder));
  write('models/orders-model.model.md', `---
model_id: orders-model
version: 1.0.0
status: active
provider: scripted
scripted:
  turns:
    - tool_calls:
        - name: lookup_order
          arguments: { order_id: '{{input.order}}' }
    - content: 'tool said: {{last_tool_result}}'
---
`);
  write('agents/order-desk.agent.md', `---
spec_version: '1.0'
agent_id: order-desk
version: 1.0.0
status: active
meta: { name: Order desk, description: Answers where an order is., owner: tests }
runtime: { model: orders-model, temperature: 0, timeout_seconds: 120, max_turns: 4, max_tool_calls: 2 }
interface:
  input:
    schema: { type: object, properties: { order: { type: string } }, required: [order] }
  output:
    schema: { type: string }
artifacts: { enabled: false }
tools:
  tool_choice: auto
  refs:
    - ref: lookup_order
---

# Purpose
Say where an order is.

# System behavior
Look the order up with lookup_order and say what it said.

# Rules
- Only report what the tool said.
`);
}

const saved = ['LOOM_STORE_DIR', 'LOOM_TASK_QUEUE', 'LOOM_WORKFLOW_BUNDLE', 'LOOM_WORKFLOWS_PATH'].map((k) => [k, process.env[k]] as const);
let t: TestTemporal;
let home: string;
beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-define-tool-'));
  registry(path.join(home, 'registry'));
  t = await connectTestTemporal('library-tools');
  process.env.LOOM_STORE_DIR = path.join(home, 'store');
  process.env.LOOM_TASK_QUEUE = t.taskQueue;
  process.env.LOOM_WORKFLOW_BUNDLE = workflowBundlePath();
  delete process.env.LOOM_WORKFLOWS_PATH;
});
afterAll(async () => {
  await t?.close();
  for (const [k, v] of saved) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  fs.rmSync(home, { recursive: true, force: true });
});

test('toolFile declares the zod input as JSON Schema (defaults optional); a bad definition is refused', () => {
  expect(lookupOrder.inputSchema).toMatchObject({ type: 'object', required: ['order_id'], properties: { order_id: { type: 'string', pattern: '^A-\\d+$' }, qty: { type: 'integer', default: 1 } } });
  expect(() => defineTool({ name: 'x', description: 'd', input: { type: 'string' }, execute: () => 1 })).toThrow(/input must be a JSON Schema with type: object/);
  expect(() => defineTool({ name: '9bad', description: 'd', input: { type: 'object' }, execute: () => 1 })).toThrow(/name must be/);
  expect(() => defineTool({ name: 'v3', description: 'd', input: require('zod').z.object({}), execute: () => 1 })).toThrow(/zod v3 schema cannot be converted/);
});

test('a scripted model calls the code-defined tool through the plugin: the zod default reaches execute; a refinement failure is the tool\'s error result', async () => {
  const worker = await Worker.create({ connection: t.nativeConnection, namespace: 'default', taskQueue: t.taskQueue, plugins: [new AgentloomPlugin({ tools: [lookupOrder] })] });
  const outputs = await worker.runUntil(async () => {
    const run = async (order: string) => (await startPrepared(t.client, await prepareRun('order-desk', path.join(home, 'registry'), JSON.stringify({ order })))).result();
    return Promise.all([run('A-42'), run('A-0')]);
  });
  expect(calls).toEqual([{ order_id: 'A-42', qty: 1, callId: expect.any(String) }]);
  const [ok, refused] = outputs.map((o) => JSON.stringify(o));
  expect(ok).toContain('shipped');
  expect(refused).toContain('order A-0 is archived');
  expect(refused).not.toContain('shipped');
});
