/**
 * The execution loop's wire form through the real `openai` provider path: the local
 * OpenAI-compatible server (test/helpers/openai-server.ts) sees the reserved keys declared in the
 * tool schemas and explained in the instructions, and answers with calls that use them; the tools
 * (one with `additionalProperties: false`) never see them, and the results land in State.
 */
import { randomBytes } from 'crypto';
import type { AgentRunResult } from '../../src/shared/contract';
import { agfReactWorkflow } from '../../src/workflows/react';
import { FakeOpenAIServer, reply, startFakeOpenAI, toolCalls } from '../helpers/openai-server';
import type { TestTemporal } from '../helpers/temporal';
import { Harness, startHarness } from './harness';
import { historyEvents } from '../helpers/history';
import { storeTestBundle, testStore } from './builders';
import { builtin, compileAgent, model } from '../helpers/definitions';

jest.setTimeout(120000);

const KEY_ENV = `LOOM_TEST_OPENAI_KEY_${randomBytes(3).toString('hex').toUpperCase()}`;
let t: TestTemporal;
let h: Harness;
let srv: FakeOpenAIServer;

beforeAll(async () => {
  process.env[KEY_ENV] = `sk-test-${randomBytes(12).toString('hex')}`;
  h = await startHarness('exec-loop-openai');
  t = h.t;
  srv = await startFakeOpenAI();
});
afterAll(async () => {
  await srv.close();
  await h?.close();
  delete process.env[KEY_ENV];
});

test('a model sends _dependsOn/_outputPath as plain JSON arguments; the loop honours them and the tools never see them', async () => {
  srv.enqueue(
    toolCalls([
      { id: 'sum', name: 'arithmetic', arguments: { a: 6, b: 7, op: 'mul', _outputPath: '$.state.product' } },
      { id: 'say', name: 'echo', arguments: JSON.stringify({ text: 'product ready', _dependsOn: ['$.state.product'] }) },
    ]),
    reply('the product is 42'),
  );
  const { bundle: compiled } = compileAgent({
    agent_id: 'loop-openai',
    model: model('oa-test', 'openai', { openai: { base_url: srv.baseUrl, model: 'gpt-fake-1', api_key_env: KEY_ENV, request_timeout_seconds: 10 }, supports_tools: true }),
    tools: [builtin('arithmetic'), builtin('echo')],
    front: { runtime: { execution_loop: 'dependencies' } },
  });
  const bundle = await storeTestBundle(compiled);
  const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: `loop-openai-${randomBytes(4).toString('hex')}`, args: [{ bundle, agent_id: 'loop-openai', input: 'what is 6 times 7?' }] });
  const res = (await h.result()) as AgentRunResult;
  expect(res.output).toBe('the product is 42');
  expect(res.state).toEqual({ product: 42 });

  const first = srv.requests[0].body;
  const arith = first.tools!.find((x) => x.function.name === 'arithmetic')!.function.parameters as { properties: Record<string, unknown>; additionalProperties: boolean };
  expect(Object.keys(arith.properties)).toEqual(['a', 'b', 'op', '_dependsOn', '_outputPath']);
  expect(arith.additionalProperties).toBe(false);
  expect(first.messages!.find((m) => m.role === 'system')?.content).toMatch(/# Tool call dependencies[\s\S]*_dependsOn[\s\S]*_outputPath/);
  // the second request carries both results, in reply order
  const tools = srv.requests[1].body.messages!.filter((m) => m.role === 'tool');
  expect(tools.map((m) => [m.tool_call_id, m.content])).toEqual([
    ['sum', '42'],
    ['say', 'product ready'],
  ]);
  const decode = (p: { data?: Uint8Array | null } | undefined) => JSON.parse(Buffer.from(p?.data ?? []).toString('utf8'));
  const runs = (await historyEvents(h)).map((e) => e.activityTaskScheduledEventAttributes).filter((s) => s?.activityType?.name === 'runTool').map((s) => decode(s!.input?.payloads?.[0]));
  expect(runs.map((r) => [r.call_id, r.args])).toEqual([
    ['sum', { a: 6, b: 7, op: 'mul' }],
    ['say', { text: 'product ready' }],
  ]);
});
