/**
 * `loom run --stream` as an operator runs it (`node bin/loom.js`, the dev server, a worker in this
 * process): the model's text is printed while the reply is still streaming — the local
 * OpenAI-compatible server holds the end of the first reply until the CLI's stdout shows its text —
 * and the answer, streamed, is not printed again. `--no-stream` prints only the output. The text comes from the store record
 * (src/activities/stream-text.ts), never from workflow history.
 */
import * as fs from 'fs';
import * as path from 'path';
import { CliHarness, EXAMPLES, json, startCliHarness, startedId, useBuiltCli } from '../cli/harness';
import { FakeOpenAIServer, reply, startFakeOpenAI } from '../helpers/openai-server';
import { historyEvents } from '../helpers/history';
import { eventually } from '../helpers/wait';

jest.setTimeout(180000);

let h: CliHarness;
let srv: FakeOpenAIServer;
let registry: string;

// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => {
  h = await startCliHarness('stream');
  srv = await startFakeOpenAI();
  // the execution-loop example with its model pointed at the local server
  registry = path.join(h.home, 'registry');
  fs.cpSync(path.join(EXAMPLES, 'execution-loop'), registry, { recursive: true });
  fs.writeFileSync(
    path.join(registry, 'models', 'order-model.model.md'),
    ['---', 'model_id: order-model', 'version: 1.0.0', 'status: active', 'provider: openai', 'openai:', `  base_url: ${srv.baseUrl}`, '  model: gpt-fake-stream', '  request_timeout_seconds: 30', 'supports_tools: true', '---', '', 'The local OpenAI-compatible test server.', ''].join('\n'),
  );
});
afterAll(async () => {
  await srv?.close();
  await h?.close();
});

const TEXT = 'Pricing your order now, one moment please.';
const ANSWER = '{"item": "chairs", "done": true}';

test('loom run --stream prints the text while the reply streams, then the output; history holds no text deltas', async () => {
  let p: ReturnType<CliHarness['spawnLoom']> | undefined;
  let shownBeforeEnd = false;
  srv.enqueue(
    {
      kind: 'reply',
      content: TEXT,
      tool_calls: [{ id: 'price', name: 'calculator', arguments: { expression: '4 * 30', _outputPath: '$.state.price' } }],
      stream: {
        chunk_chars: 6,
        hold_end: async () => {
          shownBeforeEnd = await eventually(() => (p?.out() ?? '').includes(TEXT), 90000);
        },
      },
    },
    { kind: 'reply', content: ANSWER, stream: { chunk_chars: 4 } },
  );
  p = h.spawnLoom(['run', 'order-planner', '--registry', registry, '--stream']);
  const id = await startedId(p);
  const res = await p.done;
  expect(res.code).toBe(0);
  expect(shownBeforeEnd).toBe(true);
  // the streamed text of each turn on its own line; the answer streamed last is the output: not printed again
  expect(res.out).toBe(`${TEXT}\n${ANSWER}\n`);
  const events = await historyEvents(h.handle(id));
  const signals = events.filter((e) => e.workflowExecutionSignaledEventAttributes).map((e) => e.workflowExecutionSignaledEventAttributes!.signalName);
  // the only signal is the streamed call; the text reached the CLI through the store
  expect(signals).toEqual(['callStreamed']);
});

test('loom run --no-stream prints only the output; both flags together are a usage error', async () => {
  srv.enqueue(reply('Thinking.'), reply(ANSWER));
  // 'Thinking.' does not fit the output schema: one correction turn, then the answer
  const res = await h.loom(['run', 'order-planner', '--registry', registry, '--no-stream']);
  expect(res.code).toBe(0);
  expect(json(res)).toEqual({ item: 'chairs', done: true });
  const both = await h.loom(['run', 'order-planner', '--registry', registry, '--stream', '--no-stream']);
  expect(both.code).toBe(2);
  expect(both.err).toMatch(/give --stream or --no-stream, not both/);
});
