/** agf.sequential / parallel / loop / batch / conditional / vendor on a real Temporal dev server. */
import type { ExecutionPolicy } from '../../src/compiled/types';
import type { AgentRunResult, RunStatus } from '../../src/shared/contract';
import { agent, answers, bundle, byInput, failingModel, locals } from './builders';
import { failureOf, Harness, startHarness, waitFor } from './harness';
import { childWorkflowIds, historyEvents, signalEventIds, waitForSettledHistory } from '../helpers/history';

let h: Harness;
beforeAll(async () => { h = await startHarness('orch-pol'); });
afterAll(async () => { await h?.close(); });

const orch = (id: string, policy: ExecutionPolicy, aliases: string[]) => agent({ id, policy, local_agents: locals(...aliases) });

test('agf.sequential maps writer.output into editor and returns output_from alias', async () => {
  const b = bundle('pipeline', [
    orch('pipeline', { id: 'agf.sequential', config: {
      steps: [
        { agent: 'writer', input_mapping: { topic: 'parent.input.topic' } },
        { agent: 'editor', input_mapping: { draft: 'writer.output.draft' } },
      ],
      output_from: 'editor',
    } }, ['writer', 'editor']),
    agent({ id: 'writer', model: byInput([{ contains: 'otters', reply: { content: { draft: 'DRAFT-ABOUT-OTTERS' } } }], { content: { draft: 'generic' } }) }),
    agent({ id: 'editor', model: byInput([{ contains: 'DRAFT-ABOUT-OTTERS', reply: { content: { final: 'edited otters' } } }], { content: { final: 'editor saw no draft' } }) }),
  ]);
  const wf = await h.start(b, { topic: 'otters' });
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toEqual({ final: 'edited otters' });
  expect(res.usage.total_tokens).toBeGreaterThan(0);
  const st = await wf.query<RunStatus>('status');
  expect(st).toMatchObject({ state: 'completed', pattern: 'agf.sequential' });
});

test('agf.parallel merge keys follow declaration order under reversed completion order', async () => {
  const b = bundle('experts', [
    orch('experts', { id: 'agf.parallel', config: {
      agents: [{ agent: 'food_expert', input_mapping: { mood: 'parent.input.mood' } }, { agent: 'movie_expert', input_mapping: { mood: 'parent.input.mood' } }],
      output_from: 'merge',
    } }, ['food_expert', 'movie_expert']),
    agent({ id: 'food_expert', model: answers({ recommendation: 'Sushi' }, 2500) }),
    agent({ id: 'movie_expert', model: answers({ recommendation: 'Inception' }, 0) }),
  ]);
  const wf = await h.start(b, { mood: 'happy' });
  const res = (await wf.result()) as AgentRunResult;
  expect(JSON.stringify(res.output)).toBe(JSON.stringify({ food_expert: { recommendation: 'Sushi' }, movie_expert: { recommendation: 'Inception' } }));
  // `first` is the first COMPLETED output (the fast movie expert).
  const b2 = { ...b, agents: { ...b.agents, experts: orch('experts', { id: 'agf.parallel', config: { agents: [{ agent: 'food_expert' }, { agent: 'movie_expert' }], output_from: 'first' } }, ['food_expert', 'movie_expert']) } };
  const res2 = (await (await h.start(b2, { mood: 'x' })).result()) as AgentRunResult;
  expect(res2.output).toEqual({ recommendation: 'Inception' });
});

test('agf.parallel with a custom_transform registered in the worker', async () => {
  const b = bundle('joined', [
    orch('joined', { id: 'agf.parallel', config: { agents: [{ agent: 'a' }, { agent: 'b' }], output_from: { custom_transform: 'agentloom.concat_text' } } }, ['a', 'b']),
    agent({ id: 'a', model: answers('alpha', 800) }),
    agent({ id: 'b', model: answers('beta') }),
  ]);
  const res = (await (await h.start(b, {})).result()) as AgentRunResult;
  expect(res.output).toBe('alpha\n\nbeta');
});

test('agf.loop ends by max_iterations with a warning and returns the last iteration', async () => {
  const b = bundle('refiner', [
    orch('refiner', { id: 'agf.loop', config: {
      // The writer sees its own previous draft (absent in iteration 1), so iteration k writes draft k.
      steps: [{ agent: 'writer', input_mapping: { topic: 'parent.input.topic', previous: 'writer.output.draft' } }, { agent: 'quality_checker', input_mapping: { draft: 'writer.output.draft' } }],
      max_iterations: 3,
      exit_condition: { args_match: { 'quality_checker.output.score': { gte: 0.8 } } },
      output_from: 'writer',
    } }, ['writer', 'quality_checker']),
    agent({ id: 'writer', model: byInput([
      { contains: 'draft-two', reply: { content: { draft: 'draft-three' } } },
      { contains: 'draft-one', reply: { content: { draft: 'draft-two' } } },
    ], { content: { draft: 'draft-one' } }) }),
    agent({ id: 'quality_checker', model: answers({ score: 0.5 }) }),
  ]);
  const wf = await h.start(b, { topic: 't' });
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toEqual({ draft: 'draft-three' });
  expect(res.warnings.join('\n')).toMatch(/max_iterations \(3\)/);
  const st = await wf.query<RunStatus>('status');
  expect(st.warnings.join('\n')).toMatch(/max_iterations/);
  expect(st.progress).toMatchObject({ iteration: 3, ended_by: 'max_iterations' });
});

test('agf.loop stops on exit_condition without a warning (merge keeps the final iteration)', async () => {
  const b = bundle('refiner2', [
    orch('refiner2', { id: 'agf.loop', config: {
      steps: [{ agent: 'writer' }, { agent: 'quality_checker' }],
      max_iterations: 5,
      exit_condition: [{ args_match: { 'quality_checker.output.score': { gte: 0.8 } } }, { args_match: { 'writer.output.done': true } }],
      output_from: 'merge',
    } }, ['writer', 'quality_checker']),
    // Iteration 1: first draft, low score with a note; iteration 2 (the writer reads the note): second draft, approved.
    agent({ id: 'writer', model: byInput([{ contains: 'revise', reply: { content: { draft: 'second' } } }], { content: { draft: 'first' } }) }),
    agent({ id: 'quality_checker', model: byInput([{ contains: 'second', reply: { content: { score: 0.95 } } }], { content: { score: 0.2, note: 'revise' } }) }),
  ]);
  const wf = await h.start(b, { topic: 'essay' });
  const res = (await wf.result()) as AgentRunResult;
  expect(JSON.stringify(res.output)).toBe(JSON.stringify({ writer: { draft: 'second' }, quality_checker: { score: 0.95 } }));
  expect(res.warnings).toEqual([]);
  expect((await wf.query<RunStatus>('status')).progress).toMatchObject({ iteration: 2, ended_by: 'exit_condition' });
});

test('agf.batch: one child per item, input order, one failing item reported without losing others', async () => {
  const b = bundle('batcher', [
    orch('batcher', { id: 'agf.batch', config: { agent: 'item_processor', input_mapping: { item: 'parent.input.items.[].value', job: 'parent.input.job' }, max_batch_count: 10, max_concurrency: 2 } }, ['item_processor']),
    agent({ id: 'item_processor', model: byInput([
      { contains: 'poison', reply: { error: { status: 400, message: 'cannot process poison' } } },
      { contains: 'first', reply: { content: 'did first' } },
      { contains: 'third', reply: { content: 'did third' } },
    ], { content: 'did other' }) }),
  ]);
  const wf = await h.start(b, { job: 'j', items: [{ value: 'first' }, { value: 'poison' }, { value: 'third' }, { value: 'fourth' }] });
  const res = (await wf.result()) as AgentRunResult & { item_errors?: { index: number; error: string }[] };
  expect(res.output).toEqual(['did first', null, 'did third', 'did other']);
  expect(res.item_errors).toEqual([{ index: 1, error: expect.stringMatching(/poison/) }]);
  expect(res.warnings.join('\n')).toMatch(/item 1 failed/);
  const st = await wf.query<RunStatus>('status');
  expect(st.progress).toMatchObject({ completed: 3, failed: 1, of: 4 });
  // max_batch_count
  const tooMany = await h.start(b, { job: 'j', items: Array.from({ length: 11 }, (_, i) => ({ value: `v${i}` })) });
  expect(await failureOf(tooMany)).toMatch(/exceed max_batch_count \(10\)/);
});

test('agf.conditional: first matching route, default_agent, and a clear failure without default', async () => {
  const routes = [
    { when: { args_match: { 'parent.input.language': { in: ['zh', 'ja', 'ko'] } } }, agent: 'cjk_translator', input_mapping: { text: 'parent.input.text' } },
    { when: { args_match: { 'parent.input.language': 'en' } }, agent: 'english_processor' },
  ];
  const members = [
    agent({ id: 'cjk_translator', model: answers('cjk') }),
    agent({ id: 'english_processor', model: answers('english') }),
    agent({ id: 'generic_handler', model: answers('generic') }),
  ];
  const withDefault = bundle('router', [orch('router', { id: 'agf.conditional', config: { routes, default_agent: 'generic_handler' } }, ['cjk_translator', 'english_processor', 'generic_handler']), ...members]);
  expect(((await (await h.start(withDefault, { language: 'ja', text: 'x' })).result()) as AgentRunResult).output).toBe('cjk');
  expect(((await (await h.start(withDefault, { language: 'en' })).result()) as AgentRunResult).output).toBe('english');
  expect(((await (await h.start(withDefault, { language: 'fr' })).result()) as AgentRunResult).output).toBe('generic');
  const noDefault = bundle('router2', [orch('router2', { id: 'agf.conditional', config: { routes } }, ['cjk_translator', 'english_processor']), ...members]);
  expect(await failureOf(await h.start(noDefault, { language: 'fr' }))).toMatch(/no route matched.*no default_agent/);
});

test('vendor policy: registered x-agentloom.fallback runs; an unknown policy fails naming its id', async () => {
  const b = bundle('fallback', [
    agent({ id: 'fallback', policy: { id: 'x-agentloom.fallback', config: {} }, local_agents: locals('broken', 'works') }),
    agent({ id: 'broken', model: failingModel('model down') }),
    agent({ id: 'works', model: answers('rescued') }),
  ]);
  const res = (await (await h.start(b, 'q')).result()) as AgentRunResult;
  expect(res.output).toBe('rescued');
  expect(res.warnings.join('\n')).toMatch(/1 agent\(s\) failed/);
  const unknown = bundle('mystery', [agent({ id: 'mystery', policy: { id: 'x-acme.mystery', config: {} } })]);
  expect(await failureOf(await h.start(unknown, 'q'))).toMatch(/x-acme\.mystery.*not implemented/);
  // A member whose standard policy the worker does not implement.
  const odd = bundle('seq-odd', [
    orch('seq-odd', { id: 'agf.sequential', config: { steps: [{ agent: 'odd' }] } }, ['odd']),
    agent({ id: 'odd', policy: { id: 'agf.telepathy', config: {} } as unknown as ExecutionPolicy }),
  ]);
  expect(await failureOf(await h.start(odd, 'q'))).toMatch(/agf\.telepathy/);
});

test('a closure of 50 agents with 40 KB of instructions each stays under the payload limit (claim check)', async () => {
  const big = 'Follow these rules carefully. '.repeat(1400); // ~42 KB
  const ids = Array.from({ length: 50 }, (_, i) => `member_${String(i).padStart(2, '0')}`);
  const members = ids.map((id) => ({ ...agent({ id, model: answers(`${id} ok`) }), instructions: `# Purpose\n${big}` }));
  const b = bundle('big-closure', [orch('big-closure', { id: 'agf.parallel', config: { agents: ids.map((a) => ({ agent: a })) } }, ids), ...members]);
  expect(JSON.stringify(b).length).toBeGreaterThan(2 * 1024 * 1024);
  const res = (await (await h.start(b, 'go')).result()) as AgentRunResult;
  expect(Object.keys(res.output as object)).toEqual(ids);
  expect((res.output as Record<string, string>).member_49).toBe('member_49 ok');
});

test('agf.loop without input_mapping: the first step gets the previous iteration\'s last output', async () => {
  const b = bundle('reviser', [
    orch('reviser', { id: 'agf.loop', config: {
      steps: [{ agent: 'writer' }, { agent: 'checker', input_mapping: { draft: 'writer.output.draft' } }],
      max_iterations: 4,
      exit_condition: { args_match: { 'checker.output.score': { gte: 0.8 } } },
      output_from: 'writer',
    } }, ['writer', 'checker']),
    agent({ id: 'writer', model: byInput([{ contains: 'too rough', reply: { content: { draft: 'tighter draft' } } }], { content: { draft: 'rough draft' } }) }),
    agent({ id: 'checker', model: byInput([{ contains: 'tighter', reply: { content: { score: 0.9 } } }], { content: { score: 0.2, feedback: 'too rough' } }) }),
  ]);
  const wf = await h.start(b, { topic: 't' });
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toEqual({ draft: 'tighter draft' });
  expect((await wf.query<RunStatus>('status')).progress).toMatchObject({ iteration: 2, ended_by: 'exit_condition' });
});

test('agf.batch larger than a shard runs as shard child workflows, results still in input order', async () => {
  const b = bundle('sharded', [
    orch('sharded', { id: 'agf.batch', config: { agent: 'item_processor', input_mapping: { item: 'parent.input.items.[].value' }, max_concurrency: 50 } }, ['item_processor']),
    agent({ id: 'item_processor', model: byInput([{ contains: 'poison', reply: { error: { status: 400, message: 'cannot process poison' } } }], { content: 'done {{input.item}}' }) }),
  ]);
  const items = Array.from({ length: 12 }, (_, i) => ({ value: i === 7 ? 'poison' : `v${i}` }));
  const id = `sharded-${Date.now()}`;
  const wf = await h.start(b, { items }, { id, options: { scale: { batch_shard_size: 5 } } });
  const res = (await wf.result()) as AgentRunResult & { item_errors?: { index: number; error: string }[] };
  expect(res.output).toEqual(items.map((it) => (it.value === 'poison' ? null : `done ${it.value}`)));
  expect(res.item_errors).toEqual([{ index: 7, error: expect.stringMatching(/poison/) }]);
  for (const k of [0, 1, 2]) {
    const shard = await h.t.client.workflow.getHandle(`${id}/shard-${k}`).describe();
    expect(shard.status.name).toBe('COMPLETED');
  }
  await expect(h.t.client.workflow.getHandle(`${id}/shard-3`).describe()).rejects.toThrow(/not found/i);
  // The parent started 3 shard children, not 12 members.
  const hist = await wf.fetchHistory();
  expect((hist.events ?? []).filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).length).toBe(3);
});

test('agf.loop continues-as-new when its history passes the limit and keeps counting iterations', async () => {
  const b = bundle('long-loop', [
    orch('long-loop', { id: 'agf.loop', config: {
      steps: [{ agent: 'writer' }],
      max_iterations: 6,
      exit_condition: { args_match: { 'writer.output.never': true } },
      output_from: 'writer',
    } }, ['writer']),
    // No input_mapping: iteration k reads iteration k-1's draft `nK-1` (across continue-as-new too) and writes `nK`.
    agent({ id: 'writer', model: byInput([5, 4, 3, 2, 1].map((k) => ({ contains: `"n${k}"`, reply: { content: { draft: `n${k + 1}` } } })), { content: { draft: 'n1' } }) }),
  ]);
  const wf = await h.start(b, {}, { options: { scale: { loop_history_events: 20 } } });
  const res = (await wf.result()) as AgentRunResult;
  expect(res.warnings.join('\n')).toMatch(/max_iterations \(6\)/);
  expect((await wf.query<RunStatus>('status')).progress).toMatchObject({ iteration: 6, ended_by: 'max_iterations' });
  // The first execution ended by continue-as-new; the chain has more than one run.
  const first = await h.t.client.workflow.getHandle(wf.workflowId, wf.firstExecutionRunId).fetchHistory();
  const last = first.events![first.events!.length - 1];
  expect(last.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
  const current = await h.t.client.workflow.getHandle(wf.workflowId).describe();
  expect(current.runId).not.toBe(wf.firstExecutionRunId);
  expect(res.output).toEqual({ draft: 'n6' });
});

test('an unknown custom_transform fails the run through run.fail (status failed with the error)', async () => {
  const b = bundle('badtransform', [
    orch('badtransform', { id: 'agf.parallel', config: { agents: [{ agent: 'a' }], output_from: { custom_transform: 'acme.nope' } } }, ['a']),
    agent({ id: 'a', model: answers('alpha') }),
  ]);
  const wf = await h.start(b, {});
  expect(await failureOf(wf)).toMatch(/\[TransformFailed\] output_from custom_transform 'acme\.nope' failed: .*acme\.nope/);
  const st = await wf.query<RunStatus>('status');
  expect(st.state).toBe('failed');
  expect(st.error).toMatch(/custom_transform 'acme\.nope' failed/);
});

test('agf.loop keeps a pause across continue-as-new: no member starts until resume', async () => {
  const b = bundle('pause-loop', [
    orch('pause-loop', { id: 'agf.loop', config: { steps: [{ agent: 'writer' }], max_iterations: 3, output_from: 'writer' } }, ['writer']),
    agent({ id: 'writer', model: byInput([1, 2].map((k) => ({ contains: `"p${k}"`, reply: { content: { draft: `p${k + 1}` } } })), { content: { draft: 'p1' } }, 1500) }),
  ]);
  const wf = await h.start(b, {}, { options: { scale: { loop_history_events: 20 } } });
  const member = (k: number) => h.t.client.workflow.getHandle(`${wf.workflowId}/iter-${k}-step-1-writer`);
  await waitFor(async () => ((await member(1).describe()).status.name === 'RUNNING' ? true : undefined), 'iteration 1 to start');
  await wf.signal('pause');
  // Iteration 1 completes, the loop continues-as-new; the new run stays paused.
  const next = await waitFor(async () => {
    const d = await h.t.client.workflow.getHandle(wf.workflowId).describe();
    return d.runId !== wf.firstExecutionRunId ? d.runId : undefined;
  }, 'continue-as-new');
  // The new run has answered its start (its first workflow task completed, nothing scheduled):
  // an unpaused run would have started iteration 2 there.
  const nextRun = h.t.client.workflow.getHandle(wf.workflowId, next);
  const held = await waitForSettledHistory(nextRun, () => true, 'the continued run to hold its first workflow task');
  expect(childWorkflowIds(held)).toEqual([]);
  const st = await wf.query<RunStatus>('status');
  expect(st.state).toBe('paused');
  await expect(member(2).describe()).rejects.toThrow(/not found/i);
  await wf.signal('resume');
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toEqual({ draft: 'p3' });
  expect((await wf.query<RunStatus>('status')).state).toBe('completed');
  // Iteration 2 started in the continued run, after the resume was recorded there.
  const ev = await historyEvents(nextRun);
  const iter2 = ev.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId === member(2).workflowId);
  expect(iter2).toBeDefined();
  expect(Number(iter2!.eventId)).toBeGreaterThan(signalEventIds(ev, 'resume')[0]);
});
