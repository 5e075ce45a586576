/**
 * The agent view in the start input (RunAgentInput.agent_view), on the shared dev server with the
 * production worker: a run AgentloomClient starts carries its agent's view and issues no loadAgent
 * activity (patch `agent-view-in-start-input`: its marker and upsert come first), and ends as the
 * same run started with only `bundle` + `agent_id` (which still loads it, with no marker); the view
 * survives continue-as-new; the client refuses a disabled or draft root with the
 * message the loadAgent activity gives; a view of a disabled agent given by another starter is
 * refused by the run itself.
 */
import * as path from 'path';
import { WorkflowFailedError, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { randomBytes } from 'crypto';
import type { CompiledBundle } from '../../src/compiled/types';
import type { AgentRunResult, RunAgentInput } from '../../src/shared/contract';
import { agentView, withAgentView } from '../../src/runtime/agent-view-build';
import { lifecycleRefusal } from '../../src/governance/lifecycle';
import { openBlobStore, storeBundle } from '../../src/activities/blob-store';
import { RunError } from '../../src/operator/errors';
import type { AgentloomClient } from '../../src/client/agentloom-client';
import type { TestTemporal } from '../helpers/temporal';
import { builtin, compileAgent, scripted } from '../helpers/definitions';
import { eventName, historyEvents, type HistoryEvent } from '../helpers/history';
import { useClientHarness } from '../library/client-harness';
import { patchMarkers } from '../compat/tree';
import { PATCHES } from '../../src/workflows/patches';

const DEMO = path.resolve(__dirname, '..', '..', 'examples', 'demo');
const BODY = '# Purpose\nEcho the input once, then answer.\n\n# System behavior\nThe instructions stay out of history.\n\n# Rules\n- Be brief.\n';

let t: TestTemporal;
let loom: AgentloomClient;
const harness = useClientHarness('agent-view-start', DEMO);
beforeAll(() => ({ t, loom } = harness));

/** An agent that calls `echo` once and then answers with its result (two model turns). */
function echoAgent(id: string, status = 'active'): CompiledBundle {
  return compileAgent({
    agent_id: id,
    body: BODY,
    model: scripted({ turns: [{ tool_calls: [{ id: 'e1', name: 'echo', arguments: { text: 'ping' } }] }, { content: 'echoed {{last_tool_result}}' }] }),
    tools: [builtin('echo')],
    front: { status },
  }).bundle;
}

const activities = (events: HistoryEvent[]) => events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name!);
const workflowTasks = (events: HistoryEvent[]) => events.filter((e) => e.workflowTaskCompletedEventAttributes).length;
const VIEW_PATCH = PATCHES.agentViewInStartInput.id;
const markers = (events: HistoryEvent[]) => patchMarkers({ events });
/** The events the first workflow task's commands recorded, in order (each names that task's completion). */
function firstCommands(events: HistoryEvent[]): string[] {
  const done = events.find((e) => e.workflowTaskCompletedEventAttributes)!.eventId!.toString();
  const attrs = (e: HistoryEvent) => Object.values(e).find((v): v is { workflowTaskCompletedEventId?: unknown } => typeof v === 'object' && v !== null && 'workflowTaskCompletedEventId' in v);
  return events.filter((e) => attrs(e)?.workflowTaskCompletedEventId?.toString() === done).map((e) => {
    const m = e.markerRecordedEventAttributes;
    if (m) return `marker ${markers([e])[0] ?? m.markerName}`;
    const u = e.upsertWorkflowSearchAttributesEventAttributes;
    if (u) return `upsert ${Object.keys(u.searchAttributes?.indexedFields ?? {}).sort().join(',')}`;
    const a = e.activityTaskScheduledEventAttributes;
    return a ? `activity ${a.activityType!.name!}` : eventName(e);
  });
}
const startInput = (events: HistoryEvent[]) => defaultPayloadConverter.fromPayload(events[0].workflowExecutionStartedEventAttributes!.input!.payloads![0]) as RunAgentInput;

function startRaw(input: RunAgentInput): Promise<WorkflowHandleWithFirstExecutionRunId> {
  return t.client.workflow.start('agfReactWorkflow', { taskQueue: t.taskQueue, workflowId: `${input.agent_id}-raw-${randomBytes(4).toString('hex')}`, args: [input] });
}

async function failureOf(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause as Error & { cause?: Error };
  return `${cause?.message ?? ''} ${cause?.cause?.message ?? ''}`;
}

test('a run AgentloomClient starts takes its view from the start input (no loadAgent); with only bundle + agent_id it loads it, and both end alike', async () => {
  const b = echoAgent('view-echo');
  const id = await loom.start({ bundle: b }, 'hi');
  const viewed = t.client.workflow.getHandle(id);
  const viewedResult = (await viewed.result()) as AgentRunResult;
  const viewedEvents = await historyEvents(viewed);
  const input = startInput(viewedEvents);
  // The view the loader would have returned, built by the same function; no instructions in history.
  expect(input.agent_view).toEqual(agentView(b, b.agents['view-echo']));
  expect(input.agent_view).not.toHaveProperty('instructions');
  expect(input.agent_view).not.toHaveProperty('sections');
  expect(JSON.stringify(viewedEvents)).not.toContain('The instructions stay out of history');
  expect(activities(viewedEvents)).toEqual(['modelTurn', 'runTool', 'modelTurn']);
  // The patch's marker is the run's first command, then the TemporalChangeVersion upsert core adds for it.
  expect(firstCommands(viewedEvents).slice(0, 2)).toEqual([`marker ${VIEW_PATCH}`, 'upsert TemporalChangeVersion']);
  expect(markers(viewedEvents)).toContain(VIEW_PATCH);

  const loaded = await startRaw({ bundle: input.bundle, agent_id: 'view-echo', input: 'hi' });
  const loadedResult = (await loaded.result()) as AgentRunResult;
  const loadedEvents = await historyEvents(loaded);
  expect(activities(loadedEvents)).toEqual(['loadAgent', 'modelTurn', 'runTool', 'modelTurn']);
  // A start without a view asks for no patch: its first task's one command is the load, and no marker of it anywhere.
  expect(firstCommands(loadedEvents)).toEqual(['activity loadAgent']);
  expect(markers(loadedEvents)).not.toContain(VIEW_PATCH);
  expect(viewedResult).toEqual(loadedResult);
  expect(viewedResult.output).toBe('echoed ping');
  // The load costs one workflow task (three events) and its activity's three events; the view
  // costs the patch's marker and its upsert: 6 - 2 events fewer, one workflow task fewer.
  expect(workflowTasks(loadedEvents) - workflowTasks(viewedEvents)).toBe(1);
  expect(loadedEvents.length - viewedEvents.length).toBe(6 - 2);
}, 120_000);

test('the view travels across continue-as-new: no run of the chain loads the agent, and the chain ends as one that loads it', async () => {
  const b = echoAgent('view-can');
  const id = await loom.start({ bundle: b }, 'hi');
  await t.client.workflow.getHandle(id).result();
  const ref = startInput(await historyEvents(t.client.workflow.getHandle(id))).bundle;
  const base: RunAgentInput = { bundle: ref, agent_id: 'view-can', input: 'hi', carried: { continue_as_new_every: 1 } };

  const viewed = await startRaw(withAgentView(base, b, 'agfReactWorkflow'));
  const viewedResult = await viewed.result();
  const first = await historyEvents(t.client.workflow.getHandle(viewed.workflowId, viewed.firstExecutionRunId));
  const last = await historyEvents(t.client.workflow.getHandle(viewed.workflowId));
  expect(first[first.length - 1].workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
  expect(startInput(last).agent_view).toEqual(agentView(b, b.agents['view-can']));
  expect([...activities(first), ...activities(last)]).toEqual(['modelTurn', 'runTool', 'modelTurn']);
  // Each run of the chain asks for the patch on its own first task (a new history each).
  expect([markers(first), markers(last)].map((m) => m.filter((id) => id === VIEW_PATCH))).toEqual([[VIEW_PATCH], [VIEW_PATCH]]);

  const loaded = await startRaw(base);
  expect(await loaded.result()).toEqual(viewedResult);
  const loadedLast = await historyEvents(t.client.workflow.getHandle(loaded.workflowId));
  expect(activities(loadedLast)[0]).toBe('loadAgent');
  expect(markers(loadedLast)).not.toContain(VIEW_PATCH);
}, 120_000);

test('the client refuses a disabled or draft root before anything starts, with the message loadAgent gives a start without a view', async () => {
  for (const status of ['disabled', 'draft']) {
    const b = echoAgent(`view-${status}`, status);
    const message = lifecycleRefusal(b.agents[b.root], {})!;
    expect(message).toMatch(new RegExp(`has status: ${status}`));
    const refused = await loom.start({ bundle: b }, 'hi').then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(RunError);
    expect((refused as Error).message).toBe(message);
    // Today's refusal of a start without a view: the loadAgent activity's, the same words.
    const ref = await storeBundle(openBlobStore(), b);
    expect(await failureOf(startRaw({ bundle: ref, agent_id: b.root, input: 'hi' }).then((h) => h.result()))).toContain(message);
  }
  // A draft runs when asked for, from its view, with the draft warning.
  const draft = echoAgent('view-draft-ok', 'draft');
  const id = await loom.start({ bundle: draft }, 'hi', { allow_draft: true });
  const res = (await t.client.workflow.getHandle(id).result()) as AgentRunResult;
  expect(res.output).toBe('echoed ping');
  expect(res.warnings.join('\n')).toMatch(/view-draft-ok v1\.0\.0 is a draft/);
  expect(activities(await historyEvents(t.client.workflow.getHandle(id)))).not.toContain('loadAgent');
}, 180_000);

test('a view of a disabled agent given by another starter is refused by the run itself, before any activity', async () => {
  const b = echoAgent('view-off', 'disabled');
  const ref = await storeBundle(openBlobStore(), b);
  const h = await startRaw(withAgentView({ bundle: ref, agent_id: 'view-off', input: 'hi' }, b, 'agfReactWorkflow'));
  expect(await failureOf(h.result())).toContain(lifecycleRefusal(b.agents['view-off'], {})!);
  expect(activities(await historyEvents(h))).toEqual([]);
}, 120_000);
