/**
 * Lifecycle at run time (issue 11 point 3) on the shared dev server: a draft root is refused
 * unless the run input allows drafts, a disabled agent never runs, a deprecated one runs with a
 * warning, and runtime.reasoning_effort reaches the provider (asserted at the local
 * OpenAI-compatible server).
 */
import { WorkflowFailedError } from '@temporalio/client';
import { randomBytes } from 'crypto';
import type { CompiledAgent, CompiledBundle } from '../../src/compiled/types';
import type { AgentRunResult, RunOptions } from '../../src/shared/contract';
import type { TestTemporal } from '../helpers/temporal';
import { Harness, startHarness } from '../runtime/harness';
import { FakeOpenAIServer, reply, startFakeOpenAI } from '../helpers/openai-server';
import { agfReactWorkflow } from '../../src/workflows/react';
import { storeTestBundle, testStore } from '../runtime/builders';
import { compileAgent, model as modelDefinition, scripted } from '../helpers/definitions';

const KEY_ENV = `LOOM_TEST_LIFECYCLE_KEY_${randomBytes(3).toString('hex').toUpperCase()}`;
let t: TestTemporal;
let h: Harness;

beforeAll(async () => {
  process.env[KEY_ENV] = `sk-test-${randomBytes(8).toString('hex')}`;
  h = await startHarness('lifecycle');
  t = h.t;
});
afterAll(async () => {
  await h?.close();
  delete process.env[KEY_ENV];
});

/** Agent `id` with this lifecycle status in its front matter, compiled from its definition. */
function withStatus(id: string, status: CompiledAgent['status']): CompiledBundle {
  return compileAgent({ agent_id: id, model: scripted({ turns: [{ content: 'hello from ' + id }] }), front: { status } }).bundle;
}

async function runOf(b: CompiledBundle, options?: RunOptions) {
  const bundle = await storeTestBundle(b);
  const h = await t.client.workflow.start(agfReactWorkflow, {
    taskQueue: t.taskQueue, workflowId: `${b.root}-${randomBytes(4).toString('hex')}`,
    args: [{ bundle, agent_id: b.root, input: 'hi', ...(options ? { options } : {}) }],
  });
  return h.result() as Promise<AgentRunResult>;
}

async function failureOf(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause as Error & { cause?: Error };
  return `${cause?.message ?? ''} ${cause?.cause?.message ?? ''}`;
}

test('a draft root is refused without allow_draft, with what to do; it runs with it and says so', async () => {
  const why = await failureOf(runOf(withStatus('draft-root', 'draft')));
  expect(why).toMatch(/draft-root v1\.0\.0 has status: draft/);
  expect(why).toMatch(/--allow-draft/);
  const res = await runOf(withStatus('draft-root', 'draft'), { allow_draft: true });
  expect(res.output).toBe('hello from draft-root');
  expect(res.warnings.join('\n')).toMatch(/draft-root v1\.0\.0 is a draft/);
}, 120_000);

test('a disabled agent never runs, even with allow_draft', async () => {
  const why = await failureOf(runOf(withStatus('off-root', 'disabled'), { allow_draft: true }));
  expect(why).toMatch(/off-root v1\.0\.0 has status: disabled and cannot be run/);
}, 120_000);

test('a deprecated agent runs, with a warning in its result', async () => {
  const res = await runOf(withStatus('old-root', 'deprecated'));
  expect(res.output).toBe('hello from old-root');
  expect(res.warnings.join('\n')).toMatch(/old-root v1\.0\.0 is deprecated/);
}, 120_000);

describe('reasoning_effort', () => {
  let srv: FakeOpenAIServer;
  beforeEach(async () => { srv = await startFakeOpenAI(); });
  afterEach(async () => { await srv.close(); });

  test('runtime.reasoning_effort reaches the provider as reasoning_effort; absent, nothing is sent', async () => {
    const model = modelDefinition('oa', 'openai', { supports_tools: true, openai: { base_url: srv.baseUrl, model: 'gpt-fake-1', api_key_env: KEY_ENV, request_timeout_seconds: 10 } });
    srv.enqueue(reply('thought hard'), reply('thought little'));
    const hard = await runOf(compileAgent({ agent_id: 'effort-high', model, front: { runtime: { reasoning_effort: 'high' } } }).bundle);
    expect(hard.output).toBe('thought hard');
    const plain = await runOf(compileAgent({ agent_id: 'effort-none', model }).bundle);
    expect(plain.output).toBe('thought little');
    expect(srv.requests.map((r) => r.body.reasoning_effort)).toEqual(['high', undefined]);
  }, 120_000);
});
