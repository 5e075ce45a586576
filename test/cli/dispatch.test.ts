/**
 * `loom dispatch` as a user runs it, on the suite's dev server: a registry of five agents (one of
 * them a draft), the winner picked by its routing, its failure followed by its fallback agent, and
 * an unavailable winner (input it cannot take) skipped with a message.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { BODY, baseAgent, tempRegistry } from '../compiler/helpers';
import { CliHarness, startCliHarness, useBuiltCli } from './harness';

function model(id: string, scripted: Record<string, unknown>): string {
  return `---\n${YAML.stringify({ model_id: id, version: '1.0.0', status: 'active', provider: 'scripted', scripted })}---\nScripted model for the dispatch tests.\n`;
}

function agent(id: string, modelId: string, routing: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const a = baseAgent(id);
  a.runtime = { model: modelId };
  a.tools = { tool_choice: 'none', refs: [] };
  a.interface = {
    input: { schema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] }, examples: [{ question: 'hi' }] },
    output: { schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false } },
  };
  a.routing = routing;
  return `---\n${YAML.stringify({ ...a, ...extra })}---\n${BODY}`;
}

let h: CliHarness;
let reg: string;
// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => {
  h = await startCliHarness('dispatch');
  reg = tempRegistry();
  // Only this test's five agents (the base registry's roles and models stay).
  for (const f of fs.readdirSync(path.join(reg, 'agents'))) fs.rmSync(path.join(reg, 'agents', f));
  const w = (rel: string, text: string) => fs.writeFileSync(path.join(reg, rel), text);
  w('models/answer-model.model.md', model('answer-model', { turns: [{ content: '{"answer": "answered: {{input.question}}"}' }] }));
  // A provider refusal (HTTP 400): not retryable, so the run fails.
  w('models/refusing-model.model.md', model('refusing-model', { turns: [{ error: { status: 400, message: 'the provider refused the request' } }] }));
  w('agents/billing-agent.agent.md', agent('billing-agent', 'refusing-model', { intents: ['billing_question', 'refund_request'], trigger_phrases: ['charged twice', 'refund'], priority: 60, fallback_agents: ['general-assistant'] }));
  w('agents/refunds-agent.agent.md', agent('refunds-agent', 'answer-model', { intents: ['refund_request'], trigger_phrases: ['refund'], priority: 60 }));
  w('agents/password-agent.agent.md', agent('password-agent', 'answer-model', { intents: ['password_reset'], trigger_phrases: ['reset password'], priority: 90, fallback_agents: ['general-assistant'] }));
  w('agents/general-assistant.agent.md', agent('general-assistant', 'answer-model', { trigger_phrases: ['help'], priority: 10 }));
  w('agents/draft-agent.agent.md', agent('draft-agent', 'answer-model', { trigger_phrases: ['refund'], priority: 100 }, { status: 'draft' }));
}, 120_000);
afterAll(async () => {
  await h?.close();
  fs.rmSync(reg, { recursive: true, force: true });
});

test('--dry-run ranks without running: priority wins among matching agents, drafts are not candidates', async () => {
  const r = await h.loom(['dispatch', 'I need a refund, and reset password please', '--registry', reg, '--dry-run']);
  expect(r.code).toBe(0);
  expect(r.out).toBe('password-agent\n');
  const lines = r.err.split('\n');
  expect(lines[0]).toMatch(/^ 1\. password-agent +tier 2 +priority +90/);
  expect(lines.slice(0, 4).map((l) => l.trim().split(/\s+/)[1])).toEqual(['password-agent', 'billing-agent', 'refunds-agent', 'general-assistant']);
  expect(r.err).not.toContain('draft-agent');
  expect(await h.startedOnQueue()).toEqual([]);
}, 60_000);

test('the winner fails: its fallback agent answers, and the CLI says so', async () => {
  const r = await h.loom(['dispatch', 'I was charged twice, please refund me', '--registry', reg, '--explain']);
  expect(r.err).toMatch(/dispatch: billing-agent \(trigger "charged twice", trigger "refund", partial-intent "refund_request"; priority 60\)/);
  expect(r.err).toMatch(/loom dispatch: billing-agent failed \(billing-agent-\S+\): .*refused.*; trying fallback agent general-assistant/);
  expect(r.err).toContain('dispatch: answered by fallback agent general-assistant');
  expect(r.code).toBe(0);
  expect(JSON.parse(r.out)).toEqual({ answer: 'answered: I was charged twice, please refund me' });
  const started = (await h.startedOnQueue()).sort();
  expect(started.map((id) => id.replace(/-\d{8}-[0-9a-f]{8}$/, ''))).toEqual(['billing-agent', 'general-assistant']);
}, 180_000);

test('no agent matches: exit 1 with what was tried; --input overrides the derived input', async () => {
  const none = await h.loom(['dispatch', 'what is the weather', '--registry', reg]);
  expect(none.code).toBe(1);
  expect(none.err).toContain('loom dispatch: no active agent in');
  const bad = await h.loom(['dispatch', 'reset password', '--registry', reg, '--input', '{"nope": 1}']);
  expect(bad.err).toMatch(/loom dispatch: password-agent is unavailable: input refused by password-agent's interface.input.schema:[\s\S]*; trying fallback agent general-assistant/);
  // the fallback refuses the same input: nothing left
  expect(bad.err).toMatch(/general-assistant is unavailable: [\s\S]*; no fallback agent left/);
  expect(bad.code).toBe(1);
}, 120_000);
