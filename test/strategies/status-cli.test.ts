/**
 * `loom status ID` for the phase strategies, as a user runs it (`node bin/loom.js status …` against
 * the dev server): strategy, phase, round and participants in words (src/strategies/status.ts) for a
 * magentic run waiting on plan review and then done, and for finished scatter-gather, map-reduce,
 * adversarial and llm runs.
 */
import { randomUUID } from 'crypto';
import type { CompiledBundle, ScriptedModelConfig, ScriptedReply, StrategiesPattern } from '../../src/compiled/types';
import type { RunAgentInput } from '../../src/shared/contract';
import { SEARCH_ATTRIBUTES } from '../../src/shared/contract';
import { patternOf, workflowTypeFor } from '../../src/shared/dispatch';
import { approveUpdate } from '../../src/shared/definitions';
import { agent, answers, bundle, scriptedModel, store } from '../orchestration/builders';
import { CliHarness, startCliHarness, statusWhen, useBuiltCli } from '../cli/harness';
import { builtinTool } from '../runtime/builders';
import { scriptedTeam } from './team';

let h: CliHarness;
// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => { h = await startCliHarness('strat-status'); });
afterAll(async () => h?.close());

const say = (content: string): ScriptedReply => ({ content });
const json = (v: unknown): ScriptedReply => say(JSON.stringify(v));

async function start(b: CompiledBundle, input: string): Promise<string> {
  const args: RunAgentInput = { bundle: await store(b), agent_id: b.root, input };
  const id = `strat-status-${b.root}-${randomUUID().slice(0, 8)}`;
  await h.t.client.workflow.start(workflowTypeFor(b.agents[b.root])!, {
    taskQueue: h.taskQueue, workflowId: id, args: [args],
    searchAttributes: { [SEARCH_ATTRIBUTES.agentId]: [b.root], [SEARCH_ATTRIBUTES.pattern]: [patternOf(b.agents[b.root])], [SEARCH_ATTRIBUTES.status]: ['running'] },
  });
  return id;
}

/** `loom status ID` once the run is done: its strategy lines (between the counters and the raw progress). */
async function statusOf(id: string): Promise<string> {
  await h.handle(id).result();
  const st = await h.loom(['status', id]);
  expect(st.code).toBe(0);
  return st.out;
}

test('magentic: waiting on plan review shows phase plan-review, round 0 of MaxRoundCount and the participants; done shows the round it stopped in', async () => {
  const manager: ScriptedModelConfig = {
    rules: [
      { when: { last_message_contains: 'magentic_orientation' }, reply: json({ task_summary: 't', facts: 'f', plan: 'Developer builds', next_step: 'build', completion_check: 'built' }) },
      { when: { last_message_contains: '[Developer]: built' }, reply: json({ task_complete: true, stalling: false, facts: 'built', reason: 'built' }) },
      { when: { last_message_contains: 'magentic_ledger_update' }, reply: json({ task_complete: false, stalling: false, facts: 'f', reason: 'starting' }) },
      { when: { last_message_contains: 'magentic_select_speaker' }, reply: json({ next_speaker: 'Developer', instruction: 'Build it.' }) },
    ],
  };
  const pattern = {
    type: 'strategies',
    agents: [{ name: 'Developer', agent_id: 'st-developer' }, { name: 'CodeReviewer', agent_id: 'st-codereviewer' }],
    config: { Selection: { Type: 'magentic', Magentic: { Model: { ModelId: 'manager' }, EnablePlanReview: true, MaxRoundCount: 5 } } },
    models: { manager: scriptedModel(manager, 'manager') },
  } as StrategiesPattern;
  const b = bundle('st-magentic', [agent({ id: 'st-magentic', model: answers('orchestrator'), pattern }), agent({ id: 'st-developer', model: answers('built') }), agent({ id: 'st-codereviewer', model: answers('LGTM') })]);
  const id = await start(b, 'build it');
  await statusWhen(h, id, 'the plan review', (s) => s.pending_approvals?.[0]?.call_id === 'plan-1');
  const waiting = await h.loom(['status', id]);
  expect(waiting.code).toBe(0);
  expect(waiting.out).toContain('\nstrategy: magentic  phase: plan-review  round 0 of 5\nparticipants: Developer, CodeReviewer\n');
  await h.handle(id).executeUpdate(approveUpdate, { args: [{ call_id: 'plan-1' }] });
  const done = await statusOf(id);
  expect(done).toContain('\nstrategy: magentic  phase: done  round 2 of 5\nparticipants: Developer, CodeReviewer\nstalls 0  resets 0\nstopped: complete: the manager\'s ledger says the task is complete (built)\n');
});

test('the Web UI\'s Current Details of a scatter-gather waiting on a participant\'s tool approval names the round and participants', async () => {
  const careful = agent({ id: 'cd-careful', model: { turns: [{ tool_calls: [{ id: 'cd-c1', name: 'arithmetic', arguments: { a: 2, b: 3, op: 'add' } }] }, { content: 'sum {{last_tool_result}}' }] } });
  careful.tools = { ...careful.tools, refs: [builtinTool('arithmetic', { approval_required: true })] };
  const pattern: StrategiesPattern = {
    type: 'strategies', agents: [{ name: 'Careful', agent_id: 'cd-careful' }, { name: 'Lead', agent_id: 'cd-lead' }],
    config: { Selection: { Type: 'scattergather', ScatterGather: { Participants: ['Careful'], Synthesizer: 'Lead' } } } as unknown as StrategiesPattern['config'],
  };
  const id = await start(bundle('cd-sg', [agent({ id: 'cd-sg', model: answers('orchestrator'), pattern }), careful, agent({ id: 'cd-lead', model: answers('verdict') })]), 'add them');
  await statusWhen(h, id, 'the participant\'s approval at the root', (s) => s.pending_decisions?.length === 1);
  const md = (await h.handle(id).query('__temporal_workflow_metadata')) as { currentDetails?: string };
  expect(md.currentDetails).toContain('scattergather scatter: Careful (at most 1 at once) (round 1 of 1 (single pass); participants: Careful)');
  const st = await h.loom(['status', id]);
  expect(st.out).toContain('\nstrategy: scattergather  phase: scatter  round 1 of 1 (single pass)\nparticipants: Careful\ncompleted 0 of 1  max concurrency unlimited\n');
  expect((await h.loom(['approve', id, 'cd-c1'])).code).toBe(0);
  expect(await statusOf(id)).toContain('\nstopped: complete: Lead gave the terminal output\n');
});

test('scattergather, mapreduce, adversarial and llm: phase, round and participants of a finished run', async () => {
  const sg = await start(scriptedTeam('st-sg', { Selection: { Type: 'scattergather', ScatterGather: { Participants: ['Legal', 'Tech'], Synthesizer: 'Lead', MaxConcurrency: 1 } } }, {
    Legal: answers('legal ok'), Tech: answers('tech ok'), Lead: answers('verdict'),
  }, 'sg'), 'review it');
  const mr = await start(scriptedTeam('st-mr', { Selection: { Type: 'mapreduce', MapReduce: { Splitter: 'Splitter', Mapper: 'Mapper', Reducer: 'Reducer', ItemsJsonPath: 'items' } } }, {
    Splitter: answers('{"items": ["a", "b", "c"]}'), Mapper: answers('mapped'), Reducer: answers('reduced'),
  }, 'mr'), 'split it');
  const adv = await start(scriptedTeam('st-adv', { Selection: { Type: 'adversarial', Adversarial: { Rounds: 3, Stages: [{ Generator: 'Writer', Critic: 'Critic', Label: 'Draft' }] } } }, {
    Writer: answers('draft'), Critic: answers('APPROVED'),
  }, 'adv'), 'write it');
  const llmPattern = {
    type: 'strategies', agents: [{ name: 'A', agent_id: 'st-a' }, { name: 'B', agent_id: 'st-b' }],
    config: { Selection: { Type: 'llm', Model: { ModelId: 'sel' } }, Termination: { Type: 'maxiterations', MaxIterations: 2 } },
    models: { sel: scriptedModel({ turns: [say('A'), say('B')] }, 'sel') },
  } as StrategiesPattern;
  const llm = await start(bundle('st-llm', [agent({ id: 'st-llm', model: answers('orchestrator'), pattern: llmPattern }), agent({ id: 'st-a', model: answers('a') }), agent({ id: 'st-b', model: answers('b') })]), 'talk');

  expect(await statusOf(sg)).toContain('\nstrategy: scattergather  phase: gather  round 1 of 1 (single pass)\nparticipants: Legal, Tech  synthesizer: Lead\nstopped: complete: Lead gave the terminal output\n');
  expect(await statusOf(mr)).toContain('\nstrategy: mapreduce  phase: reduce  round 1 of 1 (single pass)\nparticipants: Splitter, Mapper, Reducer  reducer: Reducer\nitems 3\nstopped: complete: Reducer gave the terminal output\n');
  expect(await statusOf(adv)).toContain('\nstrategy: adversarial  phase: done\nparticipants: Writer, Critic\nstopped: complete: Writer gave the terminal output\n');
  expect(await statusOf(llm)).toContain('\nstrategy: llm  phase: done  turn 2\nparticipants: A, B  speaking: B\nstopped: terminated: ');
});
