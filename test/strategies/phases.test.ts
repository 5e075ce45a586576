/**
 * Seed 002 phase strategies on a real Temporal dev server (strategiesWorkflow with Selection.Type
 * scattergather, mapreduce, adversarial): every agent turn is a member run with a scripted model
 * (the critic of the firewall test talks to the local OpenAI-compatible server, which records the
 * exact request). Members that echo `{{message}}` (their one user message) show what they were given.
 */
import { randomBytes } from 'crypto';
import * as path from 'path';
import { compileBundle } from '../../src/compiler';
import type { ScriptedModelConfig, ScriptedReply } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { statusQuery } from '../../src/shared/definitions';
import { reducerInput, synthesizerInput, splitterCorrection } from '../../src/strategies/phases';
import { answers, byInput } from '../orchestration/builders';
import { failureOf } from '../orchestration/harness';
import { historyEvents, type HistoryEvent } from '../helpers/history';
import { builtinTool } from '../runtime/builders';
import { FakeOpenAIServer, reply, startFakeOpenAI } from '../helpers/openai-server';
import { recordingHarness } from './dev-server';
import { scriptedTeam as team } from './team';

const dev = recordingHarness('phases');
const { start, started } = dev;

const say = (content: string): ScriptedReply => ({ content });
const echo = (prefix: string, latency_ms = 0): ScriptedModelConfig => ({ turns: [say(`${prefix}{{message}}`)], latency_ms });

/** Test agents carry runtime.timeout_seconds, which keeps a member out of inline runs: drop it for the Mapper. */
function inlineMapper<B extends ReturnType<typeof team>>(b: B): B {
  delete b.agents['m-mapper'].runtime.timeout_seconds;
  return b;
}

/** Member runs of a run (child workflow ids without the parent prefix). */
async function members(wfId: string): Promise<string[]> {
  return dev.members(wfId);
}

/** The most member runs in flight at once, read from the parent's history (start initiated → closed). */
function maxInFlight(events: HistoryEvent[]): number {
  let now = 0;
  let max = 0;
  for (const e of events) {
    if (e.startChildWorkflowExecutionInitiatedEventAttributes) max = Math.max(max, ++now);
    if (e.childWorkflowExecutionCompletedEventAttributes || e.childWorkflowExecutionFailedEventAttributes) now--;
  }
  return max;
}

describe('scattergather', () => {
  test('every participant gets the task alone, at most MaxConcurrency at once; the synthesizer gets the labelled outputs', async () => {
    const b = team('sg-review', {
      Selection: { Type: 'scattergather', ScatterGather: { Participants: ['LegalReviewer', 'TechnicalReviewer', 'BusinessReviewer'], Synthesizer: 'LeadReviewer', MaxConcurrency: 2 } },
    }, {
      LegalReviewer: echo('legal view of: ', 300),
      TechnicalReviewer: echo('technical view of: ', 300),
      BusinessReviewer: echo('business view of: ', 300),
      LeadReviewer: echo(''),
    });
    const wf = await start(b, 'the vendor contract');
    const res = (await wf.result()) as AgentRunResult;
    expect(res.output).toBe(synthesizerInput('the vendor contract', [
      { agent: 'LegalReviewer', text: 'legal view of: the vendor contract' },
      { agent: 'TechnicalReviewer', text: 'technical view of: the vendor contract' },
      { agent: 'BusinessReviewer', text: 'business view of: the vendor contract' },
    ]));
    expect((await members(wf.workflowId)).sort()).toEqual(['gather-LeadReviewer', 'scatter-1-LegalReviewer', 'scatter-2-TechnicalReviewer', 'scatter-3-BusinessReviewer']);
    const ev = await historyEvents(wf);
    // Participants overlap (two at once) but never three; the synthesizer starts after all three closed.
    expect(maxInFlight(ev)).toBe(2);
    const st = await wf.query(statusQuery);
    expect(st.progress).toMatchObject({ strategy: 'scattergather', phase: 'gather', synthesizer: 'LeadReviewer', participants: ['LegalReviewer', 'TechnicalReviewer', 'BusinessReviewer'] });
  });

  test('MaxConcurrency 0 runs every participant at once', async () => {
    const b = team('sg-all', {
      Selection: { Type: 'scattergather', ScatterGather: { Participants: ['A', 'B', 'C'], Synthesizer: 'S' } },
    }, { A: echo('a:', 300), B: echo('b:', 300), C: echo('c:', 300), S: answers('merged') });
    const wf = await start(b, 'q');
    expect(((await wf.result()) as AgentRunResult).output).toBe('merged');
    expect(maxInFlight(await historyEvents(wf))).toBe(3);
  });
});

describe('mapreduce', () => {
  const splitter = byInput([{ contains: '# Correction', reply: say('Fixed:\n```json\n{"work": {"items": ["alpha", "beta", "gamma"]}}\n```') }], say('Sure, the items are alpha, beta and gamma.'));

  test('an unusable split is corrected; the mapper gets each item alone; the reducer gets the outputs in item order', async () => {
    const b = inlineMapper(team('mr-docs', {
      Selection: { Type: 'mapreduce', MapReduce: { Splitter: 'Splitter', Mapper: 'Mapper', Reducer: 'Reducer', ItemsJsonPath: 'work.items', MaxConcurrency: 2 } },
    }, { Splitter: splitter, Mapper: echo('summary of ', 100), Reducer: echo('') }));
    const wf = await start(b, 'summarise the docs');
    const res = (await wf.result()) as AgentRunResult;
    expect(res.output).toBe(reducerInput('summarise the docs', ['summary of alpha', 'summary of beta', 'summary of gamma']));
    expect(res.warnings).toEqual([expect.stringMatching(/^mapreduce: Splitter attempt 1 unusable \(the reply carries no JSON object/)]);
    // Mappers are single-turn members: they run inline (model activities of this run), not as child runs.
    expect((await members(wf.workflowId)).sort()).toEqual(['reduce-Reducer', 'split-1-Splitter', 'split-2-Splitter']);
    const st = await wf.query(statusQuery);
    expect(st.progress).toMatchObject({ strategy: 'mapreduce', phase: 'reduce', reducer: 'Reducer', items: 3 });
  });

  test('outputs stay in item order when the items finish in reverse order', async () => {
    const b = team('mr-reverse', {
      Selection: { Type: 'mapreduce', MapReduce: { Splitter: 'Splitter', Mapper: 'Mapper', Reducer: 'Reducer' } },
    }, {
      Splitter: answers('{"items": ["slow one", "medium one", "fast one"]}'),
      // The first item sleeps longest before answering, the second less, the third not at all.
      Mapper: {
        rules: [
          { when: { input_contains: 'slow', turn: 0 }, reply: { tool_calls: [{ name: 'sleep', arguments: { ms: 1500 } }] } },
          { when: { input_contains: 'medium', turn: 0 }, reply: { tool_calls: [{ name: 'sleep', arguments: { ms: 500 } }] } },
        ],
        turns: [say('mapped {{input}}')],
      },
      Reducer: echo(''),
    });
    b.agents['m-mapper'].tools.refs = [builtinTool('sleep')];
    const wf = await start(b, 'reverse');
    const res = (await wf.result()) as AgentRunResult;
    expect(res.output).toBe(reducerInput('reverse', ['mapped slow one', 'mapped medium one', 'mapped fast one']));
    const completed = (await historyEvents(wf))
      .map((e) => e.childWorkflowExecutionCompletedEventAttributes?.workflowExecution?.workflowId)
      .filter((id): id is string => !!id && /\/map-\d+$/.test(id))
      .map((id) => id.slice(wf.workflowId.length + 1));
    expect(completed).toEqual(['map-3', 'map-2', 'map-1']);
  });

  test('splitter retries exhausted: the run fails saying what was wrong and what to write', async () => {
    const b = team('mr-nosplit', {
      Selection: { Type: 'mapreduce', MapReduce: { Splitter: 'Splitter', Mapper: 'Mapper', Reducer: 'Reducer', MaxSplitterRetries: 1 } },
    }, { Splitter: byInput([{ contains: '# Correction', reply: say('["still", "bare"]') }], say('no idea')), Mapper: answers('m'), Reducer: answers('r') });
    const wf = await start(b, 'x');
    expect(await failureOf(wf)).toMatch(/\[SplitterFailed\] mapreduce: the Splitter Splitter gave no work list after 2 attempts \(1 \+ MaxSplitterRetries 1\): the reply is a bare JSON array; wrap it in an object with the array at "items"; instruct it to reply with a JSON object whose "items" field is an array/);
    expect((await members(wf.workflowId)).sort()).toEqual(['split-1-Splitter', 'split-2-Splitter']);
    // The retry carried the correction.
    expect(splitterCorrection('items', 'x')).toMatch(/"items" field/);
  });

  test('a work list over the shard size is mapped by shard child workflows; outputs stay in item order', async () => {
    const items = Array.from({ length: 10 }, (_, i) => `item-${i + 1}`);
    const b = inlineMapper(team('mr-shards', {
      Selection: { Type: 'mapreduce', MapReduce: { Splitter: 'Splitter', Mapper: 'Mapper', Reducer: 'Reducer', MaxConcurrency: 3 } },
    }, { Splitter: answers(JSON.stringify({ items })), Mapper: echo('done '), Reducer: echo('') }));
    const wf = await start(b, 'many', { options: { scale: { batch_shard_size: 4 } } });
    const res = (await wf.result()) as AgentRunResult;
    expect(res.output).toBe(reducerInput('many', items.map((i) => `done ${i}`)));
    expect((await members(wf.workflowId)).sort()).toEqual(['map-shard-1', 'map-shard-2', 'map-shard-3', 'reduce-Reducer', 'split-1-Splitter']);
  });
});

describe('adversarial', () => {
  test('early pass, a revision with the critique, exhaustion promoting the last reviewed artifact', async () => {
    const b = team('adv-pipeline', {
      Selection: {
        Type: 'adversarial',
        Adversarial: {
          Rounds: 2,
          Stages: [
            { Generator: 'Planner', Critic: 'PlanReviewer', Label: 'Planning' },
            { Generator: 'Developer', Critic: 'CodeReviewer', Label: 'Implementation' },
            { Generator: 'Writer', Critic: 'Editor' },
          ],
        },
      },
    }, {
      Planner: answers('PLAN v1'),
      PlanReviewer: byInput([{ contains: 'PLAN v1', reply: say('Clear and complete.\napproved') }], say('unexpected input')),
      Developer: byInput([{ contains: '# Critique from CodeReviewer\nno tests', reply: say('CODE v2 with tests') }], say('CODE v1')),
      CodeReviewer: byInput([{ contains: 'CODE v2', reply: say('**APPROVED**') }], say('no tests')),
      Writer: byInput([{ contains: '# Critique from Editor', reply: say('DOC v2') }], say('DOC v1')),
      Editor: answers('Not APPROVED yet: too long.'),
    });
    const wf = await start(b, 'ship feature X');
    const res = (await wf.result()) as AgentRunResult;
    expect(res.output).toBe('DOC v2');
    expect(res.warnings).toEqual(['adversarial stage 3 "Writer → Editor": Editor did not approve in 2 round(s) (no "APPROVED" line); the last reviewed artifact is promoted']);
    expect((await members(wf.workflowId)).sort()).toEqual([
      'stage-1-critique-1-PlanReviewer', 'stage-1-generate-1-Planner',
      'stage-2-critique-1-CodeReviewer', 'stage-2-critique-2-CodeReviewer', 'stage-2-generate-1-Developer', 'stage-2-generate-2-Developer',
      'stage-3-critique-1-Editor', 'stage-3-critique-2-Editor', 'stage-3-generate-1-Writer', 'stage-3-generate-2-Writer',
    ]);
    const st = await wf.query(statusQuery);
    expect(st.progress).toMatchObject({ strategy: 'adversarial', phase: 'done', outcomes: [
      { label: 'Planning', outcome: 'approved', rounds: 1 }, { label: 'Implementation', outcome: 'approved', rounds: 2 }, { label: 'Writer → Editor', outcome: 'exhausted', rounds: 2 },
    ] });
  });

  describe('context firewall', () => {
    const KEY_ENV = `LOOM_TEST_OPENAI_KEY_${randomBytes(3).toString('hex').toUpperCase()}`;
    let srv: FakeOpenAIServer;
    beforeAll(async () => { process.env[KEY_ENV] = `sk-test-${randomBytes(8).toString('hex')}`; srv = await startFakeOpenAI(); });
    afterAll(async () => { await srv?.close(); delete process.env[KEY_ENV]; });

    test("the critic's model input is its instructions and the artifact: no task, no earlier stage, no generator reasoning", async () => {
      const b = team('adv-firewall', {
        Selection: { Type: 'adversarial', Adversarial: { Stages: [{ Generator: 'Planner', Critic: 'PlanReviewer' }, { Generator: 'Developer', Critic: 'CodeReviewer' }] } },
      }, {
        Planner: answers('THE PLAN'),
        PlanReviewer: answers('APPROVED'),
        Developer: byInput([{ contains: '# Critique', reply: say('func main() { /* v2 */ }') }], say('func main() {}')),
        CodeReviewer: answers('unused: replaced by the openai model below'),
      });
      const critic = b.agents['m-codereviewer'];
      critic.instructions = '# Purpose\nYou review Go code. Reply APPROVED or list defects.';
      critic.runtime.model = { model_id: 'oa-critic', version: '1.0.0', status: 'active', provider: 'openai', openai: { base_url: srv.baseUrl, model: 'gpt-fake-1', api_key_env: KEY_ENV, request_timeout_seconds: 10 }, supports_tools: true };
      srv.enqueue(reply('main() has no error handling.'), reply('APPROVED'));
      const wf = await start(b, 'SECRET TASK: build a CLI');
      expect(((await wf.result()) as AgentRunResult).output).toBe('func main() { /* v2 */ }');
      expect(srv.requests.map((r) => (r.body.messages ?? []).map((m) => m.role))).toEqual([['system', 'user'], ['system', 'user']]);
      const [first, second] = srv.requests.map((r) => r.body.messages!);
      expect(first[1].content).toBe('func main() {}');
      expect(second[1].content).toBe('func main() { /* v2 */ }');
      expect(first[0].content).toContain('You review Go code.');
      for (const m of [...first, ...second]) {
        expect(m.content).not.toMatch(/SECRET TASK|THE PLAN|# Task|Critique|no error handling/);
      }
    });
  });
});

describe('the seed examples under examples/strategies run offline, unchanged', () => {
  const run = async (dir: string, root: string) => {
    const { bundle: compiled, diagnostics } = compileBundle(path.resolve(__dirname, '..', '..', 'examples', 'strategies', dir), root);
    expect(diagnostics).toEqual([]);
    const wf = await start(compiled!, compiled!.agents[root].interface.input.examples![0]);
    return { wf, res: (await wf.result()) as AgentRunResult };
  };
  test('scatter-gather: LegalReviewer, TechnicalReviewer, BusinessReviewer → LeadReviewer', async () => {
    const { res } = await run('scatter-gather', 'contract-review');
    expect(res.output).toBe('Verdict: renegotiate. Legal (no exit on SLA breach), Technical (TLS 1.0) and Business (99.5% SLA) agree the contract is not acceptable as written.');
  });
  test('map-reduce: Splitter → Mapper per item → Reducer', async () => {
    const { wf, res } = await run('map-reduce', 'release-notes');
    expect(res.output).toBe('v2.4 release notes\n- New: retry budget\n- New: dark mode\n- New: CSV export');
    expect((await members(wf.workflowId)).sort()).toEqual(['reduce-Reducer', 'split-1-Splitter']);
  });
  test('adversarial: Planner/PlanReviewer, then Developer/CodeReviewer with one revision', async () => {
    const { wf, res } = await run('adversarial', 'reviewed-build');
    expect(res.output).toBe('deploy.ts: if (flags.dryRun) { log(plan); return; } — deploy.test.ts covers dry-run and real upload.');
    expect((await members(wf.workflowId)).sort()).toEqual([
      'stage-1-critique-1-PlanReviewer', 'stage-1-generate-1-Planner',
      'stage-2-critique-1-CodeReviewer', 'stage-2-critique-2-CodeReviewer', 'stage-2-generate-1-Developer', 'stage-2-generate-2-Developer',
    ]);
  });
});

describe('replay', () => {
  test('every phase-strategy run of this file replays without nondeterminism', async () => {
    const outcomes = await dev.replayStarted();
    expect(outcomes.filter((o) => o.error)).toEqual([]);
    expect(outcomes).toHaveLength(started.length);
  });
});
