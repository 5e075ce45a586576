/**
 * search_knowledge with search_mode semantic on the shared dev server (issue 11.2): an openai
 * model (the local OpenAI-compatible test server) calls search_knowledge; the agent-level
 * `knowledge.retrieval.search_mode: semantic` applies to its source, whose chunks and the query
 * are embedded through the same server's /v1/embeddings; the tool result the model gets back
 * ranks first the article that shares no word with the query (BM25 would rank another one).
 */
import { randomBytes } from 'crypto';
import type { Worker } from '@temporalio/worker';
import type { CompiledKnowledge } from '../../src/compiler/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { FakeOpenAIServer, reply, startFakeOpenAI, toolCalls } from '../helpers/openai-server';
import { createActivities } from '../../src/activities';
import { agfReactWorkflow } from '../../src/workflows/react';
import { agent, builtinTool, bundleOf, storeTestBundle, testStore } from '../runtime/builders';

let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let srv: FakeOpenAIServer;

beforeAll(async () => {
  t = await connectTestTemporal('knowledge-semantic');
  worker = await createTestWorker(t, createActivities({ store: testStore() }));
  running = worker.run();
  srv = await startFakeOpenAI({ concepts: { reimbursement: 'refund', refunds: 'refund', paid: 'refund' } });
});
afterAll(async () => {
  await srv.close();
  worker.shutdown();
  await running;
  await t.close();
});

test('a run whose search_knowledge call ranks by embeddings (search_mode semantic)', async () => {
  const model = { model_id: 'oa', version: '1.0.0', status: 'active' as const, provider: 'openai' as const, supports_tools: true, openai: { base_url: srv.baseUrl, model: 'gpt-fake-1', request_timeout_seconds: 10 } };
  const a = agent({ agent_id: 'kb-semantic', model, tools: [builtinTool('search_knowledge')] });
  const help: CompiledKnowledge = {
    kb_id: 'help', version: '1', status: 'active', required: false, citations_required: false,
    backend: {
      type: 'inline',
      documents: [
        { id: 'refunds', title: 'Refunds', text: 'Refunds are paid to the original card within 30 days.' },
        { id: 'forms', title: 'Forms', text: 'A reimbursement request form costs nothing to submit; fees apply to shipping.' },
      ],
      embeddings: { base_url: srv.baseUrl, model: 'fake-embed-small' },
    },
  };
  a.knowledge = { refs: [help], retrieval: { search_mode: 'semantic' } } as typeof a.knowledge;
  srv.enqueue(toolCalls([{ name: 'search_knowledge', arguments: { query: 'I want a reimbursement' } }]), reply('Refunds go to the original card within 30 days [help/refunds].'));
  const bundle = await storeTestBundle(bundleOf(a));
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
