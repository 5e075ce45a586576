/**
 * Required knowledge in the model context (issue 11.2) on the shared dev server: a `required: true`
 * source's documents, with their citation ids, are in the system message the local
 * OpenAI-compatible server records on every turn; a source that is not required is not; the
 * block is bounded (unit).
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { AgentRunResult } from '../../src/shared/contract';
import type { TestTemporal } from '../helpers/temporal';
import { Harness, startHarness } from '../runtime/harness';
import { FakeOpenAIServer, reply, startFakeOpenAI, toolCalls } from '../helpers/openai-server';
import { agfReactWorkflow } from '../../src/workflows/react';
import { requiredKnowledgeBlock } from '../../src/runtime/knowledge-search';
import { storeTestBundle, testStore } from '../runtime/builders';
import { builtin, compileAgent, kb, model } from '../helpers/definitions';

const KEY_ENV = `LOOM_TEST_KB_KEY_${randomBytes(3).toString('hex').toUpperCase()}`;
let t: TestTemporal;
let h: Harness;
let srv: FakeOpenAIServer;

beforeAll(async () => {
  process.env[KEY_ENV] = `sk-test-${randomBytes(8).toString('hex')}`;
  h = await startHarness('knowledge-required');
  t = h.t;
  srv = await startFakeOpenAI();
});
afterAll(async () => {
  await srv.close();
  await h?.close();
  delete process.env[KEY_ENV];
});

test('required sources (inline and files) reach the model with citation ids on every turn; others do not', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-req-'));
  fs.writeFileSync(path.join(dir, 'tone.md'), '# Tone\n\nAlways greet the customer by the word Ahoy.');
  const { agent: a, bundle: compiled } = compileAgent({
    agent_id: 'kb-required',
    model: model('oa', 'openai', { supports_tools: true, openai: { base_url: srv.baseUrl, model: 'gpt-fake-1', api_key_env: KEY_ENV, request_timeout_seconds: 10 } }),
    tools: [builtin('echo')],
    knowledge: [
      kb('brand', { type: 'files', path: dir }, { required: true }),
      kb('policy', { type: 'inline', documents: [{ id: 'refunds', title: 'Refunds', text: 'Refunds within 30 days.' }] }, { required: true }),
      kb('archive', { type: 'inline', documents: [{ id: 'old', text: 'Obsolete pricing from 2019.' }] }),
    ],
  });
  srv.enqueue(toolCalls([{ name: 'echo', arguments: { text: 'x' } }]), reply('Ahoy! Refunds within 30 days [policy/refunds].'));
  const bundle = await storeTestBundle(compiled);
  const res = (await (await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: `kb-required-${randomBytes(4).toString('hex')}`, args: [{ bundle, agent_id: a.agent_id, input: 'can I get a refund?' }] })).result()) as AgentRunResult;
  expect(res.output).toBe('Ahoy! Refunds within 30 days [policy/refunds].');
  expect(srv.requests).toHaveLength(2);
  for (const r of srv.requests) {
    const system = String(r.body.messages?.find((m) => m.role === 'system')?.content ?? '');
    expect(system).toContain('# Required knowledge');
    expect(system).toContain('[brand/tone.md] Tone');
    expect(system).toContain('Always greet the customer by the word Ahoy.');
    expect(system).toContain('[policy/refunds] Refunds\nRefunds within 30 days.');
    expect(system).not.toContain('Obsolete pricing');
  }
  fs.rmSync(dir, { recursive: true, force: true });
}, 120_000);

test('the block stays under its bound, keeping the chunks that match the input best and saying what it left out', () => {
  const chunks = Array.from({ length: 20 }, (_, i) => ({ kb_id: 'kb', id: `d${i}`, text: `${i === 13 ? 'refund window thirty days' : 'filler text about shipping'} ${'x'.repeat(200)}` }));
  const block = requiredKnowledgeBlock(chunks, 'refund window', 1000);
  expect(block.length).toBeLessThanOrEqual(1000 + 400);
  expect(block).toContain('[kb/d13]');
  expect(block).toMatch(/\(\d+ more chunk\(s\) of the required sources left out to keep this block under 1000 characters; search_knowledge finds them\.\)/);
});
