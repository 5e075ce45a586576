/**
 * Memory in an orchestrator's root run (issue 12.4; decision 271) on the dev server: an
 * agf.sequential run writes its final output back to the actor's collection; the next run of the
 * same actor recalls it, and its first member's exact model input (a fake OpenAI server records
 * it) is the task with the `# Memory` block appended; another actor's run is given the bare task.
 * An agf.parallel run gives every branch the block, and its writeback with `approval_required`
 * waits in the run's approval book (status, `loom inbox`) until `loom approve` writes it or
 * `loom reject` leaves a warning. An orchestrator declaring no memory records no patch marker and
 * schedules no memory activity. Also: agf.loop across continue-as-new (read once, written back
 * once), a JSON task (member context) and agf.batch (the run warns that no member got the block),
 * a routing strategy (every turn's first message), `scope: session` emptied at the end and the
 * approval timeout.
 */
import { randomBytes } from 'crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { MemoryStore } from '../../src/activities/memory';
import type { CompiledAgent, CompiledCollection, CompiledModel, JsonValue } from '../../src/compiled/types';
import type { AgentRunResult, RunOptions } from '../../src/shared/contract';
import { openStore } from '../../src/store';
import { WORKFLOW_TYPES, workflowTypeFor } from '../../src/shared/dispatch';
import { scriptedTeam } from '../strategies/team';
import { storeBundle } from '../../src/activities/blob-store';
import { agent, answers, bundle, byInput, locals } from '../orchestration/builders';
import { scheduledActivities } from '../runtime/harness';
import { startCliHarness, statusWhen, until, CliHarness, useBuiltCli } from '../cli/harness';
import { FakeOpenAIServer, reply, startFakeOpenAI } from '../helpers/openai-server';

const KEY_ENV = `LOOM_TEST_OPENAI_KEY_${randomBytes(3).toString('hex').toUpperCase()}`;
let h: CliHarness;
let srv: FakeOpenAIServer;
// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => {
  process.env[KEY_ENV] = `sk-test-${randomBytes(8).toString('hex')}`;
  srv = await startFakeOpenAI();
  h = await startCliHarness('orch-memory');
});
afterAll(async () => {
  await h?.close();
  await srv?.close();
  delete process.env[KEY_ENV];
});

const collection = (id: string, writeback: CompiledCollection['writeback']): CompiledCollection => ({
  collection_id: id, version: '1.0.0', status: 'active', scope: 'project', backend: { type: 'memory', namespace: `${id}/{actorId}` }, writeback,
});
const mem = () => new MemoryStore(openStore());

function withMemory(a: CompiledAgent, read: CompiledCollection[], write: CompiledCollection[]): CompiledAgent {
  return { ...a, memory: { mode: 'project', read_collections: read, write_collections: write } };
}

async function start(agents: CompiledAgent[], root: string, input: JsonValue, options: RunOptions = {}) {
  const ref = await storeBundle(openStore(), bundle(root, agents));
  return h.t.client.workflow.start(WORKFLOW_TYPES[agents.find((a) => a.agent_id === root)!.execution_policy.id as 'agf.sequential'], {
    taskQueue: h.taskQueue, workflowId: `${root}-${randomBytes(4).toString('hex')}`, args: [{ bundle: ref, agent_id: root, input, options }],
  });
}

/** The sequential team: `scout` answers through the fake OpenAI server (its model input is recorded), `writer` is scripted. */
function sequentialTeam(facts: CompiledCollection, memory: boolean): CompiledAgent[] {
  const scout = agent({ id: 'scout' });
  const openai: CompiledModel = { model_id: 'oa-scout', version: '1.0.0', status: 'active', provider: 'openai', openai: { base_url: srv.baseUrl, model: 'gpt-fake-1', api_key_env: KEY_ENV, request_timeout_seconds: 10 }, supports_tools: true };
  scout.runtime = { ...scout.runtime, model: openai };
  const writer = agent({ id: 'writer', model: answers('Ada likes Porto trips by train') });
  const root = agent({ id: 'trip-team', policy: { id: 'agf.sequential', config: { steps: [{ agent: 'scout' }, { agent: 'writer' }] } }, local_agents: locals('scout', 'writer') });
  return [memory ? withMemory(root, [facts], [facts]) : root, scout, writer];
}

/** The patch ids a run recorded (core_patch markers, decoded). */
async function patchIds(run: WorkflowHandle): Promise<string[]> {
  const events = (await run.fetchHistory()).events ?? [];
  return events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')
    .map((e) => (JSON.parse(Buffer.from(e.markerRecordedEventAttributes!.details!['patch-data']!.payloads![0].data ?? []).toString('utf8')) as { id: string }).id);
}

/** The user message the fake server got for request `i`. */
const userMessage = (i: number) => srv.requests[i].body.messages!.filter((m) => m.role === 'user').map((m) => m.content);

test('sequential: a run writes back its final output; the next run of the actor recalls it in the first member\'s model input; another actor gets the bare task', async () => {
  const facts = collection('trip-facts', { enabled: true, strategy: 'output', approval_required: false });
  srv.enqueue(reply('scouted'), reply('scouted again'), reply('scouted for bob'));
  const first = await start(sequentialTeam(facts, true), 'trip-team', 'Plan a Porto trip', { actor_id: 'ada' });
  const r1: AgentRunResult = await first.result();
  expect(r1.output).toBe('Ada likes Porto trips by train');
  expect(userMessage(0)).toEqual(['Plan a Porto trip']);
  expect((await mem().list('trip-facts', 'trip-facts/ada')).map((e) => [e.text, e.source])).toEqual([['Ada likes Porto trips by train', { session_id: first.workflowId, message: 1, agent_id: 'trip-team' }]]);
  expect((await scheduledActivities(first)).filter((a) => a.startsWith('memory'))).toEqual(['memoryRead', 'memoryWriteback']);
  expect(await patchIds(first)).toContain('memory-orchestrator');

  const second = await start(sequentialTeam(facts, true), 'trip-team', 'Another Porto trip, please', { actor_id: 'ada' });
  await second.result();
  expect(userMessage(1)).toEqual(['Another Porto trip, please\n\n# Memory\n## trip-facts\n- Ada likes Porto trips by train']);

  const bob = await start(sequentialTeam(facts, true), 'trip-team', 'Another Porto trip, please', { actor_id: 'bob' });
  await bob.result();
  expect(userMessage(2)).toEqual(['Another Porto trip, please']);
  expect((await mem().list('trip-facts', 'trip-facts/bob')).map((e) => e.text)).toEqual(['Ada likes Porto trips by train']);
}, 90_000);

test('an orchestrator that declares no memory records no memory-orchestrator marker and schedules no memory activity', async () => {
  srv.enqueue(reply('scouted plain'));
  const run = await start(sequentialTeam(collection('unused', { enabled: false }), false), 'trip-team', 'Plan a Porto trip', { actor_id: 'ada' });
  await run.result();
  expect((await scheduledActivities(run)).filter((a) => a.startsWith('memory'))).toEqual([]);
  expect(await patchIds(run)).not.toContain('memory-orchestrator');
}, 60_000);

test('parallel: every branch is given the recalled block; a writeback with approval_required waits in the run (status, loom inbox); approve writes it, reject warns', async () => {
  const notes = collection('par-notes', { enabled: true, strategy: 'output', approval_required: true });
  const branch = (id: string) => agent({ id, model: byInput([{ contains: '- east and west agree on tea', reply: { content: `${id} recalled tea` } }], { content: `${id} found nothing` }) });
  const team = () => [
    withMemory(agent({ id: 'par-team', policy: { id: 'agf.parallel', config: { agents: [{ agent: 'east' }, { agent: 'west' }], output_from: 'merge' } }, local_agents: locals('east', 'west') }), [notes], [notes]),
    branch('east'), branch('west'),
  ];
  await mem().add('par-notes', 'par-notes/cy', { id: 'sha256:seed', text: 'east and west agree on tea', at: '2026-01-01T00:00:00.000Z', source: { session_id: 'seed', message: 1, agent_id: 'seed' } });
  const run = await start(team(), 'par-team', 'What do east and west drink? Tea?', { actor_id: 'cy' });
  const st = await statusWhen(h, run.workflowId, 'the writeback to wait for approval', (s) => s.pending_approvals.length === 1);
  expect(st.state).toBe('waiting_for_approval');
  expect(st.pending_approvals).toMatchObject([{ call_id: 'memory-1-par-notes', tool: 'memory_writeback', arguments: { collection: 'par-notes', namespace: 'par-notes/cy' }, reason: 'collection par-notes has writeback.approval_required: true' }]);
  const text = (st.pending_approvals[0].arguments as { text: string }).text;
  expect(text).toContain('east recalled tea');
  expect(text).toContain('west recalled tea');
  const inbox = await until('loom inbox to list the writeback', async () => {
    const r = await h.loom(['inbox']);
    return r.out.includes('memory-1-par-notes') && r.out.includes(run.workflowId) ? r : undefined;
  });
  expect(inbox.code).toBe(0);
  expect((await mem().list('par-notes', 'par-notes/cy')).map((e) => e.text)).toEqual(['east and west agree on tea']);
  const ok = await h.loom(['approve', run.workflowId, 'memory-1-par-notes']);
  expect([ok.code, ok.err]).toEqual([0, '']);
  const r: AgentRunResult = await run.result();
  expect(r.warnings).toEqual([]);
  expect((await mem().list('par-notes', 'par-notes/cy')).map((e) => e.text)).toEqual(['east and west agree on tea', text]);
  expect((await scheduledActivities(run)).filter((a) => a.startsWith('memory'))).toEqual(['memoryRead', 'memoryWriteback', 'memoryWrite']);

  const second = await start(team(), 'par-team', 'Coffee for the north?', { actor_id: 'dee' });
  await statusWhen(h, second.workflowId, 'the second writeback to wait', (s) => s.pending_approvals.length === 1);
  const no = await h.loom(['reject', second.workflowId, 'memory-1-par-notes', '--reason', 'not worth keeping']);
  expect(no.code).toBe(0);
  expect((await second.result()).warnings).toEqual(['memory writeback memory-1-par-notes to par-notes not written: rejected by cli-test (not worth keeping)']);
  expect(await mem().list('par-notes', 'par-notes/dee')).toEqual([]);
}, 120_000);

test('agf.loop continuing-as-new: memory is read by the first execution and written back by the last (carried.memory)', async () => {
  const notes = collection('loop-notes', { enabled: true, strategy: 'exchange', approval_required: false });
  await mem().add('loop-notes', 'loop-notes/gus', { id: 'sha256:loopseed', text: 'gus counts sheep', at: '2026-01-01T00:00:00.000Z', source: { session_id: 'seed', message: 1, agent_id: 'seed' } });
  const counter = agent({ id: 'counter', model: byInput([{ contains: '- gus counts sheep', reply: { content: 'one sheep' } }], { content: 'two sheep' }) });
  const root = withMemory(agent({ id: 'looper', policy: { id: 'agf.loop', config: { steps: [{ agent: 'counter' }], max_iterations: 2, output_from: 'counter' } }, local_agents: locals('counter') }), [notes], [notes]);
  const run = await start([root, counter], 'looper', 'count sheep', { actor_id: 'gus', scale: { loop_history_events: 1 } });
  const r: AgentRunResult = await run.result();
  expect(r.output).toBe('two sheep');
  expect((await run.describe()).runId).not.toBe(run.firstExecutionRunId);
  const firstRun = h.t.client.workflow.getHandle(run.workflowId, run.firstExecutionRunId);
  expect((await scheduledActivities(firstRun)).filter((a) => a.startsWith('memory'))).toEqual(['memoryRead']);
  expect((await scheduledActivities(run)).filter((a) => a.startsWith('memory'))).toEqual(['memoryWriteback']);
  // The writeback's message is the input as searched (before the block), the answer the last execution's output.
  expect((await mem().list('loop-notes', 'loop-notes/gus')).map((e) => e.text)).toEqual(['gus counts sheep', 'user: count sheep\nassistant: two sheep']);
}, 60_000);

test('a JSON task: the member given the task itself gets the block as context; agf.batch members (items) never get it, and the run says so', async () => {
  const prefs = collection('json-prefs', { enabled: false });
  await mem().add('json-prefs', 'json-prefs/hal', { id: 'sha256:jsonseed', text: 'hal likes green tea', at: '2026-01-01T00:00:00.000Z', source: { session_id: 'seed', message: 1, agent_id: 'seed' } });
  const barista = agent({ id: 'barista', model: { rules: [{ when: { last_message_contains: 'hal likes green tea' }, reply: { content: 'green tea it is' } }], turns: [{ content: 'some drink' }] } });
  const seq = withMemory(agent({ id: 'json-team', policy: { id: 'agf.sequential', config: { steps: [{ agent: 'barista' }] } }, local_agents: locals('barista') }), [prefs], []);
  const run = await start([seq, barista], 'json-team', { order: 'which green tea?' }, { actor_id: 'hal' });
  const r: AgentRunResult = await run.result();
  expect(r.output).toBe('green tea it is');
  expect(r.warnings).toEqual([]);

  const batch = withMemory(agent({ id: 'tea-batch', policy: { id: 'agf.batch', config: { agent: 'barista', input_mapping: { item: 'parent.input.items.[]' } } }, local_agents: locals('barista') }), [prefs], []);
  const b = await start([batch, barista], 'tea-batch', { items: ['green tea?', 'black tea?'] }, { actor_id: 'hal' });
  const rb: AgentRunResult = await b.result();
  expect(rb.output).toEqual(['some drink', 'some drink']);
  expect(rb.warnings).toEqual(['memory: what read_collections recalled at the start of the run reached no member (no member was given the run\'s input)']);
}, 60_000);

test('a routing strategy (sequential): each turn\'s model-visible first message starts with the task and its block; the output is written back', async () => {
  const notes = collection('strat-notes', { enabled: true, strategy: 'output', approval_required: false });
  await mem().add('strat-notes', 'strat-notes/nia', { id: 'sha256:stratseed', text: 'nia prefers haiku poems', at: '2026-01-01T00:00:00.000Z', source: { session_id: 'seed', message: 1, agent_id: 'seed' } });
  const recalls = (who: string) => ({ rules: [{ when: { last_message_contains: '- nia prefers haiku poems' }, reply: { content: `${who}: a haiku` } }], turns: [{ content: `${who}: a sonnet` }] });
  const b = scriptedTeam('strat-mem', { Selection: { Type: 'sequential' } }, { First: recalls('first'), Second: recalls('second') });
  const root = b.agents['strat-mem'];
  b.agents['strat-mem'] = withMemory(root, [notes], [notes]);
  const ref = await storeBundle(openStore(), b);
  const run = await h.t.client.workflow.start(workflowTypeFor(b.agents['strat-mem'])!, {
    taskQueue: h.taskQueue, workflowId: `strat-mem-${randomBytes(4).toString('hex')}`, args: [{ bundle: ref, agent_id: 'strat-mem', input: 'write me poems', options: { actor_id: 'nia' } }],
  });
  const r: AgentRunResult = await run.result();
  expect(r.output).toBe('second: a haiku');
  expect(r.warnings).toEqual([]);
  expect((await mem().list('strat-notes', 'strat-notes/nia')).map((e) => e.text)).toEqual(['nia prefers haiku poems', 'second: a haiku']);
}, 60_000);

test('the run\'s own scope: session collections are emptied as it ends; an unanswered writeback is dropped after the approval timeout, with a warning', async () => {
  const scratch: CompiledCollection = { ...collection('orch-scratch', { enabled: true, strategy: 'output', approval_required: false }), scope: 'session', backend: { type: 'memory', namespace: 'orch-scratch/{sessionId}' } };
  const slow = collection('orch-slow', { enabled: true, strategy: 'output', approval_required: true });
  const root = agent({ id: 'scratch-team', policy: { id: 'agf.sequential', config: { steps: [{ agent: 'note' }] } }, local_agents: locals('note') });
  const team = [{ ...root, memory: { mode: 'session' as const, read_collections: [scratch], write_collections: [scratch, slow] } }, agent({ id: 'note', model: answers('noted') })];
  const run = await start(team, 'scratch-team', 'note this', { actor_id: 'ivy', approval_timeout_seconds: 1 });
  const r: AgentRunResult = await run.result();
  expect(r.warnings).toEqual(['memory writeback memory-1-orch-slow to orch-slow not written: no answer within 1 s']);
  expect((await scheduledActivities(run)).filter((a) => a.startsWith('memory'))).toEqual(['memoryRead', 'memoryWriteback', 'memoryEndSession']);
  expect(await mem().list('orch-scratch', `orch-scratch/${run.workflowId}`)).toEqual([]);
  expect(await mem().list('orch-slow', 'orch-slow/ivy')).toEqual([]);
  // With --session the session's collection is kept (the session has no end event here).
  const kept = await start(team, 'scratch-team', 'note this', { actor_id: 'ivy', session_id: 's-9', approval_timeout_seconds: 1 });
  await kept.result();
  expect((await mem().list('orch-scratch', 'orch-scratch/s-9')).map((e) => e.text)).toEqual(['noted']);
}, 60_000);
