/**
 * Memory collections in single agf.react runs (`loom run`/`loom start`; issue 12.4) on the dev
 * server: a run reads the actor's collection at its start (the scripted model answers from the
 * memory text it was given; the history holds only a ref), writes back at its end per the
 * collection's writeback ({actorId}/{sessionId} substituted), and a writeback with
 * `approval_required` waits in the run's pending approvals until `loom approve`/`loom reject`.
 */
import { randomBytes } from 'crypto';
import { agfReactWorkflow } from '../../src/workflows/react';
import { storeBundle } from '../../src/activities/blob-store';
import { MemoryStore, memoryEntry } from '../../src/activities/memory';
import type { CompiledBundle, CompiledCollection } from '../../src/compiled/types';
import type { AgentRunResult, RunOptions } from '../../src/shared/contract';
import { approveUpdate, respondEscalationUpdate } from '../../src/shared/definitions';
import { openStore } from '../../src/store';
import { builtin, compileAgent, definition, scripted, type AgentDef, type Definition, type FrontMatter } from '../helpers/definitions';
import { scheduledActivities } from '../runtime/harness';
import { startCliHarness, statusWhen, until, CliHarness, useBuiltCli } from '../cli/harness';

let h: CliHarness;
// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => {
  h = await startCliHarness('react-memory');
});
afterAll(async () => {
  await h.close();
});

/** A memory collection definition (scope project unless `scope` says otherwise). */
const collection = (id: string, namespace: string, writeback: CompiledCollection['writeback'], scope = 'project'): Definition =>
  definition('collection', { collection_id: id, version: '1.0.0', status: 'active', description: `Memory ${id}.`, scope, backend: { type: 'memory', namespace }, writeback });
const idOf = (c: Definition): string => String(c.front.collection_id);

/** The model answers from the memory text when its input holds it. */
const model = scripted({
  rules: [{ when: { last_message_contains: 'prefers email contact' }, reply: { content: 'I will write to you by email' } }],
  turns: [{ content: 'How may I contact you?' }],
});

/**
 * Agent `id` reading and writing these collections, compiled from its definitions; `over` changes
 * the model, tools or other front matter (`front.memory` replaces the memory block).
 */
function memoryAgent(id: string, read: Definition[], write: Definition[], over: Partial<AgentDef> = {}): CompiledBundle {
  const collections = [...new Map([...read, ...write].map((c) => [idOf(c), c])).values()];
  const front: FrontMatter = { memory: { mode: 'project', read_collections: read.map(idOf), write_collections: write.map(idOf) }, ...(over.front ?? {}) };
  return compileAgent({ agent_id: id, model, ...over, others: [...collections, ...(over.others ?? [])], front }).bundle;
}

async function start(b: CompiledBundle, input: string, options: RunOptions = {}) {
  const bundle = await storeBundle(openStore(), b);
  const id = `${b.root}-${randomBytes(4).toString('hex')}`;
  return h.t.client.workflow.start(agfReactWorkflow, { taskQueue: h.taskQueue, workflowId: id, args: [{ bundle, agent_id: b.root, input, options }] });
}

const mem = () => new MemoryStore(openStore());
const compiledPolicies = (b: CompiledBundle) => b.agents[b.root].policies;

test('a run reads the actor\'s collection at its start: the model is given the entry (by ref, not in history); another actor gets nothing', async () => {
  const prefs = collection('prefs-ro', 'prefs-ro/{actorId}', { enabled: false });
  await mem().add('prefs-ro', 'prefs-ro/ada', memoryEntry('Ada prefers email contact', { session_id: 'seed', message: 1, agent_id: 'seed' }, '2026-01-01T00:00:00Z'));
  const a = memoryAgent('reader', [prefs], []);
  const ada = await start(a, 'Which contact channel should you use, email or phone?', { actor_id: 'ada' });
  expect((await ada.result()).output).toBe('I will write to you by email');
  expect(await scheduledActivities(ada)).toEqual(['loadAgent', 'memoryReadMessage', 'modelTurn']);
  // The memory text reached the model through the store: the run's history holds a ref only.
  expect(JSON.stringify((await ada.fetchHistory()).events)).not.toContain('prefers email contact');
  // Read-only collection: nothing is written back.
  expect((await mem().list('prefs-ro', 'prefs-ro/ada')).length).toBe(1);

  const bob = await start(a, 'Which contact channel should you use, email or phone?', { actor_id: 'bob' });
  expect((await bob.result()).output).toBe('How may I contact you?');
}, 60_000);

test('a run writes back at its end per the collection\'s strategy, {actorId}/{sessionId} substituted (session id: --session, else the run id)', async () => {
  const notes = collection('notes', 'notes/{actorId}/{sessionId}', { enabled: true, strategy: 'exchange', approval_required: false });
  const a = memoryAgent('writer', [], [notes]);
  const inSession = await start(a, 'Remember that I live in Porto', { actor_id: 'ada', session_id: 's-42' });
  const r: AgentRunResult = await inSession.result();
  expect(r.output).toBe('How may I contact you?');
  expect(r.warnings).toEqual([]);
  expect((await mem().list('notes', 'notes/ada/s-42')).map((e) => [e.text, e.source])).toEqual([
    ['user: Remember that I live in Porto\nassistant: How may I contact you?', { session_id: 's-42', message: 1, agent_id: 'writer' }],
  ]);
  expect(await scheduledActivities(inSession)).toEqual(['loadAgent', 'modelTurn', 'memoryWriteback']);
  // No actor given: `anonymous`; no session: the run's own workflow id.
  const alone = await start(a, 'Remember that I live in Braga');
  await alone.result();
  expect((await mem().list('notes', `notes/anonymous/${alone.workflowId}`)).map((e) => e.text)).toEqual(['user: Remember that I live in Braga\nassistant: How may I contact you?']);
}, 60_000);

test('a writeback with approval_required waits as a pending approval; `loom approve` writes it, `loom reject` leaves a warning', async () => {
  const prefs = collection('prefs', 'prefs/{actorId}', { enabled: true, strategy: 'output', approval_required: true });
  const a = memoryAgent('approver', [prefs], [prefs]);
  const run = await start(a, 'Please contact me by email', { actor_id: 'cy' });
  const st = await statusWhen(h, run.workflowId, 'the writeback to wait for approval', (s) => s.pending_approvals.length === 1);
  expect(st.state).toBe('waiting_for_approval');
  expect(st.pending_approvals).toMatchObject([{ call_id: 'memory-1-prefs', tool: 'memory_writeback', arguments: { collection: 'prefs', namespace: 'prefs/cy', text: 'How may I contact you?' }, reason: 'collection prefs has writeback.approval_required: true' }]);
  expect(await mem().list('prefs', 'prefs/cy')).toEqual([]);
  // Approved as extracted: corrected arguments are refused by the run.
  await expect(run.executeUpdate(approveUpdate, { args: [{ call_id: 'memory-1-prefs', args: { text: 'other' } }] })).rejects.toThrow();
  const ok = await h.loom(['approve', run.workflowId, 'memory-1-prefs']);
  expect(ok.err).toBe('');
  expect(ok.code).toBe(0);
  expect((await run.result()).output).toBe('How may I contact you?');
  expect((await mem().list('prefs', 'prefs/cy')).map((e) => e.text)).toEqual(['How may I contact you?']);
  expect(await scheduledActivities(run)).toEqual(['loadAgent', 'memoryReadMessage', 'modelTurn', 'memoryWriteback', 'memoryWrite']);

  const second = await start(a, 'Or by phone, whatever', { actor_id: 'dee' });
  await statusWhen(h, second.workflowId, 'the second writeback to wait', (s) => s.pending_approvals.length === 1);
  const no = await h.loom(['reject', second.workflowId, 'memory-1-prefs', '--reason', 'not a preference']);
  expect(no.code).toBe(0);
  const r = await second.result();
  expect(r.warnings).toEqual(['memory writeback memory-1-prefs to prefs not written: rejected by cli-test (not a preference)']);
  expect(await until('the rejected run to be closed', async () => ((await second.describe()).status.name === 'COMPLETED' ? true : undefined))).toBe(true);
  expect(await mem().list('prefs', 'prefs/dee')).toEqual([]);
}, 90_000);

test('a run outside a --session is its own session: its scope: session collections are emptied as it ends; with --session they stay', async () => {
  const scratch = collection('scratch', 'scratch/{sessionId}', { enabled: true, strategy: 'output', approval_required: false }, 'session');
  const a = memoryAgent('scratcher', [scratch], [scratch], { front: { memory: { mode: 'session', read_collections: ['scratch'], write_collections: ['scratch'] } } });
  const alone = await start(a, 'note this', { actor_id: 'ada' });
  await alone.result();
  expect(await scheduledActivities(alone)).toEqual(['loadAgent', 'memoryReadMessage', 'modelTurn', 'memoryWriteback', 'memoryEndSession']);
  expect(await mem().list('scratch', `scratch/${alone.workflowId}`)).toEqual([]);
  const inSession = await start(a, 'note this', { actor_id: 'ada', session_id: 's-7' });
  await inSession.result();
  expect(await scheduledActivities(inSession)).toEqual(['loadAgent', 'memoryReadMessage', 'modelTurn', 'memoryWriteback']);
  expect((await mem().list('scratch', 'scratch/s-7')).map((e) => e.text)).toEqual(['How may I contact you?']);
}, 60_000);

test('an escalated run\'s answer (a person\'s) is not written back; it still reads memory at its start', async () => {
  const notes = collection('esc-notes', 'esc-notes/{actorId}', { enabled: true, strategy: 'output', approval_required: false });
  const a = memoryAgent('escalator', [notes], [notes], {
    model: scripted({ turns: [{ tool_calls: [{ id: 'h1', name: 'escalate_to_human', arguments: { reason: 'needs a person' } }] }] }, 'escalating-model'),
    front: { runtime: { max_turns: 3 }, orchestration: { escalation: [{ on: 'model_decision', target: { type: 'human_queue', id: 'desk' } }] } },
  });
  const run = await start(a, 'help me', { actor_id: 'eve' });
  await statusWhen(h, run.workflowId, 'the run to wait on the desk queue', (s) => s.state === 'waiting_for_human');
  await run.executeUpdate(respondEscalationUpdate, { args: [{ queue: 'desk', output: 'a person answered', by: 'ops' }] });
  expect((await run.result()).output).toBe('a person answered');
  const acts = await scheduledActivities(run);
  expect(acts).toContain('memoryReadMessage');
  expect(acts).not.toContain('memoryWriteback');
  expect(await mem().list('esc-notes', 'esc-notes/eve')).toEqual([]);
}, 60_000);

test('an unanswered writeback is not written once the run\'s approval timeout passes (a warning says so)', async () => {
  const prefs = collection('slow-prefs', 'slow-prefs/{actorId}', { enabled: true, strategy: 'output', approval_required: true });
  const run = await start(memoryAgent('waiter', [], [prefs]), 'anything', { actor_id: 'fay', approval_timeout_seconds: 1 });
  const r = await run.result();
  expect(r.warnings).toEqual(['memory writeback memory-1-slow-prefs to slow-prefs not written: no answer within 1 s']);
  expect(await mem().list('slow-prefs', 'slow-prefs/fay')).toEqual([]);
}, 60_000);

test('memory is carried across continue-as-new: read in the first execution, written back by the last', async () => {
  const notes = collection('can-notes', 'can-notes/{actorId}', { enabled: true, strategy: 'output', approval_required: false });
  const a = memoryAgent('carrier', [notes], [notes], {
    model: scripted({ turns: [{ tool_calls: [{ id: 'e1', name: 'echo', arguments: { text: 'hi' } }] }, { content: 'carried {{last_tool_result}}' }] }, 'carrying-model'),
    tools: [builtin('echo')],
  });
  const bundle = await storeBundle(openStore(), a);
  const run = await h.t.client.workflow.start(agfReactWorkflow, {
    taskQueue: h.taskQueue, workflowId: `carrier-${randomBytes(4).toString('hex')}`,
    args: [{ bundle, agent_id: 'carrier', input: 'say hi', options: { actor_id: 'gus' }, carried: { continue_as_new_every: 1 } }],
  });
  expect((await run.result()).output).toBe('carried hi');
  // The handle follows the chain: the last execution wrote back, and read nothing again.
  const last = await scheduledActivities(run);
  expect(last).toContain('memoryWriteback');
  expect(last).not.toContain('memoryReadMessage');
  expect((await run.describe()).runId).not.toBe(run.firstExecutionRunId);
  expect(await scheduledActivities(h.t.client.workflow.getHandle(run.workflowId, run.firstExecutionRunId))).toContain('memoryReadMessage');
  expect((await mem().list('can-notes', 'can-notes/gus')).map((e) => e.text)).toEqual(['carried hi']);
}, 60_000);

test('under pii_redaction memory reads and writes the redacted input: neither the store nor any history event after the start holds the raw address', async () => {
  const notes = collection('pii-notes', 'pii-notes/{actorId}', { enabled: true, strategy: 'exchange', approval_required: false });
  await mem().add('pii-notes', 'pii-notes/hal', memoryEntry('Hal prefers email contact', { session_id: 'seed', message: 1, agent_id: 'seed' }, '2026-01-01T00:00:00Z'));
  const a = memoryAgent('redactor', [notes], [notes], { front: { policies: { pii_redaction: true } } });
  expect(compiledPolicies(a)).toMatchObject({ pii_redaction: true, runtime_pass: true });
  const raw = 'hal.private@example.com';
  const run = await start(a, `Please use email contact: ${raw}`, { actor_id: 'hal' });
  // The query was the redacted copy: it still matched the seeded entry (the model answered from it).
  expect((await run.result()).output).toBe('I will write to you by email');
  const stored = (await mem().list('pii-notes', 'pii-notes/hal')).map((e) => e.text);
  expect(stored).toHaveLength(2);
  expect(stored[1]).toContain('[EMAIL]');
  expect(stored.join('\n')).not.toContain(raw);
  const events = (await run.fetchHistory()).events ?? [];
  expect(events.slice(1).filter((e) => JSON.stringify(e).includes(raw)).map((e) => e.eventType)).toEqual([]);
}, 60_000);
