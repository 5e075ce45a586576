/**
 * Seed 002 `Selection.Type: llm` on a real Temporal dev server: a scripted selection model (carried
 * compiled in the pattern's `models`, as the compiler puts it) picks each speaker from the rendered
 * prompt; members are scripted agents run as member turns; Termination ends the session.
 */
import { randomBytes } from 'crypto';
import * as path from 'path';
import { compileBundle } from '../../src/compiler';
import type { ScriptedModelConfig, ScriptedReply, StrategiesPattern } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { statusQuery } from '../../src/shared/definitions';
import { agent, answers, bundle, scriptedModel } from '../orchestration/builders';
import { FakeOpenAIServer, reply, startFakeOpenAI } from '../helpers/openai-server';
import { childIds, Harness, startHarness } from '../orchestration/harness';

let h: Harness;
beforeAll(async () => { h = await startHarness('phases-llm'); });
afterAll(async () => { await h?.close(); });

const say = (content: string): ScriptedReply => ({ content });
const echo = (prefix: string): ScriptedModelConfig => ({ turns: [say(`${prefix}{{message}}`)] });
const DESCRIPTIONS: Record<string, string> = { Planner: 'writes the plan', Developer: 'writes the code', CodeReviewer: 'reviews the code' };

function llmTeam(root: string, selector: ScriptedModelConfig, config: Record<string, unknown>, members: Record<string, ScriptedModelConfig>) {
  const pattern = {
    type: 'strategies',
    agents: Object.keys(members).map((name) => ({ name, agent_id: `m-${name.toLowerCase()}` })),
    config: { Selection: { Type: 'llm', Model: { ModelId: 'selector-mini' } }, ...config },
    models: { 'selector-mini': scriptedModel(selector, 'selector-mini') },
  } as StrategiesPattern;
  return bundle(root, [
    agent({ id: root, model: answers('orchestrator'), pattern }),
    ...Object.entries(members).map(([name, model]) => agent({ id: `m-${name.toLowerCase()}`, model, description: DESCRIPTIONS[name] })),
  ]);
}

async function members(wfId: string): Promise<string[]> {
  return (await childIds(h, wfId)).map((id) => id.slice(wfId.length + 1));
}

const TEAM = { Planner: echo('plan for: '), Developer: echo('code for: '), CodeReviewer: { turns: [say('APPROVED')] } };
const UNTIL_APPROVED = { Termination: { Type: 'regex', Pattern: 'APPROVED', AgentNames: ['CodeReviewer'], MaxIterations: 10 } };

describe('llm selection', () => {
  test('the selection model picks each speaker from {{$agents}} (names, descriptions) and {{$history}}; Termination ends it', async () => {
    // Each rule answers only when the prompt holds what the model needs to see (no fallback turns: an unmatched prompt fails the run).
    const selector: ScriptedModelConfig = {
      rules: [
        { when: { last_message_contains: '[Developer]: code for: # Task' }, reply: say('codereviewer') },
        { when: { last_message_contains: '[Planner]: plan for: the login page' }, reply: say('Developer') },
        { when: { last_message_contains: '- Developer: writes the code', turn: 0 }, reply: say('Planner') },
      ],
    };
    const wf = await h.start(llmTeam('llm-team', selector, UNTIL_APPROVED, TEAM), 'the login page');
    const res = (await wf.result()) as AgentRunResult;
    expect(res.output).toBe('APPROVED');
    expect(res.warnings ?? []).toEqual([]);
    expect((await members(wf.workflowId)).sort()).toEqual(['turn-1-Planner', 'turn-2-Developer', 'turn-3-CodeReviewer']);
    const st = await wf.query(statusQuery);
    expect(st.progress).toMatchObject({ strategy: 'llm', phase: 'done', iteration: 3, speaker: 'CodeReviewer' });
    expect(String((st.progress as { stopped?: string }).stopped)).toMatch(/^terminated: Termination: CodeReviewer's message matches \/APPROVED\//);
  }, 180_000);

  test('a reply naming an unknown agent gets one correction, and the corrected name is used', async () => {
    const selector: ScriptedModelConfig = {
      rules: [{ when: { last_message_contains: 'Your previous reply could not be used: "Tester" is not one of the agents (Planner, Developer, CodeReviewer)' }, reply: say('Developer') }],
      turns: [say('Tester')],
    };
    const wf = await h.start(llmTeam('llm-correct', selector, { Termination: { Type: 'maxiterations', MaxIterations: 1 } }, TEAM), 'the login page');
    const res = (await wf.result()) as AgentRunResult;
    expect(res.output).toBe('code for: the login page');
    expect(res.warnings ?? []).toEqual([]);
    expect(await members(wf.workflowId)).toEqual(['turn-1-Developer']);
  }, 180_000);

  test('an unknown agent again after the correction: the agent after the last speaker speaks, with a warning', async () => {
    const wf = await h.start(llmTeam('llm-fallback', { turns: [say('Tester')] }, { Termination: { Type: 'maxiterations', MaxIterations: 2 } }, TEAM), 'the login page');
    const res = (await wf.result()) as AgentRunResult;
    expect((await members(wf.workflowId)).sort()).toEqual(['turn-1-Planner', 'turn-2-Developer']);
    expect(res.warnings).toEqual([
      'llm selection turn 1: "Tester" is not one of the agents (Planner, Developer, CodeReviewer) after a correction (first reply: "Tester" is not one of the agents (Planner, Developer, CodeReviewer)); fell back to Planner (the agent after the last speaker in Agents order)',
      'llm selection turn 2: "Tester" is not one of the agents (Planner, Developer, CodeReviewer) after a correction (first reply: "Tester" is not one of the agents (Planner, Developer, CodeReviewer)); fell back to Developer (the agent after the last speaker in Agents order)',
    ]);
  }, 180_000);
});

describe('llm selection continues as new', () => {
  test('a 12-turn session past a low history limit continues as new, carries its transcript and selector count, and every turn runs once', async () => {
    // The selector answers by its call number (carried), so the speakers are A, B, A, ... and C last.
    const order = [...Array.from({ length: 11 }, (_, i) => (i % 2 ? 'B' : 'A')), 'C'];
    const b = llmTeam('llm-can', { turns: order.map((n) => say(n)) }, { Termination: { Type: 'maxiterations', MaxIterations: 12 } }, {
      A: answers('a said'), B: answers('b said'), C: echo('final: '),
    });
    const wf = await h.start(b, 'go', { options: { scale: { loop_history_events: 40 } } });
    const res = (await wf.result()) as AgentRunResult;
    const out = String(res.output);
    // C was given the whole conversation: 6 A turns and 5 B turns, including those of earlier executions.
    expect(out.startsWith('final: # Task\ngo\n\n# Conversation so far\n\n[A]\na said\n\n[B]\nb said')).toBe(true);
    expect(out.split('[A]\na said').length - 1).toBe(6);
    expect(out.split('[B]\nb said').length - 1).toBe(5);
    expect(res.warnings ?? []).toEqual([]);
    const d = await wf.describe();
    expect(d.runId).not.toBe(wf.firstExecutionRunId);
    expect((await members(wf.workflowId)).sort()).toEqual(order.map((n, i) => `turn-${i + 1}-${n}`).sort());
    expect((await wf.query(statusQuery)).progress).toMatchObject({ strategy: 'llm', phase: 'done', iteration: 12, speaker: 'C' });
  }, 180_000);
});

describe('policies.pii_redaction of the strategies agent', () => {
  const KEY_ENV = `LOOM_TEST_OPENAI_KEY_${randomBytes(3).toString('hex').toUpperCase()}`;
  let srv: FakeOpenAIServer;
  beforeAll(async () => { process.env[KEY_ENV] = `sk-test-${randomBytes(8).toString('hex')}`; srv = await startFakeOpenAI(); });
  afterAll(async () => { await srv?.close(); delete process.env[KEY_ENV]; });

  test('the selection model receives the task and the transcript with placeholders, never the raw email, phone or name', async () => {
    const EMAIL = 'maria.lopez@example.com';
    const PHONE = '+1 415 555 0134';
    const b = llmTeam('llm-pii', { turns: [] }, { Termination: { Type: 'maxiterations', MaxIterations: 2 } }, TEAM);
    const root = b.agents['llm-pii'];
    root.policies = { ...root.policies, pii_redaction: true, runtime_pass: true };
    (root.orchestration!.pattern as StrategiesPattern & { models: Record<string, unknown> }).models['selector-mini'] = {
      model_id: 'selector-mini', version: '1.0.0', status: 'active', provider: 'openai', supports_tools: false,
      openai: { base_url: srv.baseUrl, model: 'gpt-fake-1', api_key_env: KEY_ENV, request_timeout_seconds: 10 },
    };
    srv.enqueue(reply('Planner'), reply('Developer'));
    const wf = await h.start(b, `Hi, my name is Maria Lopez. Mail ${EMAIL} or call ${PHONE} about the login page.`);
    const res = (await wf.result()) as AgentRunResult;
    expect(await members(wf.workflowId)).toEqual(['turn-1-Planner', 'turn-2-Developer']);
    expect(res.output).toContain(EMAIL); // members run under their own policies (none here)
    const sent = srv.requests.map((r) => JSON.stringify(r.body.messages));
    expect(sent).toHaveLength(2);
    for (const s of sent) {
      expect(s).toContain('my name is [PERSON]. Mail [EMAIL] or call [PHONE]');
      for (const raw of [EMAIL, PHONE, 'Maria Lopez']) expect(s).not.toContain(raw);
    }
    expect(sent[1]).toContain('[Planner]: plan for: Hi, my name is [PERSON]'); // the transcript too
  }, 180_000);
});

describe('the llm-selection example under examples/strategies runs offline', () => {
  test('llm-team: the selection model picks Planner, Developer, then CodeReviewer, whose APPROVED ends it', async () => {
    const { bundle: compiled, diagnostics } = compileBundle(path.resolve(__dirname, '..', '..', 'examples', 'strategies', 'llm-selection'), 'llm-team');
    expect(diagnostics).toEqual([]);
    const wf = await h.start(compiled!, compiled!.agents['llm-team'].interface.input.examples![0]);
    expect(((await wf.result()) as AgentRunResult).output).toBe('APPROVED');
    expect((await members(wf.workflowId)).sort()).toEqual(['turn-1-Planner', 'turn-2-Developer', 'turn-3-CodeReviewer']);
  }, 180_000);
});
