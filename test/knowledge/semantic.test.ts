/**
 * search_knowledge with search_mode semantic on the shared dev server (issue 11.2): an openai
 * model (the local OpenAI-compatible test server) calls search_knowledge; the agent-level
 * `knowledge.retrieval.search_mode: semantic` applies to its source, whose chunks and the query
 * are embedded through the same server's /v1/embeddings; the tool result the model gets back
 * ranks first the article that shares no word with the query (BM25 would rank another one).
 * A second run searches an `http` backend in hybrid mode: its documents are embedded too and the
 * result is the reciprocal rank fusion of both rankings.
 */
import { randomBytes } from 'crypto';
import * as http from 'http';
import type { AddressInfo } from 'net';
import type { AgentRunResult } from '../../src/shared/contract';
import type { TestTemporal } from '../helpers/temporal';
import { Harness, startHarness } from '../runtime/harness';
import { FakeOpenAIServer, reply, startFakeOpenAI, toolCalls } from '../helpers/openai-server';
import { agfReactWorkflow } from '../../src/workflows/react';
import { storeTestBundle, testStore } from '../runtime/builders';
import { builtin, compileAgent, kb, model as modelDefinition } from '../helpers/definitions';

let t: TestTemporal;
let h: Harness;
let srv: FakeOpenAIServer;

beforeAll(async () => {
  h = await startHarness('knowledge-semantic');
  t = h.t;
  srv = await startFakeOpenAI({ concepts: { reimbursement: 'refund', refunds: 'refund', paid: 'refund' } });
});
afterAll(async () => {
  await srv.close();
  await h?.close();
});

test('a run whose search_knowledge call ranks by embeddings (search_mode semantic)', async () => {
  const model = modelDefinition('oa', 'openai', { supports_tools: true, openai: { base_url: srv.baseUrl, model: 'gpt-fake-1', request_timeout_seconds: 10 } });
  const help = kb('help', {
    type: 'inline',
    documents: [
      { id: 'refunds', title: 'Refunds', text: 'Refunds are paid to the original card within 30 days.' },
      { id: 'forms', title: 'Forms', text: 'A reimbursement request form costs nothing to submit; fees apply to shipping.' },
    ],
    embeddings: { base_url: srv.baseUrl, model: 'fake-embed-small' },
  });
  const { bundle: compiled } = compileAgent({
    agent_id: 'kb-semantic', model, tools: [builtin('search_knowledge')], others: [help],
    front: { knowledge: { refs: [{ ref: 'help' }], retrieval: { search_mode: 'semantic' } } },
  });
  srv.enqueue(toolCalls([{ name: 'search_knowledge', arguments: { query: 'I want a reimbursement' } }]), reply('Refunds go to the original card within 30 days [help/refunds].'));
  const bundle = await storeTestBundle(compiled);
  const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: `kb-semantic-${randomBytes(4).toString('hex')}`, args: [{ bundle, agent_id: 'kb-semantic', input: 'I want a reimbursement' }] });
  const res = (await h.result()) as AgentRunResult;
  expect(res.output).toBe('Refunds go to the original card within 30 days [help/refunds].');

  const embeds = srv.requests.filter((r) => r.url.startsWith('/v1/embeddings'));
  expect(embeds.length).toBeGreaterThan(0);
  expect(embeds.every((r) => r.body.model === 'fake-embed-small')).toBe(true);
  expect(embeds.flatMap((r) => r.body.input as string[])).toContain('I want a reimbursement');
  const chats = srv.requests.filter((r) => r.url.startsWith('/v1/chat/completions'));
  const toolMsg = chats[1].body.messages!.find((m) => m.role === 'tool');
  const hits = JSON.parse(toolMsg!.content!) as { kb_id: string; id: string }[];
  expect(hits[0]).toMatchObject({ kb_id: 'help', id: 'refunds' });
}, 120_000);

test('hybrid over an http backend: the documents it returns are embedded and fused with BM25', async () => {
  const kbSrv = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify([
      { id: 'passwords', text: 'Reset a password from the Settings page.' },
      { id: 'refunds', title: 'Refunds', text: 'Refunds are paid to the original card within 30 days.' },
      { id: 'forms', title: 'Forms', text: 'A reimbursement request form costs nothing to submit; fees apply to shipping.' },
    ]));
  });
  await new Promise<void>((r) => kbSrv.listen(0, '127.0.0.1', r));
  try {
    const model = modelDefinition('oa', 'openai', { supports_tools: true, openai: { base_url: srv.baseUrl, model: 'gpt-fake-1', request_timeout_seconds: 10 } });
    const remote = kb('remote', { type: 'http', url: `http://127.0.0.1:${(kbSrv.address() as AddressInfo).port}/search`, embeddings: { base_url: srv.baseUrl, model: 'fake-embed-hybrid' } }, { retrieval: { search_mode: 'hybrid' } });
    const { bundle: compiled } = compileAgent({ agent_id: 'kb-hybrid', model, tools: [builtin('search_knowledge')], knowledge: [remote] });
    const before = srv.requests.length;
    srv.enqueue(toolCalls([{ name: 'search_knowledge', arguments: { query: 'I want a reimbursement' } }]), reply('See [remote/forms] and [remote/refunds].'));
    const bundle = await storeTestBundle(compiled);
    const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: `kb-hybrid-${randomBytes(4).toString('hex')}`, args: [{ bundle, agent_id: 'kb-hybrid', input: 'I want a reimbursement' }] });
    await h.result();
    const mine = srv.requests.slice(before);
    expect(mine.filter((r) => r.url.startsWith('/v1/embeddings') && r.body.model === 'fake-embed-hybrid').length).toBeGreaterThan(0);
    const toolMsg = mine.filter((r) => r.url.startsWith('/v1/chat/completions'))[1].body.messages!.find((m) => m.role === 'tool');
    const hits = JSON.parse(toolMsg!.content!) as { id: string; score: number }[];
    // forms: BM25 rank 1 + cosine rank 2; refunds: cosine rank 1 only; passwords: in neither list.
    expect(hits.map((x) => x.id)).toEqual(['forms', 'refunds']);
    expect(hits[0].score).toBeCloseTo(1 / 61 + 1 / 62, 10);
  } finally {
    await new Promise<void>((r) => kbSrv.close(() => r()));
  }
}, 120_000);
