/**
 * Preferences and instructions reach the provider: a capturing provider (registered as the
 * `scripted` provider of this worker) records each ProviderRequest on the real server.
 */
import type { Worker } from '@temporalio/worker';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { createActivities } from '../../src/activities';
import { scriptedProvider } from '../../src/activities/model';
import type { ProviderRequest } from '../../src/activities/provider';
import { agfReactWorkflow } from '../../src/workflows/react';
import { storeTestBundle, testStore } from './builders';
import { builtin, compileAgent, scripted } from '../helpers/definitions';

let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
const seen: ProviderRequest[] = [];

beforeAll(async () => {
  t = await connectTestTemporal('react-prefs');
  const capture = async (req: ProviderRequest) => {
    seen.push(req);
    return scriptedProvider(req);
  };
  worker = await createTestWorker(t, createActivities({ store: testStore(), providers: { scripted: capture } }));
  running = worker.run();
});
afterAll(async () => {
  worker.shutdown();
  await running;
  await t.close();
});

test('instructions verbatim, user_prompt_template, temperature/top_p/stop/tool_choice/max_output_tokens', async () => {
  const instructions = '# Purpose\nBe exact.\n\n# System behavior\n- Never guess.\n- `code` and *emphasis* stay as written.\n\n# Rules\n- Answer once.';
  const compiled = compileAgent({
    agent_id: 'prefs',
    body: instructions,
    model: scripted({ turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'x' } }] }, { content: 'answer END ignored tail' }] }),
    tools: [builtin('echo')],
    front: {
      interface: { input: { schema: { type: 'object', properties: { name: { type: 'string' }, q: { type: 'string' } } }, examples: [{ name: 'Ada', q: 'hi' }] }, output: { schema: { type: 'string' } } },
      execution_policy: { id: 'agf.react', config: { temperature: 0.3, top_p: 0.8, stop_sequences: ['END'], tool_choice: 'required', max_output_tokens: 64, user_prompt_template: 'Customer {{input.name}} asks: {{input.q}}' } },
    },
  });
  const bundle = await storeTestBundle(compiled.bundle);
  const res = await t.client.workflow.execute(agfReactWorkflow, {
    taskQueue: t.taskQueue,
    workflowId: `prefs-${Date.now()}`,
    args: [{ bundle, agent_id: 'prefs', input: { name: 'Ada', q: 'where is my order?' } }],
  });
  expect(res.output).toBe('answer ');
  expect(seen).toHaveLength(2);
  expect(seen[0].instructions).toBe(instructions);
  expect(seen[0].conversation[0]).toEqual({ role: 'user', content: 'Customer Ada asks: where is my order?' });
  expect(seen[0].prefs).toEqual({ temperature: 0.3, top_p: 0.8, stop_sequences: ['END'], tool_choice: 'required', max_output_tokens: 64 });
  expect(seen[0].tools.map((x) => x.name)).toEqual(['echo']);
  // The second turn sees the whole conversation from the message store, tool result included.
  expect(seen[1].conversation.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  expect(seen[1].conversation[2]).toMatchObject({ content: 'x', name: 'echo' });
});
