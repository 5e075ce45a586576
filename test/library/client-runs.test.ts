/**
 * AgentloomClient's followed runs as an application uses them (no CLI): `runDetail` with progress
 * events (an approval awaited, a member's decision in a pipeline, each answered from the event),
 * the streamed text (`onText`), a run continuing a chat session,
 * `chat`/`openChat` (update-with-start, the session id to continue with), and `route`/`dispatch`
 * (the winner fails, its fallback agent answers; no agent matches; none can take the input).
 * Real dev server, a worker on a task queue of its own.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import type { TestTemporal } from '../helpers/temporal';
import { streamingRegistry, useClientHarness } from './client-harness';
import { BODY, baseAgent, tempRegistry } from '../compiler/helpers';
import { agent as compiledAgent, bundle as compiledBundle, locals } from '../orchestration/builders';
import type { CompiledAgent, CompiledTool } from '../../src/compiled/types';
import { FakeOpenAIServer, startFakeOpenAI } from '../helpers/openai-server';
import { until } from '../helpers/wait';
import { UsageError } from '../../src/operator/errors';
import {
  AgentloomClient, DispatchFailedError, NoRouteError, RunFailedError, SessionStartError,
  type DispatchAttempt, type RunProgress,
} from '../../src/client/agentloom-client';

const EXAMPLES = path.resolve(__dirname, '..', '..', 'examples');
const DEMO = path.join(EXAMPLES, 'demo');
const SESSIONS = path.resolve(__dirname, '..', 'sessions', 'registry');

let t: TestTemporal;
let home: string;
let loom: AgentloomClient;
const harness = useClientHarness('client-runs', DEMO);
beforeAll(() => ({ t, loom, home } = harness));

test('runDetail: progress events say the input taken, the start and the approval awaited; approving from the event ends the run', async () => {
  const events: RunProgress[] = [];
  const approvals: Promise<unknown>[] = [];
  const outcome = await loom.runDetail('trip-planner', undefined, {
    onProgress: (e) => {
      events.push(e);
      const call = e.kind === 'status' ? e.status.pending_approvals?.[0] : undefined;
      if (e.kind === 'status' && call && approvals.length === 0) approvals.push(loom.approve(e.workflowId, call.call_id));
    },
  });
  await Promise.all(approvals);
  const id = outcome.workflowId;
  expect(outcome).toMatchObject({ inputFromExample: true, streamedOutput: false, input: { destination: 'Lisbon', nights: 3 } });
  expect(outcome.agent.agent_id).toBe('trip-planner');
  expect(outcome.output).toMatchObject({ destination: 'Lisbon', itinerary_saved: expect.objectContaining({ path: expect.any(String) }) });

  expect(events[0]).toEqual({ kind: 'input', line: `input (first of interface.input.examples): ${JSON.stringify(outcome.input)}`, input: outcome.input });
  expect(events[1]).toEqual({ kind: 'started', line: `started ${id}`, workflowId: id });
  const lines = events.filter((e) => e.kind === 'status').map((e) => e.line);
  expect(lines[0]).toMatch(/^\[\w+\] \S+ step \d+, turn \d+, tool calls \d+, tokens \d+/);
  const asked = lines.findIndex((l) => l.startsWith('  awaiting approval: save-itinerary '));
  expect(asked).toBeGreaterThan(0);
  expect(lines[asked + 1]).toMatch(new RegExp(`^    loom approve ${id} \\S+   \\|   loom reject ${id} \\S+ --reason "…"$`));
});

test('runDetail of a pipeline: a member\'s approval is a status event with the decision line and the commands that answer it from the root', async () => {
  const CHARGE: CompiledTool = {
    tool_id: 'charge', version: '1.0.0', status: 'active', description: 'charge a card', kind: 'builtin',
    input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    approval_required: true, sensitive_fields: [], side_effects: true, builtin: { name: 'echo' },
  };
  const payer: CompiledAgent = {
    ...compiledAgent({ id: 'payer', model: { turns: [{ tool_calls: [{ id: 'pay-1', name: 'charge', arguments: { text: 'payer paid' } }] }, { content: '{{last_tool_result}}' }] } }),
    tools: { tool_choice: 'auto', refs: [CHARGE] },
  };
  const b = compiledBundle('pipeline', [
    compiledAgent({ id: 'pipeline', policy: { id: 'agf.sequential', config: { steps: [{ agent: 'drafter' }, { agent: 'payer' }], output_from: 'payer' } }, local_agents: locals('drafter', 'payer') }),
    compiledAgent({ id: 'drafter' }),
    payer,
  ]);
  const lines: string[] = [];
  const approvals: Promise<unknown>[] = [];
  const outcome = await loom.runDetail({ bundle: b }, 'order 7', {
    onProgress: (e) => {
      if (e.kind !== 'status') return;
      lines.push(e.line);
      // Answered from the root, as the hint under the line says.
      if (e.line.startsWith('  waiting on a decision: ') && !approvals.length) approvals.push(loom.approve(e.workflowId, 'pay-1'));
    },
  });
  await Promise.all(approvals);
  const at = lines.findIndex((l) => l.startsWith('  waiting on a decision: '));
  expect(lines[at]).toMatch(/^  waiting on a decision: \S+ · payer · approval pay-1: charge \{"text":"payer paid"\} · since \S+ · /);
  expect(lines[at + 1]).toMatch(new RegExp(`^    loom approve ${outcome.workflowId} \\S*pay-1   \\|   loom reject ${outcome.workflowId} \\S*pay-1 --reason TEXT$`));
  expect(lines.filter((l) => l.startsWith('  waiting on a decision: '))).toHaveLength(1);
  expect(approvals).toHaveLength(1);
});

describe('runDetail with onText', () => {
  let srv: FakeOpenAIServer;
  let registry: string;
  beforeAll(async () => {
    srv = await startFakeOpenAI();
    registry = streamingRegistry(path.join(home, 'registry-stream'), srv.baseUrl);
  });
  afterAll(async () => srv?.close());

  test('the model\'s text arrives while the run streams, and the outcome says the last text streamed was the output', async () => {
    const TEXT = 'Pricing your order now, one moment please.';
    const ANSWER = '{"item": "chairs", "done": true}';
    let received = '';
    let shownBeforeEnd = false;
    srv.enqueue(
      {
        kind: 'reply',
        content: TEXT,
        tool_calls: [{ id: 'price', name: 'calculator', arguments: { expression: '4 * 30', _outputPath: '$.state.price' } }],
        // The end of the first reply is held until the application has received its text.
        stream: { chunk_chars: 6, hold_end: async () => { shownBeforeEnd = await until(() => (received.includes(TEXT) ? true : undefined), 'the streamed text', 90_000).catch(() => false); } },
      },
      { kind: 'reply', content: ANSWER, stream: { chunk_chars: 4 } },
    );
    const outcome = await loom.runDetail('order-planner', undefined, { registry, onText: (text) => { received += text; } });
    expect(shownBeforeEnd).toBe(true);
    expect(received).toBe(`${TEXT}\n${ANSWER}\n`);
    expect(outcome).toMatchObject({ output: { item: 'chairs', done: true }, streamedOutput: true });
  });
});

test('runDetail with a session: the second run sees the first exchange, and its progress says how much of the session it was given', async () => {
  const said = (events: RunProgress[]) => events.find((e) => e.kind === 'session');
  const first: RunProgress[] = [];
  const a = await loom.runDetail('chat-agent', 'My name is Ada', { registry: SESSIONS, session: 'client-runs-1', onProgress: (e) => first.push(e) });
  expect(a.output).toBe('Nice to meet you');
  expect(said(first)).toMatchObject({ kind: 'session', session: 'client-runs-1', runs: 0, kept: 0, dropped: 0 });
  const second: RunProgress[] = [];
  const b = await loom.runDetail('chat-agent', 'I like tea', { registry: SESSIONS, session: 'client-runs-1', onProgress: (e) => second.push(e) });
  expect(b.output).toBe('Noted: tea');
  expect(said(second)).toEqual({ kind: 'session', line: 'session client-runs-1: 1 earlier run(s), 2 earlier message(s) given to the model', session: 'client-runs-1', runs: 1, kept: 2, dropped: 0 });
});

test('chat answers one message and names the session; chat with it, then openChat joining it, carry the conversation on', async () => {
  const first = await loom.chat('chat-agent', 'My name is Ada', { registry: SESSIONS, idleTimeoutSeconds: 600 });
  expect(first.sessionId).toMatch(/^chat-agent-chat-[0-9a-f]{8}$/);
  expect(first.reply.output).toBe('Nice to meet you');
  const second = await loom.chat('chat-agent', 'I like tea', { registry: SESSIONS, session: first.sessionId });
  expect(second).toMatchObject({ sessionId: first.sessionId, reply: { output: 'Noted: tea' } });
  const joined = await loom.openChat('chat-agent', { registry: SESSIONS, session: first.sessionId });
  expect(joined).toMatchObject({ sessionId: first.sessionId, joined: true, agent: 'chat-agent' });
  expect((await joined.send('What do you know about me?')).output).toBe('You are Ada and you like tea');
  const fresh = await loom.openChat('chat-agent', { registry: SESSIONS, idleTimeoutSeconds: 600 });
  expect(fresh.joined).toBe(false);
  expect(fresh.idleTimeoutSeconds).toBe(600);
  expect((await fresh.send('My name is Bo')).output).toBe('Nice to meet you');
});

test('chat refuses an empty message, a malformed session id and a bad idle timeout', async () => {
  await expect(loom.chat('chat-agent', '   ', { registry: SESSIONS })).rejects.toThrow(UsageError);
  await expect(loom.chat('chat-agent', 'hi', { registry: SESSIONS, session: 'no spaces' })).rejects.toThrow(SessionStartError);
  await expect(loom.openChat('chat-agent', { registry: SESSIONS, idleTimeoutSeconds: 0 })).rejects.toThrow(/idleTimeoutSeconds must be a positive number/);
});

describe('route and dispatch', () => {
  let reg: string;
  const model = (id: string, scripted: Record<string, unknown>) =>
    `---\n${YAML.stringify({ model_id: id, version: '1.0.0', status: 'active', provider: 'scripted', scripted })}---\nScripted model for the dispatch tests.\n`;
  const agent = (id: string, modelId: string, routing: Record<string, unknown>) => {
    const a = baseAgent(id);
    a.runtime = { model: modelId };
    a.tools = { tool_choice: 'none', refs: [] };
    a.interface = {
      input: { schema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] }, examples: [{ question: 'hi' }] },
      output: { schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false } },
    };
    a.routing = routing;
    return `---\n${YAML.stringify(a)}---\n${BODY}`;
  };
  beforeAll(() => {
    reg = tempRegistry();
    for (const f of fs.readdirSync(path.join(reg, 'agents'))) fs.rmSync(path.join(reg, 'agents', f));
    const w = (rel: string, text: string) => fs.writeFileSync(path.join(reg, rel), text);
    w('models/answer-model.model.md', model('answer-model', { turns: [{ content: '{"answer": "answered: {{input.question}}"}' }] }));
    // A provider refusal (HTTP 400): not retryable, so the run fails.
    w('models/refusing-model.model.md', model('refusing-model', { turns: [{ error: { status: 400, message: 'the provider refused the request' } }] }));
    w('agents/billing-agent.agent.md', agent('billing-agent', 'refusing-model', { trigger_phrases: ['charged twice'], priority: 60, fallback_agents: ['general-assistant'] }));
    w('agents/general-assistant.agent.md', agent('general-assistant', 'answer-model', { trigger_phrases: ['help'], priority: 10 }));
  });
  afterAll(() => fs.rmSync(reg, { recursive: true, force: true }));

  test('route ranks the active agents without running anything', async () => {
    const r = await loom.route('I was charged twice', { registry: reg });
    expect(r.winner).toMatchObject({ agent_id: 'billing-agent', tier: 2, priority: 60, fallback_agents: ['general-assistant'] });
    expect(r.ranked.map((x) => x.agent_id)).toEqual(['billing-agent', 'general-assistant']);
    expect(r.activeAgents).toBe(2);
    expect(r.explanation.split('\n')[0]).toMatch(/^ 1\. billing-agent +tier 2 +priority +60/);
  });

  test('the winner fails: its fallback agent answers; the failure is an attempt with its run id', async () => {
    const attempts: DispatchAttempt[] = [];
    const started: string[] = [];
    const r = await loom.dispatch('I was charged twice, help', {
      registry: reg, onAttempt: (a) => attempts.push(a),
      onProgress: (e) => { if (e.kind === 'started') started.push(e.workflowId); },
    });
    expect(r).toMatchObject({ agent: 'general-assistant', winner: 'billing-agent', output: { answer: 'answered: I was charged twice, help' } });
    expect(r.attempts).toEqual(attempts);
    expect(attempts).toEqual([{
      agent: 'billing-agent', outcome: 'failed', workflowId: expect.stringMatching(/^billing-agent-\d{8}-[0-9a-f]{8}$/), reason: expect.stringContaining('refused'),
      next: 'general-assistant', line: expect.stringMatching(/^billing-agent failed \(billing-agent-\S+\): .*; trying fallback agent general-assistant$/),
    }]);
    expect(started).toEqual([attempts[0].workflowId, r.workflowId]);
    // The failed run, read on its own, is a RunFailedError naming it.
    await expect(loom.result(attempts[0].workflowId!)).rejects.toThrow(RunFailedError);
  });

  test('no agent matches: NoRouteError with the ranking; an input no agent takes: DispatchFailedError with each attempt', async () => {
    const none = loom.dispatch('what is the weather', { registry: reg });
    await expect(none).rejects.toThrow(NoRouteError);
    await expect(none).rejects.toThrow(/^no active agent in .* matches "what is the weather" by its routing\.intents or routing\.trigger_phrases$/);
    const err = await loom.dispatch('charged twice', { registry: reg, input: { nope: 1 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DispatchFailedError);
    expect((err as DispatchFailedError).attempts.map((a) => [a.agent, a.outcome, a.next])).toEqual([['billing-agent', 'unavailable', 'general-assistant'], ['general-assistant', 'unavailable', undefined]]);
    expect((err as DispatchFailedError).attempts[1].line).toMatch(/^general-assistant is unavailable: input refused by general-assistant's interface.input.schema:[\s\S]*; no fallback agent left$/);
  });
});
