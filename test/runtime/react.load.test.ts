/**
 * agf.react loads its agent with one local-activity attempt (patch `react-local-load`): the run's
 * first workflow task loads the agent and schedules the first model call, with no `loadAgent`
 * activity task; when the local attempt fails, the run issues the `loadAgent` activity as before,
 * so a refusal fails the run with the activity's error and an outage is a retrying activity.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { compileAgent, scripted, builtin } from '../helpers/definitions';
import { eventName, historyEvents, type HistoryEvent } from '../helpers/history';
import { storeTestBundle } from './builders';
import { Harness, startHarness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('react-load');
});
afterAll(async () => {
  await h?.close();
});

const LA_MARKER = 'core_local_activity';
const markers = (events: HistoryEvent[], name: string) => events.filter((e) => e.markerRecordedEventAttributes?.markerName === name);
const scheduled = (events: HistoryEvent[]) => events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);

test('the agent is loaded inside the first workflow task: no loadAgent activity, the first model call scheduled by that task', async () => {
  const bundle = await storeTestBundle(
    compileAgent({
      agent_id: 'local-load',
      model: scripted({ turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'x' } }] }, { content: 'done {{last_tool_result}}' }] }),
      tools: [builtin('echo')],
    }).bundle,
  );
  const run = await h.start({ bundle, agent_id: 'local-load', input: 'go' });
  expect((await run.result()).output).toBe('done x');
  const events = await historyEvents(run);
  expect(scheduled(events)).toEqual(['modelTurn', 'runTool', 'modelTurn']);
  expect(markers(events, 'core_patch').length).toBeGreaterThanOrEqual(1);
  const loads = markers(events, LA_MARKER);
  expect(loads).toHaveLength(1);
  expect(loads[0].markerRecordedEventAttributes!.failure).toBeFalsy();
  // Everything up to the first model call is one workflow task: its completion, then the marker, then the schedule.
  const kinds = events.map(eventName);
  const firstModel = kinds.indexOf('ActivityTaskScheduled');
  expect(kinds.slice(0, firstModel).filter((k) => k === 'WorkflowTaskCompleted')).toHaveLength(1);
  // The agent view recorded in the marker leaves the instructions out of history.
  const recorded = Object.values(loads[0].markerRecordedEventAttributes!.details ?? {})
    .flatMap((p) => p.payloads ?? [])
    .map((p) => Buffer.from(p.data ?? []).toString('utf8'))
    .join('\n');
  expect(recorded).toContain('"agent_id":"local-load"');
  expect(recorded).not.toContain('"instructions"');
});

test('a refused load (a disabled root agent) falls back to the loadAgent activity, which fails the run with the lifecycle reason', async () => {
  const { bundle: compiled } = compileAgent({ agent_id: 'off-agent', model: scripted({ turns: [{ content: 'never' }] }) });
  compiled.agents['off-agent'] = { ...compiled.agents['off-agent'], status: 'disabled' };
  const bundle = await storeTestBundle(compiled);
  const run = await h.start({ bundle, agent_id: 'off-agent', input: 'go' });
  const err = await run.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const events = await historyEvents(run);
  expect(markers(events, LA_MARKER)).toHaveLength(1);
  expect(markers(events, LA_MARKER)[0].markerRecordedEventAttributes!.failure).toBeTruthy();
  expect(scheduled(events)).toEqual(['loadAgent']);
  const failed = events.find((e) => e.activityTaskFailedEventAttributes)!.activityTaskFailedEventAttributes!.failure!;
  expect(failed.cause?.applicationFailureInfo?.type ?? failed.applicationFailureInfo?.type).toBe('AgentNotRunnable');
  expect(failed.message).toMatch(/off-agent v[\d.]+ has status: disabled/);
});
