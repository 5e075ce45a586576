/**
 * Routing-strategy member turns that are one model call run inline in the strategy's workflow
 * (patch `strategies-members-inline`): no child run, one transcript activity and one model
 * activity per turn, the conversation passed on as before; members that need a run of their own
 * (a tool, a deadline of their own, the handoff tool of keyword routing) keep their child.
 */
import type { CompiledAgent } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { agent as member, answers, byInput } from '../orchestration/builders';
import { builtinTool } from '../runtime/builders';
import { activityTypes, childWorkflowIds, historyEvents } from '../helpers/history';
import { patchMarkers } from '../compat/tree';
import { untimed } from '../compat/scenarios-strategies';
import { recordingHarness } from './dev-server';
import { strategiesTeam } from './team';

const dev = recordingHarness('strat-inline');

const count = (xs: string[], x: string): number => xs.filter((y) => y === x).length;
const roundRobin = (n: number) => ({ Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: n } });

/** A tool-less member without a deadline that says `seen` once the transcript holds `contains`, else `blind`. */
const sees = (id: string, contains: string, seen: string, blind: string): CompiledAgent =>
  untimed(member({ id, model: byInput([{ contains, reply: { content: seen } }], { content: blind }) }));

test('a roundrobin of one-model-call members runs with no child: one transcript and one model activity per turn', async () => {
  const b = strategiesTeam('inl-rr', roundRobin(6), {
    A: sees('inl-a', '[C]\nc saw b', 'a saw c', 'a first'),
    B: sees('inl-b', '[A]\na first', 'b saw a', 'b blind'),
    C: sees('inl-c', '[B]\nb saw a', 'c saw b', 'c blind'),
  });
  const wf = await dev.start(b, 'go');
  const res = (await wf.result()) as AgentRunResult;
  // Turn 6 is C's second turn: it still sees B's turn 5 in the shared transcript.
  expect(res.output).toBe('c saw b');
  expect(res.usage.total_tokens).toBeGreaterThan(0);
  const events = await historyEvents(wf);
  expect(childWorkflowIds(events)).toEqual([]);
  const acts = activityTypes(events);
  expect(count(acts, 'modelTurn')).toBe(6);
  expect(count(acts, 'strategyMemberInputs')).toBe(6);
  expect(patchMarkers({ events })).toContain('strategies-members-inline');
}, 120_000);

test('a member with a tool or a deadline of its own keeps its child; the others run inline', async () => {
  const tooled = untimed(member({ id: 'mix-b', model: { turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'x' } }] }, { content: 'b used echo' }] } }));
  tooled.tools = { ...tooled.tools, refs: [builtinTool('echo')] };
  const b = strategiesTeam('inl-mix', roundRobin(3), {
    A: untimed(member({ id: 'mix-a', model: answers('a speaks') })),
    B: tooled,
    // The builders give a react agent runtime.timeout_seconds 60: a deadline needs the child's own run.
    C: member({ id: 'mix-c', model: byInput([{ contains: '[B]\nb used echo', reply: { content: 'c saw b' } }], { content: 'c blind' }) }),
  });
  const wf = await dev.start(b, 'go');
  expect(((await wf.result()) as AgentRunResult).output).toBe('c saw b');
  const events = await historyEvents(wf);
  expect(childWorkflowIds(events)).toEqual([`${wf.workflowId}/turn-2-B`, `${wf.workflowId}/turn-3-C`]);
  expect(count(activityTypes(events), 'modelTurn')).toBe(1);
}, 120_000);

test('keyword routing keeps every speaker a child (its handoff tool needs the react loop)', async () => {
  const b = strategiesTeam('inl-kw', {
    Selection: { Type: 'keyword', Routes: [{ Keyword: 'CHECK IT', Agent: 'Checker', SourceAgents: ['Writer'] }] },
    Termination: { Type: 'maxiterations', MaxIterations: 2 },
  }, {
    Writer: untimed(member({ id: 'kw-w', model: answers('Draft.\nCHECK IT') })),
    Checker: untimed(member({ id: 'kw-c', model: answers('checked') })),
  });
  const wf = await dev.start(b, 'write');
  expect(((await wf.result()) as AgentRunResult).output).toBe('checked');
  const events = await historyEvents(wf);
  expect(childWorkflowIds(events)).toEqual([`${wf.workflowId}/turn-1-Writer`, `${wf.workflowId}/turn-2-Checker`]);
  expect(count(activityTypes(events), 'modelTurn')).toBe(0);
}, 120_000);

test('an inline member whose answer its output schema refuses fails the run with the child run\'s reason, named by agent', async () => {
  const b = strategiesTeam('inl-fail', roundRobin(2), {
    A: untimed(member({ id: 'fail-a', model: answers('not json'), output_schema: { type: 'object', required: ['verdict'] } })),
    B: untimed(member({ id: 'fail-b', model: answers('unused') })),
  });
  const wf = await dev.start(b, 'go');
  const err = await wf.result().then(() => undefined, (e: Error) => e);
  expect(String((err?.cause as Error | undefined)?.message)).toMatch(/^strategy agent 'A' \(fail-a\) failed: final answer rejected after a correction turn: /);
  const events = await historyEvents(wf);
  expect(childWorkflowIds(events)).toEqual([]);
  // The first answer and the correction turn, then nothing more.
  expect(count(activityTypes(events), 'modelTurn')).toBe(2);
}, 120_000);

// Last in the file: every run above (its latest execution) replays deterministically on this code.
test('every run of this file replays without nondeterminism', async () => {
  expect(dev.started.length).toBe(4);
  const outcomes = await dev.replayStarted();
  expect(outcomes.filter((o) => o.error)).toEqual([]);
  expect(outcomes).toHaveLength(dev.started.length);
}, 120_000);
