/**
 * Seed 001 policies enforced at run time, on the real Temporal dev server: pii_redaction (the
 * model's recorded input, the output and the history after the pass hold placeholders, never the
 * raw values), blocked_content (refused with the category), allowed_connectors and data_residency
 * (refused before the call: the tool activity never starts, the model server sees no request).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { WorkflowFailedError } from '@temporalio/client';
import type { CompiledAgent, CompiledBundle, CompiledModel } from '../../src/compiled/types';
import type { AgentRunResult, RunAgentInput, RunStatus } from '../../src/shared/contract';
import { createActivities } from '../../src/activities';
import { agfReactWorkflow } from '../../src/workflows/react';
import { createTestWorker, TestTemporal } from '../helpers/temporal';
import { Harness, startHarness } from '../runtime/harness';
import { activityTypes, historyEvents, HistoryEvent } from '../helpers/history';
import { FakeOpenAIServer, reply, startFakeOpenAI, toolCalls } from '../helpers/openai-server';
import { agent, AgentSpec, builtinTool, bundleOf, scriptedModel, storeTestBundle, testStore } from '../runtime/builders';
import { builtin, compileAgent, model as modelDefinition, scripted, type Definition, type FrontMatter } from '../helpers/definitions';
import { auditLogPath } from '../../src/activities/audit';
import { AuditEntry, verifyChain } from '../../src/governance/audit';

const KEY_ENV = 'LOOM_TEST_POLICIES_OPENAI_KEY';
let t: TestTemporal;
let h: Harness;
let srv: FakeOpenAIServer;

beforeAll(async () => {
  process.env[KEY_ENV] = 'sk-test-policies';
  // The audit log is written under LOOM_HOME/audit by the in-process worker.
  process.env.LOOM_HOME = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'policies-home-'));
  h = await startHarness('policies');
  t = h.t;
  srv = await startFakeOpenAI();
}, 120_000);
afterAll(async () => {
  await h?.close();
  await srv.close();
});

/** The openai model definition on the fake server. */
function openaiModel(): Definition {
  return modelDefinition('oa-policies', 'openai', { openai: { base_url: srv.baseUrl, model: 'gpt-fake-1', api_key_env: KEY_ENV, request_timeout_seconds: 10 }, supports_tools: true });
}

/** An agent with these policies (audit off unless given), compiled from its definitions: the compiler adds runtime_pass and audit_trail. */
function withPolicies(spec: { agent_id: string; model: Definition; tools?: Definition[] }, policies: FrontMatter): CompiledBundle {
  const b = compileAgent({ ...spec, front: { runtime: { retry_policy: { max_attempts: 1, backoff_seconds: 0.1 } }, policies: { audit_level: 'none', ...policies } } }).bundle;
  // What the runtime acts on: a runtime pass for PII redaction or blocked content, an audit trail for audit levels.
  const compiled = b.agents[b.root].policies;
  expect(compiled.runtime_pass === true).toBe(policies.pii_redaction === true || ((policies.blocked_content as string[] | undefined)?.length ?? 0) > 0);
  expect(compiled.audit_trail === true).toBe(['standard', 'full'].includes(String(policies.audit_level)));
  return b;
}

/**
 * A model or tool region outside policies.data_residency: the compiler refuses it (AGF140), so these
 * agents are built by hand, with the policy flags the compiler emits, to reach the runtime's own check.
 */
function handBuiltOpenaiModel(over: Partial<CompiledModel> = {}): CompiledModel {
  return { model_id: 'oa-policies', version: '1.0.0', status: 'active', provider: 'openai', openai: { base_url: srv.baseUrl, model: 'gpt-fake-1', api_key_env: KEY_ENV, request_timeout_seconds: 10 }, supports_tools: true, ...over };
}
function handBuiltWithPolicies(spec: AgentSpec & { agent_id: string }, policies: Partial<CompiledAgent['policies']>): CompiledBundle {
  const a = agent({ ...spec, runtime: { retry_policy: { max_attempts: 1, backoff_seconds: 0.1 }, ...(spec.runtime ?? {}) } });
  a.policies = { ...a.policies, audit_level: 'none', ...policies };
  return bundleOf(a);
}

async function start(b: CompiledBundle, input: unknown) {
  const run: RunAgentInput = { bundle: await storeTestBundle(b), agent_id: b.root, input: input as never };
  return t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: `${b.root}-${Math.random().toString(36).slice(2, 10)}`, args: [run] });
}

/** An event as text, with every payload decoded (history payloads are bytes). */
function eventText(e: HistoryEvent): string {
  return JSON.stringify(e, (k, v: unknown) => {
    if (k === 'data' && typeof v === 'string') return Buffer.from(v, 'base64').toString('utf8');
    if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
    const b = v as { type?: string; data?: number[] } | null;
    if (b && b.type === 'Buffer' && Array.isArray(b.data)) return Buffer.from(b.data).toString('utf8');
    return v;
  });
}

/** Every message of a failure's cause chain. */
async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(WorkflowFailedError);
    const parts: string[] = [];
    for (let cur = e as { message?: string; cause?: unknown; type?: string } | undefined; cur; cur = cur.cause as typeof cur) parts.push(`${cur.type ? `[${cur.type}] ` : ''}${cur.message ?? ''}`);
    return parts.join(' <- ');
  }
  throw new Error('the run was expected to fail');
}

const EMAIL = 'maria.lopez@example.com';
const PHONE = '+1 415 555 0134';

test('pii_redaction: the model, the output and the history after the pass never hold the raw email, phone or name', async () => {
  const before = srv.requests.length;
  srv.enqueue(reply(`Dear Maria Lopez, we will write to ${EMAIL} and call ${PHONE} about order 4412.`));
  const a = withPolicies({ agent_id: 'pii-agent', model: openaiModel() }, { pii_redaction: true });
  const h = await start(a, `Hi, my name is Maria Lopez. My email is ${EMAIL} and my phone is ${PHONE}. Where is order 4412?`);
  const result = (await h.result()) as AgentRunResult;

  // What the model received: the placeholders, never the values.
  const sent = JSON.stringify(srv.requests.slice(before).map((r) => r.body.messages));
  expect(sent).toContain('[EMAIL]');
  expect(sent).toContain('[PHONE]');
  expect(sent).toContain('my name is [PERSON]');
  for (const raw of [EMAIL, PHONE, 'Maria Lopez']) expect(sent).not.toContain(raw);

  // What the caller gets.
  expect(result.output).toBe('Dear [PERSON], we will write to [EMAIL] and call [PHONE] about order 4412.');

  // The history: only what was written before the pass (the caller's start event and the pass's
  // own scheduled input) holds the raw values; every later event holds placeholders.
  const events = await historyEvents(h);
  const pass = events.findIndex((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'redactRunInput');
  expect(pass).toBeGreaterThan(0);
  expect(eventText(events[0])).toContain(EMAIL);
  const after = events.slice(pass + 1);
  expect(after.map(eventText).join('\n')).toContain('[EMAIL]');
  const leaks = after.filter((e) => [EMAIL, PHONE, 'Maria Lopez', '415 555'].some((raw) => eventText(e).includes(raw)));
  expect(leaks.map((e) => `${e.eventId} ${e.eventType}`)).toEqual([]);
}, 120_000);

test('blocked_content: an answer in a blocked category is refused with the category and what matched', async () => {
  const a = withPolicies(
    { agent_id: 'blocked-agent', model: scripted({ turns: [{ content: 'For that headache, take 800 mg of ibuprofen every six hours.' }] }) },
    { blocked_content: ['legal_advice', 'medical_advice'] },
  );
  const h = await start(a, 'I have a headache, what should I take?');
  const text = await failure(h.result());
  expect(text).toContain('[ContentBlocked]');
  expect(text).toContain("policies.blocked_content: it falls in the category 'medical_advice' (gives a dosage: \"take 800 mg\")");
  const status = await h.query<RunStatus>('status');
  expect(status.state).toBe('failed');
  expect(activityTypes(await historyEvents(h))).toContain('checkBlockedContent');
}, 120_000);

test('blocked_content: a clean answer is delivered', async () => {
  const a = withPolicies({ agent_id: 'clean-agent', model: scripted({ turns: [{ content: 'Please see a doctor; I cannot give medical advice.' }] }) }, { blocked_content: ['medical_advice'] });
  const h = await start(a, 'I have a headache');
  expect(((await h.result()) as AgentRunResult).output).toBe('Please see a doctor; I cannot give medical advice.');
}, 120_000);

test('allowed_connectors: a tool on another connector is refused before it runs (no runTool activity), the model is told why', async () => {
  const before = srv.requests.length;
  srv.enqueue(toolCalls([{ id: 'call_1', name: 'jira_echo', arguments: { text: 'open a ticket' } }]), reply('I could not reach Jira.'));
  const a = withPolicies(
    { agent_id: 'connector-agent', model: openaiModel(), tools: [builtin('echo', { tool_id: 'jira_echo', connector: 'jira' })] },
    { allowed_connectors: ['sharepoint'] },
  );
  const h = await start(a, 'open a ticket');
  expect(((await h.result()) as AgentRunResult).output).toBe('I could not reach Jira.');
  const events = await historyEvents(h);
  expect(activityTypes(events)).not.toContain('runTool');
  const toolMsg = srv.requests[before + 1].body.messages?.find((m) => m.role === 'tool');
  expect(toolMsg?.content).toContain("tool jira_echo uses connector 'jira', which policies.allowed_connectors does not list (allowed: sharepoint)");
  const status = await h.query<RunStatus>('status');
  expect(status.warnings.join('\n')).toContain("connector 'jira'");
}, 120_000);

test('allowed_connectors: a tool on an allowed connector runs', async () => {
  const a = withPolicies(
    { agent_id: 'connector-ok', model: scripted({ turns: [{ tool_calls: [{ name: 'sp_echo', arguments: { text: 'hi' } }] }, { content: 'done' }] }), tools: [builtin('echo', { tool_id: 'sp_echo', connector: 'sharepoint' })] },
    { allowed_connectors: ['sharepoint'] },
  );
  const h = await start(a, 'echo hi');
  expect(((await h.result()) as AgentRunResult).output).toBe('done');
  expect(activityTypes(await historyEvents(h))).toContain('runTool');
}, 120_000);

test('data_residency: a model outside the region is refused before any request reaches it; a tool outside it never runs', async () => {
  const before = srv.requests.length;
  const a = handBuiltWithPolicies({ agent_id: 'residency-agent', model: handBuiltOpenaiModel({ region: 'us-east-1' }) }, { data_residency: 'eu' });
  const h = await start(a, 'hello');
  const text = await failure(h.result());
  expect(text).toContain('[PolicyViolation]');
  expect(text).toContain("model oa-policies is in region 'us-east-1', outside policies.data_residency 'eu'");
  expect(srv.requests.length).toBe(before);
  expect(activityTypes(await historyEvents(h))).not.toContain('modelTurn');

  const b = handBuiltWithPolicies(
    {
      agent_id: 'residency-tool',
      model: scriptedModel({ turns: [{ tool_calls: [{ name: 'us_echo', arguments: { text: 'hi' } }] }, { content: 'no tool' }] }),
      tools: [builtinTool('echo', { tool_id: 'us_echo', region: 'us-east-1' })],
    },
    { data_residency: 'eu-west-1' },
  );
  const hb = await start(b, 'echo hi');
  expect(((await hb.result()) as AgentRunResult).output).toBe('no tool');
  expect(activityTypes(await historyEvents(hb))).not.toContain('runTool');
}, 120_000);

test('audit_level full: one hash-chained entry per run (tools, arguments, results, outcome, refusal reason), PII redacted, tampering detected', async () => {
  const spec = {
    agent_id: 'audited-agent',
    model: scripted({
      rules: [{ when: { input_contains: 'headache' }, reply: { content: 'Take 800 mg of ibuprofen.' } }],
      turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'mail bob@example.org' } }] }, { content: 'Sent to bob@example.org.' }],
    }),
    tools: [builtin('echo')],
  };
  const a = withPolicies(spec, { pii_redaction: true, blocked_content: ['medical_advice'], audit_level: 'full' });
  const ok = await start(a, 'please mail bob@example.org');
  expect(((await ok.result()) as AgentRunResult).output).toBe('Sent to [EMAIL].');
  const refused = await start(a, 'I have a headache');
  expect(await failure(refused.result())).toContain('[ContentBlocked]');

  const file = auditLogPath('audited-agent');
  const text = fs.readFileSync(file, 'utf8');
  expect(text).not.toContain('bob@example.org');
  const lines = text.split('\n').filter((l) => l.trim());
  expect(verifyChain(lines)).toEqual({ ok: true, entries: 2 });
  const [first, second] = lines.map((l) => JSON.parse(l) as AuditEntry);
  expect(first).toMatchObject({
    seq: 1, prev: '', level: 'full', agent_id: 'audited-agent', workflow_id: ok.workflowId, outcome: 'success', tools: ['echo'],
    tool_calls: [{ name: 'echo', arguments: { text: 'mail [EMAIL]' } }],
    output: 'Sent to [EMAIL].',
  });
  expect(first.tool_results?.[0].content).toContain('[EMAIL]');
  expect(second).toMatchObject({ seq: 2, prev: first.hash, workflow_id: refused.workflowId, outcome: 'refused', tools: [] });
  expect(second.reason).toContain("category 'medical_advice'");
  expect(activityTypes(await historyEvents(ok))).toContain('appendAudit');

  // Tampering: an edited entry, or a removed one, no longer verifies.
  expect(verifyChain([lines[0].replace('"outcome":"success"', '"outcome":"error"'), lines[1]])).toMatchObject({ ok: false, line: 1 });
  expect(verifyChain([lines[1]])).toMatchObject({ ok: false, line: 1 });
}, 120_000);

test('audit_level standard: outcome and tool names only, no arguments, results or output', async () => {
  const a = withPolicies(
    { agent_id: 'audited-standard', model: scripted({ turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'secret plan' } }] }, { content: 'done' }] }), tools: [builtin('echo')] },
    { audit_level: 'standard' },
  );
  const h = await start(a, 'go');
  await h.result();
  const [entry] = fs.readFileSync(auditLogPath('audited-standard'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as AuditEntry);
  expect(entry).toMatchObject({ level: 'standard', outcome: 'success', tools: ['echo'], workflow_id: h.workflowId });
  expect(entry.tool_calls).toBeUndefined();
  expect(JSON.stringify(entry)).not.toContain('secret plan');
}, 120_000);

test('blocked_content: a worker given its own classifier (createActivities({ contentClassifier })) refuses with it', async () => {
  const w = await createTestWorker(t, createActivities({ store: testStore(), contentClassifier: (text, cats) => (text.includes('forbidden') && cats.includes('violence') ? { category: 'violence', what: 'house rule', matched: 'forbidden' } : undefined) }), { taskQueue: `${t.taskQueue}-classifier` });
  const r = w.run();
  try {
    const a = withPolicies({ agent_id: 'custom-classifier', model: scripted({ turns: [{ content: 'a forbidden word' }] }) }, { blocked_content: ['violence'] });
    const run: RunAgentInput = { bundle: await storeTestBundle(a), agent_id: a.root, input: 'hi' };
    const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: `${t.taskQueue}-classifier`, workflowId: `custom-classifier-${Math.random().toString(36).slice(2, 10)}`, args: [run] });
    expect(await failure(h.result())).toContain("category 'violence' (house rule: \"forbidden\")");
  } finally {
    w.shutdown();
    await r;
  }
}, 120_000);
