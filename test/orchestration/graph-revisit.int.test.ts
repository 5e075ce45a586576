/**
 * Graph node messages on a real Temporal dev server (issue 14): `reset_on_revisit: false` carries
 * the revisited node's own conversation (what the model receives on the second visit, recorded by
 * the local OpenAI-compatible server), `true` starts fresh, and the graph transcript is read by
 * nodes (their first message) and by edge conditions (`transcript`, `transcript_last`).
 */
import { randomBytes } from 'crypto';
import type { CompiledAgent, GraphPattern } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { agent, answers, bundle } from './builders';
import { Harness, startHarness } from './harness';
import { FakeOpenAIServer, reply, startFakeOpenAI } from '../helpers/openai-server';
import { historyEvents } from '../helpers/history';

jest.setTimeout(180_000);

const KEY_ENV = 'GRAPH_REVISIT_TEST_KEY';
let h: Harness;
let srv: FakeOpenAIServer;
beforeAll(async () => {
  process.env[KEY_ENV] = `sk-test-${randomBytes(8).toString('hex')}`;
  srv = await startFakeOpenAI();
  h = await startHarness('graph-revisit');
});
afterAll(async () => { await h?.close(); await srv?.close(); });

/** A drafter answered by the local OpenAI-compatible server (so its requests are recorded). */
function openaiDrafter(id: string): CompiledAgent {
  const a = agent({ id });
  a.runtime.model = { model_id: `oa-${id}`, version: '1.0.0', status: 'active', provider: 'openai', openai: { base_url: srv.baseUrl, model: 'gpt-fake-1', api_key_env: KEY_ENV, request_timeout_seconds: 10 }, supports_tools: true };
  return a;
}

/** $self -> drafter -> reviewer, and back to drafter while the reviewer has not approved. */
const cycle = (root: string, reset: boolean): GraphPattern => ({
  type: 'graph', execution_timeout: 120, node_timeout: 60, reset_on_revisit: reset, max_node_executions: 10,
  nodes: [{ id: 'drafter', agent_ref: `${root}-drafter` }, { id: 'reviewer', agent_ref: `${root}-reviewer` }],
  edges: [{ from: '$self', to: 'drafter' }, { from: 'drafter', to: 'reviewer' }, { from: 'reviewer', to: 'drafter', condition: "not result_contains('approved')" }],
});

const reviewer = (id: string) => agent({ id, model: { rules: [{ when: { last_message_contains: 'DRAFT-2' }, reply: { content: 'approved' } }], turns: [{ content: 'too short, add numbers' }] } });

async function runCycle(root: string, reset: boolean) {
  srv.requests.length = 0;
  srv.enqueue(reply('DRAFT-1 revenue grew'), reply('DRAFT-2 revenue grew 12%'));
  const b = bundle(root, [agent({ id: root, model: answers('plan: write the summary'), pattern: cycle(root, reset) }), openaiDrafter(`${root}-drafter`), reviewer(`${root}-reviewer`)]);
  const wf = await h.start(b, 'summarise Q3');
  const res = (await wf.result()) as AgentRunResult;
  const visits = srv.requests.map((r) => r.body.messages ?? []);
  return { res, visits, wf };
}

test('reset_on_revisit: false — the second visit continues the node conversation (earlier ask and answer, then the new input)', async () => {
  const { res, visits, wf } = await runCycle('revkeep', false);
  expect(res.output).toBe('approved');
  expect(visits).toHaveLength(2);
  const [first, second] = visits;
  const firstUser = first.filter((m) => m.role === 'user');
  expect(firstUser).toHaveLength(1);
  // The second visit starts from the first visit's messages: the same first message, its answer, then the new input.
  const second0 = second.filter((m) => m.role !== 'system');
  expect(second0).toHaveLength(3);
  expect(second0[0]).toMatchObject({ role: 'user', content: firstUser[0].content });
  expect(second0[1]).toMatchObject({ role: 'assistant', content: 'DRAFT-1 revenue grew' });
  expect(second0[2].role).toBe('user');
  expect(second0[2].content).toContain('too short, add numbers');
  // No previous_outputs inline: the conversation carries them.
  expect(second0[2].content).not.toContain('previous_outputs');
  // New runs take the patched path (recorded as markers).
  const patchIds = (await historyEvents(wf))
    .flatMap((e) => e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? [])
    .map((p) => (JSON.parse(Buffer.from(p.data!).toString('utf8')) as { id: string }).id);
  expect(patchIds).toEqual(expect.arrayContaining(['graph-transcript', 'graph-revisit-conversation']));
});

test('reset_on_revisit: true — the second visit starts fresh (one user message, the new input)', async () => {
  const { res, visits } = await runCycle('revreset', true);
  expect(res.output).toBe('approved');
  expect(visits).toHaveLength(2);
  const second = visits[1].filter((m) => m.role !== 'system');
  expect(second).toHaveLength(1);
  expect(second[0].role).toBe('user');
  expect(second[0].content).toContain('too short, add numbers');
});

test('the graph transcript: nodes read it in their first message, conditions read transcript and transcript_last', async () => {
  srv.requests.length = 0;
  srv.enqueue(reply('DRAFT-1 revenue grew'), reply('DRAFT-2 revenue grew 12%'));
  const root = 'transcr';
  const pattern: GraphPattern = {
    ...cycle(root, true),
    nodes: [...cycle(root, true).nodes, { id: 'publisher', agent_ref: `${root}-publisher` }],
    edges: [
      { from: '$self', to: 'drafter' },
      { from: 'drafter', to: 'reviewer' },
      // Back to the drafter only while fewer than 4 entries ($self, drafter, reviewer, drafter) exist.
      { from: 'reviewer', to: 'drafter', condition: 'len(transcript) < 4' },
      { from: 'reviewer', to: 'publisher', condition: "len(transcript) >= 4 and transcript_last.node == 'reviewer' and transcript.1.node == 'drafter'" },
    ],
  };
  const b = bundle(root, [
    agent({ id: root, model: answers('plan: write the summary'), pattern }),
    openaiDrafter(`${root}-drafter`),
    reviewer(`${root}-reviewer`),
    // The publisher's first message holds the transcript: it answers with what it read there.
    agent({ id: `${root}-publisher`, model: { rules: [{ when: { last_message_contains: '[drafter (visit 2)]\nDRAFT-2 revenue grew 12%' }, reply: { content: 'published from transcript' } }], turns: [{ content: 'no transcript seen' }] } }),
  ]);
  const res = (await (await h.start(b, 'summarise Q3')).result()) as AgentRunResult;
  expect(res.output).toBe('published from transcript');
  // The drafter's second visit read the transcript too: $self's plan and its own first draft.
  const second = srv.requests[1].body.messages!.filter((m) => m.role === 'user');
  expect(second[second.length - 1].content).toContain('# Graph transcript');
  expect(second[second.length - 1].content).toContain('[$self (visit 1)]\nplan: write the summary');
  expect(second[second.length - 1].content).toContain('[drafter (visit 1)]\nDRAFT-1 revenue grew');
});
